"""The answer check's judge of meaning, its threshold cross-validated by set (issue 38, item 5).

For each scored report it computes the word rules' verdict on each research question (`answer_rule.judge`) and, for
each `answered` one, how close its closest answering quote is to the question (`answer_meaning.closest`). A
threshold T lowers to `partly` those below T. It fits T on the --fit sets (the middle of the widest run of 0.01
steps with the best agreement there) and prints the agreement, word rules alone -> word rules + judge at T, on the
fit sets and on the others. Run it with the fit sets swapped for the other direction.

Usage:
  .venv/bin/python bench/bench_answer_meaning.py --set NAME SCORES.json RUNS_DIR [--set ...] --fit NAME[,NAME...]

RUNS_DIR holds run folders at any depth (each with a plan.json). Scores as bench_answers.py reads them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bench_answers import _report_draft, agrees, report_verdict

from harness.contract.statuses import ANSWERED, PARTLY
from harness.engines.answer_encoder import similarity
from harness.evidence.answer_meaning import closest, install_similarity
from harness.evidence.answer_rule import ask_of, judge
from harness.evidence.answers import cited_claims, claim_findings
from harness.workspace.reader import RunReader

GRID = [round(x / 100, 2) for x in range(30, 96)]


def report_rows(run_dir: Path) -> tuple[str, list[tuple[str, float]]]:
    """The run's question, and per research question: the word rules' verdict and its closest answering quote."""
    reader = RunReader(run_dir, cache=True)
    draft = _report_draft(reader)
    text = (reader.read_text(draft) if draft else "") or ""
    plan, claims = reader.plan() or {}, reader.claims() or {}
    cited = cited_claims(reader, text)
    rows = []
    for q in plan.get("questions", []):
        if q.get("kind") != "research":
            continue
        mine = [k for k in cited if claims[k]["question_id"] == q["id"]]
        findings = [f for k in mine for f in claim_findings(reader, claims[k])]
        ask = ask_of(q, plan.get("criteria"))
        verdict = judge(ask, findings).verdict
        rows.append((verdict, closest(ask, findings, similarity) if verdict == ANSWERED else 1.0))
    return reader.run().get("question", ""), rows


def agreement(reports: list[tuple[int, list[tuple[str, float]]]], threshold: float) -> tuple[int, int]:
    """(agreeing, judged) over `reports` (score, rows) with the judge at `threshold` (-inf: the word rules alone)."""
    agree = judged = 0
    for score, rows in reports:
        verdicts = [PARTLY if v == ANSWERED and c < threshold else v for v, c in rows]
        ok = agrees(score, report_verdict([{"verdict": v} for v in verdicts]))
        judged += ok is not None
        agree += bool(ok)
    return agree, judged


def fit(reports: list[tuple[int, list[tuple[str, float]]]]) -> tuple[float, tuple[float, float]]:
    """The middle of the widest run of grid thresholds with the best agreement on `reports`, and that run's ends."""
    scored = {t: agreement(reports, t)[0] for t in GRID}
    best = max(scored.values())
    runs: list[list[float]] = []
    for t in GRID:
        if scored[t] == best and runs and round(t - runs[-1][-1], 2) == 0.01:
            runs[-1].append(t)
        elif scored[t] == best:
            runs.append([t])
    widest = max(runs, key=len)
    return widest[len(widest) // 2], (widest[0], widest[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--set", nargs=3, action="append", metavar=("NAME", "SCORES", "RUNS_DIR"), required=True)
    ap.add_argument("--fit", required=True, help="the sets to fit the threshold on, comma-separated")
    args = ap.parse_args()
    install_similarity(None)  # the rows are the word rules'; the threshold is applied here
    by_set: dict[str, list] = {}
    for name, scores_path, runs_dir in args.set:
        scores = json.loads(Path(scores_path).read_text())["scores"]
        reports = []
        for plan in sorted(Path(runs_dir).rglob("plan.json")):
            question, rows = report_rows(plan.parent)
            if question in scores:
                reports.append((scores[question], rows))
        by_set[name] = reports
    fit_names = args.fit.split(",")
    if unknown := [n for n in fit_names if n not in by_set]:
        sys.exit(f"--fit: no --set named {', '.join(unknown)}")
    fitted = [r for n in fit_names for r in by_set[n]]
    others = [r for n, rs in by_set.items() if n not in fit_names for r in rs]
    threshold, ends = fit(fitted)
    print(f"threshold {threshold} (best on {args.fit}: {ends[0]}-{ends[1]})")
    for label, reports in [(f"fit ({args.fit})", fitted), ("measured (the others)", others)] + list(by_set.items()):
        (a0, n0), (a1, n1) = agreement(reports, float("-inf")), agreement(reports, threshold)
        print(f"  {label}: words {a0}/{n0} -> words + judge {a1}/{n1}" + (f" = {a1 / n1:.2f}" if n1 else ""))


if __name__ == "__main__":
    main()
