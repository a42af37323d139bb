"""The answer check beside the reports it judges, for reading and scoring by hand (issue 38, item 5).

For each run it prints, per research question, the answer check's verdict and reason
(`harness/evidence/answers.py`, recomputed on the run's report draft, so a run made before the
check existed is judged by the same rule) and the report's Summary, with a blank `score:` line
for the reader to fill in (1: does not answer ... 5: answers fully). With a question set, it
first runs each question offline; `key_phrases` (when the set has them) are shown, and whether
one is in the report body, as a hint for the reader, never as the score.

Usage:
  .venv/bin/python bench/bench_answers.py RUN_DIR [RUN_DIR ...] [--json]
  .venv/bin/python bench/bench_answers.py --questions SET.json --corpus python-docs|DIR
      [--split test|tune|all] [--limit N] [--runs-dir DIR] [--json]
  .venv/bin/python bench/bench_answers.py RUN_DIR [RUN_DIR ...] --scores SCORES.json [--words-only]

With --scores (a reader's scores, written before any verdict was seen: {"scores": {question: 1-5}}), it prints
instead each report's score beside its report-level verdict (`answered` when every research question of its plan
is, `not_answered` when none is, `partly` otherwise), the scores x verdicts table and the agreement: a report
scored 1-2 agrees when it is not `answered`, one scored 4-5 when it is; 3s are not judged. The verdicts are the answer check's (word rules, then the judge of meaning,
`evidence/answer_meaning.py`); --words-only gives the word rules' alone, for a before/after.

A question set is a JSON file {"questions": [{"question": ..., "key_phrases": [...], "split": ...}]}
(the format of bench/pythondocs_questions_v4.json). Prints answer coverage over all runs at the end.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from harness.contract.layout import FINAL_REPORT, METRICS
from harness.contract.statuses import ANSWER_VERDICTS, ANSWERED, NOT_ANSWERED, PARTLY
from harness.engines import answer_encoder
from harness.evidence.answer_meaning import install_similarity
from harness.evidence.answers import answer_records
from harness.workspace.reader import RunReader


def _report_draft(reader: RunReader) -> str | None:
    """The draft the run's figures are on (metrics.json's `report`), else its last draft."""
    metrics = reader.read_json(METRICS) or {}
    return metrics.get("report") or (reader.drafts() or [None])[-1]


def summary_of(text: str) -> str:
    """The report's Summary section, without citation links."""
    m = re.search(r"^## Summary\s*\n(.*?)(?=^## |\n---\n|\Z)", text, re.S | re.M)
    body = m.group(1) if m else ""
    body = re.sub(r"\s*\(\[C\d+[^)]*\)\)", "", body)  # rendered citations
    body = re.sub(r"\s*\[@[^\]]+\]", "", body)  # draft citations
    return " ".join(body.split())


def judge_run(run_dir: Path, key_phrases: list[str] | None = None) -> dict:
    reader = RunReader(run_dir, cache=True)
    run = reader.run()
    draft = _report_draft(reader)
    report = reader.read_text(FINAL_REPORT) or (reader.read_text(draft) if draft else "") or ""
    body = report.split("\n---\n", 1)[0]
    out = {
        "run": str(run_dir),
        "question": run.get("question"),
        "status": run.get("status"),
        "draft": draft,
        "answers": answer_records(reader, draft) if draft else [],
        "summary": summary_of(body),
    }
    if key_phrases:
        norm = " ".join(body.split()).lower()
        out["key_phrase_in_report"] = any(" ".join(k.split()).lower() in norm for k in key_phrases)
        out["key_phrases"] = key_phrases
    return out


def run_questions(path: Path, corpus: str, split: str, limit: int | None, runs_dir: Path) -> list[tuple[Path, list]]:
    from harness.orchestrator.config import build_config
    from harness.orchestrator.lifecycle import start_run

    items = json.loads(path.read_text())["questions"]
    items = [q for q in items if split == "all" or q.get("split", "test") == split][:limit]
    done = []
    for i, item in enumerate(items, 1):
        print(f"[{i}/{len(items)}] {item['question']}", file=sys.stderr)
        result = start_run(build_config(item["question"], corpus=corpus, runs_dir=str(runs_dir), yes=True))
        done.append((result.run_dir, item.get("key_phrases") or []))
    return done


