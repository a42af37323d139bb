"""Benchmark: the harness's BM25 corpus index against raw bm25s on the same passages.

What it measures, for each corpus size (10k and 100k passages by default):

- index time: the harness's ``CorpusIndex.build(corpus, use_cache=False)`` (passage
  splitting, tokenizing with stemming and stopwords, bm25s indexing) against raw
  ``bm25s.tokenize`` + ``BM25().index`` over the passage texts the harness produced;
- peak memory: the peak resident set size (VmHWM) of a fresh process that does only
  that one measurement, and how much of it came after the synthetic corpus was built;
- query latency p50/p95 over a fixed set of 200 queries, one query at a time: the
  harness's ``CorpusIndex.search(q, k=10)`` against raw ``bm25s.tokenize`` +
  ``BM25.retrieve(k=10)``.

The corpus is English-like synthetic text from a fixed-seed generator: a vocabulary of
invented words with a Zipf distribution plus common English stopwords, sentences of 6-18
words, paragraphs of 60-120 words, 1-20 paragraphs per document. Every number is
measured in a subprocess of its own so that measurements do not share memory or caches.

Run:  .venv/bin/python bench/bench_index.py            (10k and 100k passages)
      .venv/bin/python bench/bench_index.py --sizes 10000 --queries 100 --repeat 1
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SEED = 20261130
STOPWORDS = (
    "the of and to in a is that for it as with was on be by this are or from at an which "
    "not have has can will but if when all its into than more also these may"
).split()
SYLLABLES = (
    "ka ri to ne mo sa lu pe di ba ven tor al ex pro con sta men tion ing er ly qu ar ol im par vis cor dat num ser"
).split()


# ---- synthetic corpus -----------------------------------------------------------------------


def vocabulary(rng: np.random.Generator, size: int = 20_000) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        n = int(rng.integers(2, 5))
        words.add("".join(SYLLABLES[i] for i in rng.integers(0, len(SYLLABLES), n)))
    words = sorted(words)
    rng.shuffle(words)  # so that frequency rank does not follow the alphabet
    return words


def zipf(n: int) -> np.ndarray:
    p = 1.0 / np.arange(1, n + 1) ** 1.07
    return p / p.sum()


def paragraphs(n: int, seed: int = SEED) -> tuple[list[str], list[str]]:
    """`n` paragraphs of 60-120 words, and the vocabulary they were drawn from (most frequent first)."""
    rng = np.random.default_rng(seed)
    vocab = vocabulary(rng)
    p = zipf(len(vocab))
    out = []
    for _ in range(n):
        n_words = int(rng.integers(60, 121))
        content = rng.choice(len(vocab), size=n_words, p=p)
        stop = rng.integers(0, len(STOPWORDS), n_words)
        is_stop = rng.random(n_words) < 0.35
        words = [STOPWORDS[s] if st else vocab[c] for c, s, st in zip(content, stop, is_stop)]
        sentences, i = [], 0
        while i < n_words:
            j = min(n_words, i + int(rng.integers(6, 19)))
            sentences.append(" ".join(words[i:j]).capitalize() + ".")
            i = j
        out.append(" ".join(sentences))
    return out, vocab


def documents(n_paragraphs: int):
    """A harness Corpus of documents made of 1-20 paragraphs each."""
    from harness.contract.formats import sha256_text
    from harness.sources.corpus import Corpus, Document

    paras, vocab = paragraphs(n_paragraphs)
    rng = np.random.default_rng(SEED + 1)
    docs, i = [], 0
    while i < len(paras):
        j = min(len(paras), i + int(rng.integers(1, 21)))
        text = f"Document {len(docs)}\n\n" + "\n\n".join(paras[i:j]) + "\n"
        docs.append(Document(f"doc-{len(docs):06d}.md", f"Document {len(docs)}", text, sha256_text(text)))
        i = j
    return Corpus("bench", docs), vocab


def queries(vocab: list[str], n: int) -> list[str]:
    """Fixed queries of 2-5 words drawn with the corpus's own word frequencies, plus a stopword in some."""
    rng = np.random.default_rng(SEED + 2)
    p = zipf(len(vocab))
    out = []
    for _ in range(n):
        words = [vocab[i] for i in rng.choice(len(vocab), size=int(rng.integers(2, 6)), p=p)]
        if rng.random() < 0.5:
            words.insert(int(rng.integers(0, len(words))), STOPWORDS[int(rng.integers(0, len(STOPWORDS)))])
        out.append(" ".join(words))
    return out


# ---- one measurement per process ------------------------------------------------------------


