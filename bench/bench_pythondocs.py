"""The offline engine over the built-in python-docs corpus: does the report cite the documents that answer?

Runs each question of `bench/pythondocs_questions.json` (or `--questions`) offline over
`--corpus python-docs` (plan approved) and scores the final report:

- gold document cited: a cited claim rests on a card from one of the question's gold documents;
- citation precision: the share of cited documents that are gold (0 when nothing is cited);
- answer key phrase in body: one of the question's key phrases occurs (case-insensitive, typographic quotes read as
  straight ones on both sides: `plain`) in the report body (no title line, no Limitations, no appended
  Evidence/Sources sections);
- gold document retrieved: some search of the run returned a passage of a gold document (cited or not), so a
  miss that is not retrieved is the search's, one that is retrieved the ranking's;
- self-citations: reports citing the harness's own package description (the distribution that
  ships the `harness` package), which is not documentation of Python.

`--split tune|test` runs one half of a set whose questions carry a `split` field
(`pythondocs_questions_v2.json`, the default: 104 questions split once at random).

Usage:
    .venv/bin/python bench/bench_pythondocs.py --split tune
    .venv/bin/python bench/bench_pythondocs.py --split test --workers 2
    .venv/bin/python bench/bench_pythondocs.py --questions bench/pythondocs_questions.json
    .venv/bin/python bench/bench_pythondocs.py --json /tmp/pydocs.json --keep /tmp/pydocs-runs
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_hotpot import body_of, cited_cards  # noqa: E402  (the same report body as the HotpotQA benchmark)

HERE = Path(__file__).resolve().parent
QUESTIONS = HERE / "pythondocs_questions_v2.json"
READABLE = ("tune", "")  # splits whose per-question misses are printed (a set without splits: all)


# Typographic quotes and apostrophes as their straight forms: the documents write "class’s", a key phrase "class's".
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


def plain(text: str) -> str:
    """Text as the key-phrase figure compares it: lower case, whitespace runs as one space, typographic quotes as
    straight ones (a key phrase and a document may write one apostrophe two ways)."""
    return " ".join(text.translate(_QUOTES).lower().split())


def key_phrase_in(body: str, phrases: list[str]) -> bool:
    """Does one of the key phrases occur in the body (both read `plain`)?"""
    body = plain(body)
    return any(plain(k) in body for k in phrases)


def own_distributions() -> set[str]:
    """Corpus paths of the harness's own distribution(s), `dist/<normalized name>` (the same rule python-docs uses
    to leave them out, so a report citing one would mean that rule failed)."""
    from harness.sources.pythondocs import own_distributions as names

    return {f"dist/{name}" for name in names()}


def cited_documents(run_dir: Path) -> set[str]:
    """Corpus paths of the documents the report's cited claims rest on."""
    return {card["path"] for card in cited_cards(run_dir)}


def retrieved_documents(run_dir: Path) -> set[str]:
    """Corpus paths of every source the run's searches registered (whether cited or not)."""
    paths = set()
    for record in (run_dir / "sources").glob("*.json"):
        paths.add(json.loads(record.read_text(encoding="utf-8")).get("path") or "")
    return paths


