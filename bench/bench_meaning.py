"""What each meaning model costs: load time and time per text, side by side in one process.

The offline engine encodes each question and each candidate sentence of the Python documentation once (cached).
This times both models of `contract/meaning.py` on the same texts (sentences of the standard library's
docstrings, as the engine sees them), one after the other in this process, and prints the ratio:

- `wordllama`: WordLlama's static embeddings (mean of token vectors);
- `minilm`: all-MiniLM-L6-v2 run in numpy (`engines/offline/minilm.py`), one BLAS thread;
- with `--workers 2`, the same again in two processes at once (a bench's `--workers 2`), which is where a BLAS
  thread per core used to cost ten times over.

Read the ratios, not the seconds: the machines are shared.

Usage:
    .venv/bin/python bench/bench_meaning.py [--n 300] [--workers 2]
"""

from __future__ import annotations

import argparse
import multiprocessing
import re
import time

from harness.engines.offline import semantic
from harness.sources.pythondocs import python_docs_documents


def texts(n: int) -> list[str]:
    """n distinct sentences of the standard library's documentation, in corpus order."""
    seen: dict[str, None] = {}
    for _path, _title, text in python_docs_documents():
        for sentence in re.split(r"(?<=[.!?])\s+", text):
            if 20 <= len(sentence) <= 400:
                seen.setdefault(sentence.strip(), None)
            if len(seen) >= n:
                return list(seen)
    return list(seen)


def timed(model: str, sample: list[str]) -> tuple[float, float]:
    """(load seconds, seconds per text) of one model, caches cleared first."""
    semantic._vector.cache_clear()
    start = time.perf_counter()
    semantic._vector(model, "load")
    loaded = time.perf_counter() - start
    start = time.perf_counter()
    for text in sample:
        semantic._vector(model, text)
    return loaded, (time.perf_counter() - start) / len(sample)


def both(sample: list[str]) -> dict[str, tuple[float, float]]:
    return {model: timed(model, sample) for model in ("wordllama", "minilm")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--n", type=int, default=300, help="texts to encode (default 300)")
    parser.add_argument("--workers", type=int, default=1, help="also time this many processes at once")
    args = parser.parse_args()
    sample = texts(args.n)
    print(f"{len(sample)} sentences of the Python documentation, each encoded once")
    got = both(sample)
    for model, (loaded, per) in got.items():
        print(f"{model:>10}: load {loaded:.2f} s, {per * 1000:.1f} ms a text")
    print(f"minilm / wordllama, per text: {got['minilm'][1] / got['wordllama'][1]:.1f}x")
    if args.workers > 1:
        with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
            runs = pool.map(both, [sample] * args.workers)
        per = {m: max(r[m][1] for r in runs) for m in ("wordllama", "minilm")}
        print(
            f"{args.workers} processes at once, slowest: wordllama {per['wordllama'] * 1000:.1f} ms, "
            f"minilm {per['minilm'] * 1000:.1f} ms a text; minilm x{per['minilm'] / got['minilm'][1]:.1f} of alone"
        )


if __name__ == "__main__":
    main()