def _rss_peak_mb() -> float:
    """Peak resident set size of this process so far (VmHWM), in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _latency(fn, qs: list[str]) -> tuple[float, float]:
    for q in qs[:10]:  # warm-up
        fn(q)
    times = []
    for q in qs:
        t0 = time.perf_counter()
        fn(q)
        times.append(time.perf_counter() - t0)
    p50, p95 = np.percentile(np.array(times) * 1000, [50, 95])
    return float(p50), float(p95)


def worker(engine: str, n: int, n_queries: int) -> dict:
    from harness.sources.corpus import split_passages
    from harness.sources.index import CorpusIndex

    corpus, vocab = documents(n)
    qs = queries(vocab, n_queries)
    if engine == "raw":  # the same passages the harness indexes, split outside the timing
        texts = [d.text[s:e] for d in corpus.documents for s, e in split_passages(d.text)]
        del corpus
    base_mb = _rss_peak_mb()
    t0 = time.perf_counter()
    if engine == "harness":
        index = CorpusIndex.build(corpus, use_cache=False)
        n_passages = len(index)
        search = lambda q: index.search(q, k=10)  # noqa: E731
    else:
        import bm25s

        retriever = bm25s.BM25()
        retriever.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)
        n_passages = len(texts)

        def search(q: str):
            return retriever.retrieve(
                bm25s.tokenize([q], stopwords="en", show_progress=False), k=10, show_progress=False
            )

    index_s = time.perf_counter() - t0
    peak_mb = _rss_peak_mb()
    p50, p95 = _latency(search, qs)
    return {
        "engine": engine,
        "passages": n_passages,
        "index_s": index_s,
        "peak_mb": max(peak_mb, _rss_peak_mb()),
        "index_mb": peak_mb - base_mb,
        "p50_ms": p50,
        "p95_ms": p95,
    }


def measure(engine: str, n: int, n_queries: int, repeat: int) -> dict:
    """Run the worker `repeat` times, each in a fresh process; keep the best index time (the machine is
    shared, so the minimum is the least disturbed run), the median latencies and the largest memory."""
    runs = []
    for _ in range(repeat):
        out = subprocess.run(
            [sys.executable, __file__, "--worker", engine, "--sizes", str(n), "--queries", str(n_queries)],
            check=True,
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ, "DISABLE_TQDM": "1"},
        )
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    return {
        "passages": runs[0]["passages"],
        "index_s": min(r["index_s"] for r in runs),
        "peak_mb": max(r["peak_mb"] for r in runs),
        "index_mb": max(r["index_mb"] for r in runs),
        "p50_ms": float(np.median([r["p50_ms"] for r in runs])),
        "p95_ms": float(np.median([r["p95_ms"] for r in runs])),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000], help="paragraphs (about passages)")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=3, help="fresh processes per measurement (best index time kept)")
    ap.add_argument("--worker", choices=["harness", "raw"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.sizes[0], args.queries)))
        return

    import snowballstemmer

    stemmer = type(snowballstemmer.stemmer("english"))
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, stemmer {stemmer.__module__}.{stemmer.__name__}, "
        f"{args.queries} queries, best of {args.repeat} runs"
    )
    head = f"{'passages':>9} {'metric':<24} {'harness':>10} {'raw bm25s':>10} {'harness/raw':>12}"
    print(head)
    print("-" * len(head))
    for n in args.sizes:
        h, r = measure("harness", n, args.queries, args.repeat), measure("raw", n, args.queries, args.repeat)
        rows = [
            ("index time (s)", h["index_s"], r["index_s"]),
            ("index passages/s", h["passages"] / h["index_s"], r["passages"] / r["index_s"]),
            ("peak RSS (MiB)", h["peak_mb"], r["peak_mb"]),
            ("RSS added by index (MiB)", h["index_mb"], r["index_mb"]),
            ("query p50 (ms)", h["p50_ms"], r["p50_ms"]),
            ("query p95 (ms)", h["p95_ms"], r["p95_ms"]),
        ]
        for name, hv, rv in rows:
            print(f"{h['passages']:>9} {name:<24} {hv:>10.2f} {rv:>10.2f} {hv / rv if rv else float('nan'):>12.2f}")
        targets = [
            ("indexing throughput >= 0.5 x raw", h["passages"] / h["index_s"] >= 0.5 * r["passages"] / r["index_s"]),
            ("query p95 < 10 ms", h["p95_ms"] < 10),
            ("peak memory < 1 GiB", h["peak_mb"] < 1024),
        ]
        print(f"{'':>9} targets: " + "; ".join(f"{t}: {'met' if ok else 'MISSED'}" for t, ok in targets))
        print()


if __name__ == "__main__":
    main()
