"""How fast the harness finds what a model quoted: `locate_quote` on a 300-character quote in a 1 MB snapshot.

The snapshot is the built-in python-docs corpus's longest documents joined to 1,000,000
characters; quotes are 300-character windows taken at 20 fixed offsets. Each case is timed
side by side with plain `str.find` of the exact quote (the floor any locator pays), and the
ratio is printed:

- exact: the quote as it stands in the snapshot;
- whitespace: its spaces turned into line breaks and double spaces;
- typography: its backticks, asterisks and underscores dropped, quotes curled, dashes changed;
- missing: a paraphrase (not found), then `closest_passage` (rapidfuzz) to say where to look.

    .venv/bin/python bench/bench_quotes.py [--size 1000000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.contract.quotes import closest_passage, locate_quote  # noqa: E402
from harness.sources.corpus import load_python_docs  # noqa: E402


def snapshot(size: int) -> str:
    docs = sorted(load_python_docs().documents, key=lambda d: -len(d.text))
    text = ""
    for d in docs:
        text += d.text + "\n\n"
        if len(text) >= size:
            break
    return text[:size]


def variants(quote: str) -> dict[str, str]:
    typo = quote.replace("`", "").replace("*", "").replace("_", "").replace('"', "\u201c").replace("'", "\u2019")
    return {
        "exact": quote,
        "whitespace": quote.replace(" ", "\n ", 3).replace(" ", "  ", 5),
        "typography": typo.replace(" - ", " \u2013 "),
        "missing": "The documentation certainly does not say this sentence anywhere at all, " + quote[:120][::-1],
    }


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    text = snapshot(args.size)
    offsets = [int(len(text) * (i + 0.5) / 20) for i in range(20)]
    quotes = [text[o : o + 300] for o in offsets]
    rows: dict[str, list[tuple[float, float]]] = {}
    for quote in quotes:
        floor = best(lambda q=quote: text.find(q), args.repeat)
        for name, q in variants(quote).items():
            if name == "missing":
                t = best(lambda q=q: (locate_quote(text, q), closest_passage(text, q)), args.repeat)
            else:
                t = best(lambda q=q: locate_quote(text, q), args.repeat)
            rows.setdefault(name, []).append((t, floor))
    print(f"snapshot {len(text):,} characters; 20 quotes of 300 characters; best of {args.repeat}")
    print(f"{'case':<12} {'median ms':>10} {'max ms':>8} {'str.find ms':>12} {'ratio':>8}")
    for name, pairs in rows.items():
        ms = [t * 1000 for t, _ in pairs]
        floor = statistics.median(f * 1000 for _, f in pairs)
        print(
            f"{name:<12} {statistics.median(ms):10.2f} {max(ms):8.2f} {floor:12.3f} {statistics.median(ms) / floor:8.1f}"
        )


if __name__ == "__main__":
    main()
