"""The harness's sentence splitter against HotpotQA's own sentence boundaries (and pysbd, if installed).

HotpotQA stores every context paragraph as a list of sentences, so the boundaries between
them are a gold standard for a splitter. For each paragraph of the sample the script joins
the sentences, splits the text again, and counts the sentence ends found against the gold
ends: precision, recall and F1 of the boundaries, the share of paragraphs split exactly right,
and the time taken. pysbd (a rule-based segmenter) is measured the same way when it is
installed (`pip install pysbd`; it is not a dependency of the harness).

Usage:
    .venv/bin/python bench/bench_sentences.py
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from harness.sources.sentences import split_sentences

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "hotpotqa-dev-sample.jsonl"


def paragraphs(path: Path) -> list[tuple[str, set[int]]]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        for _, sentences in json.loads(line)["context"]:
            text, ends = "", set()
            for k, sentence in enumerate(sentences):
                text += sentence.lstrip() if k == 0 else sentence
                ends.add(len(text.rstrip()))
            out.append((text, ends))
    return out


def harness_ends(text: str) -> set[int]:
    return {e for _, e in split_sentences(text)}


def pysbd_splitter():
    try:
        import pysbd
    except ImportError:
        return None
    seg = pysbd.Segmenter(language="en", clean=False, char_span=True)

    def ends(text: str) -> set[int]:
        out = set()
        for span in seg.segment(text):
            e = span.end
            while e > 0 and text[e - 1].isspace():
                e -= 1
            out.add(e)
        return out

    return ends


def main() -> int:
    data = Path(sys.argv[1]) if len(sys.argv) > 1 else DATA
    if not data.is_file():
        print(f"bench_sentences: {data} does not exist", file=sys.stderr)
        return 2
    paras = paragraphs(data)
    print(f"{len(paras)} paragraphs of {data.name}")
    print("| splitter | boundary precision | recall | F1 | paragraphs exact | seconds |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name, fn in (("harness (sources/sentences.py)", harness_ends), ("pysbd", pysbd_splitter())):
        if fn is None:
            print(f"| {name} | not installed | | | | |")
            continue
        t0 = time.perf_counter()
        tp = found = gold = exact = 0
        for text, ends in paras:
            pred = fn(text)
            tp += len(pred & ends)
            found += len(pred)
            gold += len(ends)
            exact += pred == ends
        seconds = time.perf_counter() - t0
        p, r = tp / found, tp / gold
        print(f"| {name} | {p:.4f} | {r:.4f} | {2 * p * r / (p + r):.4f} | {exact / len(paras):.4f} | {seconds:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