def report_verdict(answers: list[dict]) -> str:
    """A report's verdict: `answered` when every research question of its plan is, `not_answered` when none is."""
    verdicts = [a["verdict"] for a in answers]
    if verdicts and all(v == ANSWERED for v in verdicts):
        return ANSWERED
    return PARTLY if any(v != NOT_ANSWERED for v in verdicts) else NOT_ANSWERED


def agrees(score: int, verdict: str) -> bool | None:
    """Whether a reader's score and the report's verdict agree; None for a 3 (not judged)."""
    if score in (1, 2):
        return verdict != ANSWERED
    if score in (4, 5):
        return verdict == ANSWERED
    return None


def agreement(judged: list[dict], scores: dict[str, int]) -> list[str]:
    """Each scored report's line, the scores x verdicts table and the agreement, as printed lines."""
    lines, table = [], {(s, v): 0 for s in range(1, 6) for v in ANSWER_VERDICTS}
    agree = counted = 0
    for j in judged:
        score = scores.get(j["question"])
        if score is None:
            lines.append(f"  (no score) {j['question']}")
            continue
        verdict = report_verdict(j["answers"])
        table[score, verdict] += 1
        ok = agrees(score, verdict)
        counted += ok is not None
        agree += bool(ok)
        mark = "  " if ok is None else ("ok" if ok else "XX")
        lines.append(f"  {mark} {score} {verdict:<12} {j['question']}")
    lines += ["", "| score | " + " | ".join(ANSWER_VERDICTS) + " |", "| --- |" + " ---: |" * len(ANSWER_VERDICTS)]
    lines += [f"| {s} | " + " | ".join(str(table[s, v]) for v in ANSWER_VERDICTS) + " |" for s in range(1, 6)]
    share = f"{agree / counted:.2f}" if counted else "n/a"
    lines.append(f"agreement: {agree}/{counted} = {share} (judged: scores 1-2 and 4-5)")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="*", type=Path, help="run folders to judge")
    ap.add_argument("--questions", type=Path, help="a question set to run first (offline)")
    ap.add_argument("--corpus", default="python-docs")
    ap.add_argument("--split", default="test", choices=("test", "tune", "all"))
    ap.add_argument("--limit", type=int)
    ap.add_argument("--runs-dir", type=Path, default=Path("/tmp/bench-answers-runs"))
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--scores", type=Path, help="a reader's scores: print the agreement with the verdicts")
    ap.add_argument("--words-only", action="store_true", help="the word rules alone, without the judge of meaning")
    args = ap.parse_args()
    install_similarity(None) if args.words_only else answer_encoder.install()
    todo = [(r, []) for r in args.runs]
    if args.questions:
        todo += run_questions(args.questions, args.corpus, args.split, args.limit, args.runs_dir)
    if not todo:
        ap.error("give run folders, or --questions with --corpus")
    judged = [judge_run(r, k) for r, k in todo]
    if args.scores:
        print("\n".join(agreement(judged, json.loads(args.scores.read_text())["scores"])))
        return
    if args.json:
        print(json.dumps(judged, indent=2, ensure_ascii=False))
        return
    counts = dict.fromkeys(ANSWER_VERDICTS, 0)
    for n, j in enumerate(judged, 1):
        print(f"\n=== {n}. {j['question']}  [{j['status']}]  {j['run']}")
        for a in j["answers"]:
            counts[a["verdict"]] += 1
            reviewer = f"  (model reviewer: {a['reviewer']['verdict']})" if a.get("reviewer") else ""
            print(f"  {a['question_id']} {a['verdict']}: {a['reason']}{reviewer}")
        if "key_phrase_in_report" in j:
            print(
                f"  key phrase in report: {'yes' if j['key_phrase_in_report'] else 'no'}  ({' | '.join(j['key_phrases'])})"
            )
        print(f"  Summary: {j['summary'] or '(none)'}")
        print("  score (1-5): ")
    total = sum(counts.values())
    share = f"{counts[ANSWERED] / total:.0%}" if total else "n/a"
    print(f"\n{len(judged)} run(s), {total} research question(s): " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    print(f"answer coverage: {counts[ANSWERED]}/{total} = {share}")


if __name__ == "__main__":
    main()
