"""HotpotQA (distractor setting) through the offline engine: does the report answer and cite the gold evidence?

For each question of a slice of `../shared/data/hotpotqa-dev-sample.jsonl` (or `--data`), each of
its context paragraphs is written as one document (`# title`, a blank line, then the paragraph)
into a fresh corpus folder, the question is run offline (`harness.run`, plan approved), and the
final report is scored as the data README says:

- answer in body: the normalized gold answer (lower case, no punctuation or articles) occurs in
  the report body (the report without its title line, its Limitations section and the Evidence
  and Sources sections the harness appends). Yes/no answers are not counted.
- any / every gold paragraph cited: the cards of the claims the body cites come from one / all of
  the gold paragraphs (the titles of `supporting_facts`).
- citation precision: the share of cited paragraphs that are gold (0 when nothing is cited).
- supporting-fact precision / recall / F1 (HotpotQA's `sp` metric, averaged per question): the
  gold (title, sentence index) pairs against the sentences the cited cards' quotes overlap.

A run that ends without a report scores as a report that cites nothing.

The script also prints the *ceiling* of each figure (what a perfect reader of the same corpus would
score) and the figures over the *complete* questions, those whose gold paragraphs are all in the
corpus (every question of the replaced 1,086-question file is complete).

Parts (bench/README.md, issue 23): `--split tune` or `--split untuned` picks the questions of
`bench/hotpot_split.json`, a fixed-seed random split of the file made once; `--start`/`--n` then
slice that part (in file order).

Usage:
    .venv/bin/python bench/bench_hotpot.py --start 0 --n 40
    .venv/bin/python bench/bench_hotpot.py --split tune --n 40
    .venv/bin/python bench/bench_hotpot.py --split untuned --n 543 --workers 2 --json /tmp/untuned.json
"""

from __future__ import annotations

import argparse
import json
import os
import re
import string
import sys
import tempfile
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
# ../shared/data from the main checkout, or from a worktree two levels down (/work/wt/NAME).
DATA = next(
    (p for p in (HERE.parents[i] / "shared" / "data" / "hotpotqa-dev-sample.jsonl" for i in (1, 2)) if p.is_file()),
    HERE.parent.parent / "shared" / "data" / "hotpotqa-dev-sample.jsonl",
)
SPLIT = HERE / "hotpot_split.json"
FIGURES = ("answer_in_body", "any_gold_cited", "every_gold_cited", "citation_precision", "sp_f1")


def normalize_answer(text: str) -> str:
    """HotpotQA's answer normalization: lower case, no punctuation, no articles, single spaces."""
    text = "".join(ch for ch in text.lower() if ch not in set(string.punctuation))
    text = re.sub(r"\b(?:a|an|the)\b", " ", text)
    return " ".join(text.split())


def write_corpus(row: dict, folder: Path) -> dict[str, tuple[str, list[tuple[int, int]]]]:
    """One document per context paragraph; returns path -> (title, [(start, end) of each sentence])."""
    layout = {}
    for i, (title, sentences) in enumerate(row["context"]):
        head = f"# {title}\n\n"
        spans, pos = [], len(head)
        body = ""
        for k, sentence in enumerate(sentences):
            piece = sentence.lstrip() if k == 0 else sentence
            lead = len(piece) - len(piece.lstrip())
            spans.append((pos + len(body) + lead, pos + len(body) + len(piece.rstrip())))
            body += piece
        name = f"p{i:02d}.md"
        raw = head + body + "\n"
        (folder / name).write_text(raw, encoding="utf-8")
        layout[name] = (title, snapshot_spans(folder / name, raw, spans))
    return layout