def run_one(item: dict, runs_dir: Path, own: set[str], corpus: str = "python-docs") -> dict:
    import harness

    result = harness.run(item["question"], corpus=corpus, runs_dir=runs_dir, yes=True)
    report = result.run_dir / "final-report.md"
    completed = result.status == "completed" and report.is_file()
    body = body_of(report.read_text(encoding="utf-8")) if completed else ""
    cited = cited_documents(result.run_dir) if completed else set()
    gold = set(item["gold"])
    literal = " ".join(body.lower().split())  # the body as the scorer before `plain` read it
    return {
        "question": item["question"],
        "status": result.status,
        "gold_cited": bool(cited & gold),
        "gold_retrieved": bool(retrieved_documents(result.run_dir) & gold) if completed else False,
        "citation_precision": len(cited & gold) / len(cited) if cited else 0.0,
        "answer_in_body": key_phrase_in(body, item["key_phrases"]),
        # the figure as scored before quotes were read `plain` (kept so a scorer change is not read as an engine's)
        "answer_in_body_literal": any(k.lower() in literal for k in item["key_phrases"]),
        "self_citation": bool(cited & own),
        "cited": sorted(cited),
        "run_dir": str(result.run_dir),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--questions", type=Path, default=QUESTIONS, help="question set (JSON)")
    ap.add_argument("--split", choices=("all", "tune", "test"), default="all", help="questions of this split only")
    ap.add_argument("--start", type=int, default=0, help="first question (0-based) of the selection")
    ap.add_argument("--n", type=int, default=0, help="number of questions (0: all)")
    ap.add_argument("--workers", type=int, default=1, help="processes")
    ap.add_argument("--corpus", default="python-docs", help="python-docs (default) or python-docs+packages")
    ap.add_argument("--json", type=Path, help="write per-question scores here")
    ap.add_argument("--keep", type=Path, help="keep the run folders under this folder")
    args = ap.parse_args(argv)
    try:
        items = json.loads(args.questions.read_text(encoding="utf-8"))["questions"]
    except (OSError, ValueError, KeyError) as exc:
        print(f"bench_pythondocs: --questions: {args.questions}: {exc}", file=sys.stderr)
        return 2
    if args.split != "all":
        items = [item for item in items if item.get("split") == args.split]
    items = items[args.start : args.start + args.n] if args.n else items[args.start :]
    if not items:
        print("bench_pythondocs: no question selected", file=sys.stderr)
        return 2
    own = own_distributions()
    with tempfile.TemporaryDirectory(prefix="pydocs-") as tmp:
        runs_dir = args.keep or Path(tmp)
        if args.workers > 1:
            from concurrent.futures import ProcessPoolExecutor

            with ProcessPoolExecutor(args.workers) as pool:
                n = len(items)
                results = list(pool.map(run_one, items, [runs_dir] * n, [own] * n, [args.corpus] * n))
        else:
            results = [run_one(item, runs_dir, own, args.corpus) for item in items]
    n = len(results)
    print(f"python-docs questions: {n} ({args.questions.name}, split {args.split}, corpus {args.corpus})")
    for r, item in zip(results, items):
        r["split"] = item.get("split", "")
    groups = [("all", results)] + [
        (name, [r for r in results if r["split"] == name]) for name in ("tune", "test") if args.split == "all"
    ]
    groups = [(name, rs) for name, rs in groups if rs]
    print("| figure | " + " | ".join(f"{name} (n={len(rs)})" for name, rs in groups) + " |")
    print("| --- |" + " ---: |" * len(groups))
    rows = [
        ("gold document cited", lambda rs: f"{sum(r['gold_cited'] for r in rs) / len(rs):.2f}"),
        (
            "gold document retrieved (any search hit)",
            lambda rs: f"{sum(r['gold_retrieved'] for r in rs) / len(rs):.2f}",
        ),
        ("citation precision", lambda rs: f"{sum(r['citation_precision'] for r in rs) / len(rs):.2f}"),
        ("answer key phrase in body", lambda rs: f"{sum(r['answer_in_body'] for r in rs) / len(rs):.2f}"),
        (
            "... quotes compared literally (the scorer before issue-23s)",
            lambda rs: f"{sum(r['answer_in_body_literal'] for r in rs) / len(rs):.2f}",
        ),
        ("self-citations (reports)", lambda rs: str(sum(r["self_citation"] for r in rs))),
        ("completed", lambda rs: f"{sum(r['status'] == 'completed' for r in rs)} of {len(rs)}"),
    ]
    for label, fn in rows:
        print(f"| {label} | " + " | ".join(fn(rs) for _, rs in groups) + " |")
    for r in results:  # per-question lines for questions one may tune on only: never a test or holdout question's
        if r["split"] in READABLE and (not r["gold_cited"] or r["self_citation"]):
            print(f"  missed: {r['question']} -> {', '.join(r['cited']) or 'nothing cited'} ({r['status']})")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