def snapshot_spans(path: Path, raw: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The sentences' spans in the text the corpus stores for the file (a card's span is into that snapshot): the
    harness reads a Markdown file as the text a reader sees ("# Title" as "Title", marks and escapes dropped), so
    each offset into the raw file is carried over to the snapshot by aligning the two."""
    from difflib import SequenceMatcher

    from harness.sources.extract import extract

    text = extract(path, raw.encode("utf-8"))[1]
    if text == raw:
        return spans
    blocks = SequenceMatcher(None, raw, text, autojunk=False).get_matching_blocks()

    def moved(pos: int) -> int:
        for a, b, size in blocks:
            if pos < a + size:
                return b + max(0, pos - a)
        return len(text)

    return [(moved(s), moved(e - 1) + 1) for s, e in spans]


def body_of(report: str) -> str:
    """The report without its title line, its Limitations section and the appended Evidence/Sources."""
    report = report.split("\n---\n", 1)[0]
    lines = report.splitlines()
    out, skip = [], False
    for line in lines[1:] if lines and lines[0].startswith("# ") else lines:
        if line.startswith("## "):
            skip = line[3:].strip().lower().startswith("limitation")
        if not skip:
            out.append(line)
    return "\n".join(out)


def cited_cards(run_dir: Path) -> list[dict]:
    """The cards behind the claims the last draft's body cites: source id, the source record's corpus path, span
    and quote ([] when the run wrote no draft). The one reading of "what the report cites" every bench scores."""
    from harness.contract.citations import parse_citations

    drafts = sorted((run_dir / "drafts").glob("draft-*.md"), key=lambda p: int(p.stem.split("-")[1]))
    if not drafts:
        return []
    claims = {c["claim_id"]: c for c in json.loads((run_dir / "claims.json").read_text())["claims"]}
    keys = {k for cit in parse_citations(body_of(drafts[-1].read_text(encoding="utf-8"))) for k in cit.keys}
    out = []
    for key in sorted(keys):
        claim = claims.get(key, {})
        for card_id in claim.get("supporting_cards", []) + claim.get("contradicting_cards", []):
            card = json.loads((run_dir / "source-cards" / f"{card_id}.json").read_text())
            record = json.loads((run_dir / "sources" / f"{card['source_id']}.json").read_text())
            span = (card["span"]["start"], card["span"]["end"])
            out.append(
                {
                    "source_id": card["source_id"],
                    "path": record.get("path") or "",
                    "span": span,
                    "quote": card.get("quote", ""),
                }
            )
    return out


def citation_scores(row: dict, layout: dict, cited: list[dict]) -> dict:
    """The figures of what a report cites (cards as `cited_cards` gives them): documents (any gold, every gold,
    precision) and supporting facts (the paragraph sentences the cards' spans overlap: precision, recall, F1)."""
    gold_titles = {t for t, _ in row["supporting_facts"]}
    gold_facts = {(t, i) for t, i in row["supporting_facts"]}
    cited_titles: set[str] = set()
    facts: set[tuple[str, int]] = set()
    for card in cited:
        path = card["path"].rsplit("/", 1)[-1]
        if path not in layout:
            continue
        title, spans = layout[path]
        cited_titles.add(title)
        s, e = card["span"]
        facts |= {(title, k) for k, (a, b) in enumerate(spans) if a < e and s < b}
    tp = len(facts & gold_facts)
    p = tp / len(facts) if facts else 0.0
    r = tp / len(gold_facts) if gold_facts else 0.0
    return {
        "any_gold_cited": bool(cited_titles & gold_titles),
        "every_gold_cited": gold_titles <= cited_titles,
        "citation_precision": len(cited_titles & gold_titles) / len(cited_titles) if cited_titles else 0.0,
        "sp_p": p,
        "sp_r": r,
        "sp_f1": 2 * p * r / (p + r) if p + r else 0.0,
        "cited": sorted(cited_titles),
        "facts": sorted(facts),
    }


def score_run(row: dict, layout: dict, run_dir: Path, status: str) -> dict:
    gold_titles = {t for t, _ in row["supporting_facts"]}
    gold_facts = {(t, i) for t, i in row["supporting_facts"]}
    titles_present = {title for title, _ in layout.values()}
    answer = normalize_answer(row["answer"])
    yes_no = answer in ("yes", "no")
    report_path = run_dir / "final-report.md"
    completed = status == "completed" and report_path.is_file()
    body = body_of(report_path.read_text(encoding="utf-8")) if completed else ""
    scores = citation_scores(row, layout, cited_cards(run_dir) if completed else [])
    ceiling_r = len({(t, i) for t, i in gold_facts if t in titles_present}) / len(gold_facts)
    return {
        "id": row["_id"],
        "type": row["type"],
        "status": status,
        "complete": gold_titles <= titles_present,
        "answer_in_body": None if yes_no else answer in normalize_answer(body),
        **{k: v for k, v in scores.items() if k not in ("cited", "facts")},
        "ceiling": {
            "answer_in_body": None
            if yes_no
            else any(answer in normalize_answer(" ".join(s)) for _, s in row["context"]),
            "any_gold_cited": bool(gold_titles & titles_present),
            "every_gold_cited": gold_titles <= titles_present,
            "citation_precision": 1.0 if gold_titles & titles_present else 0.0,
            "sp_f1": 2 * ceiling_r / (1 + ceiling_r) if ceiling_r else 0.0,
        },
        "cited": scores["cited"],
        "gold": sorted(gold_titles),
        "facts": scores["facts"],
    }


def run_one(row: dict, keep: Path | None = None) -> dict:
    import harness

    with tempfile.TemporaryDirectory(prefix="hotpot-") as tmp:
        where = keep / row["_id"] if keep else Path(tmp)
        corpus = where / "corpus"
        corpus.mkdir(parents=True, exist_ok=True)
        layout = write_corpus(row, corpus)
        if not layout:  # a few records come with no context at all: nothing to run, nothing cited
            return score_run(row, layout, where, "no_context")
        result = harness.run(row["question"].strip(), corpus=corpus, runs_dir=where / "runs", yes=True)
        return score_run(row, layout, result.run_dir, result.status) | {"run_dir": str(result.run_dir)}


def mean(values) -> float | None:
    values = [float(v) for v in values if v is not None]
    return sum(values) / len(values) if values else None


def summarize(results: list[dict]) -> dict:
    out = {"n": len(results)}
    for f in FIGURES:
        out[f] = mean(r[f] for r in results)
    out["sp_precision"] = mean(r["sp_p"] for r in results)
    out["sp_recall"] = mean(r["sp_r"] for r in results)
    out["ceiling"] = {f: mean(r["ceiling"][f] for r in results) for f in FIGURES}
    out["statuses"] = dict(Counter(r["status"] for r in results))
    return out


def _fmt(v) -> str:
    return "—" if v is None else f"{v:.2f}"


def print_table(results: list[dict]) -> None:
    groups = [
        ("all", results),
        ("complete", [r for r in results if r["complete"]]),
        ("bridge", [r for r in results if r["type"] == "bridge"]),
        ("comparison", [r for r in results if r["type"] == "comparison"]),
    ]
    sums = [(name, summarize(rs)) for name, rs in groups if rs]
    print("| figure | " + " | ".join(f"{name} (n={s['n']})" for name, s in sums) + " | ceiling, all |")
    print("| --- | " + " | ".join("---:" for _ in sums) + " | ---: |")
    for f in (*FIGURES, "sp_precision", "sp_recall"):
        ceiling = sums[0][1]["ceiling"].get(f)
        print(f"| {f} | " + " | ".join(_fmt(s[f]) for _, s in sums) + f" | {_fmt(ceiling)} |")
    print(f"statuses: {sums[0][1]['statuses']}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--data", type=Path, default=DATA, help="HotpotQA jsonl (default: ../shared/data sample)")
    ap.add_argument(
        "--split", choices=("all", "tune", "untuned"), default="all", help="part of bench/hotpot_split.json"
    )
    ap.add_argument("--start", type=int, default=0, help="first question (0-based)")
    ap.add_argument("--n", type=int, default=40, help="number of questions")
    ap.add_argument("--workers", type=int, default=1, help="processes (each runs questions one at a time)")
    ap.add_argument("--json", type=Path, help="write per-question scores here")
    ap.add_argument("--keep", type=Path, help="keep each question's corpus and run folder under this folder")
    args = ap.parse_args(argv)
    if not args.data.is_file():
        print(f"bench_hotpot: --data: {args.data} does not exist", file=sys.stderr)
        return 2
    if args.start < 0 or args.n < 1:
        print("bench_hotpot: --start must be >= 0 and --n >= 1", file=sys.stderr)
        return 2
    rows = [json.loads(line) for line in args.data.read_text(encoding="utf-8").splitlines() if line.strip()]
    if args.split != "all":
        part = set(json.loads(SPLIT.read_text(encoding="utf-8"))[args.split])
        rows = [row for row in rows if row["_id"] in part]
    rows = rows[args.start : args.start + args.n]
    if not rows:
        print(f"bench_hotpot: --start {args.start} is past the end of {args.data}", file=sys.stderr)
        return 2
    # A private cache, removed at the end: hundreds of tiny corpora would otherwise land in the user's index cache.
    with tempfile.TemporaryDirectory(prefix="hotpot-cache-") as cache:
        os.environ.setdefault("RESEARCH_CACHE_DIR", cache)
        if args.workers > 1:
            with ProcessPoolExecutor(args.workers) as pool:
                results = list(pool.map(run_one, rows, [args.keep] * len(rows), chunksize=4))
        else:
            results = [run_one(row, args.keep) for row in rows]
    print(f"HotpotQA questions {args.start}..{args.start + len(rows) - 1} of {args.data.name} (part: {args.split})")
    print_table(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
