"""A run at a glance: the one summary `research inspect` prints and the viewer shows.

Read-only and tolerant: a half-finished or hand-edited workspace still summarizes.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from harness.contract.claims import CLAIM_STATUSES
from harness.contract.layout import CLAIMS, FINAL_REPORT, METRICS
from harness.workspace.reader import RunReader


def answers_of(reader: RunReader) -> dict[str, Any] | None:
    """The answer check's verdicts as metrics.json holds them (`evidence/answers.py`): answer coverage and, per
    research question, its verdict and reason, with a model Reviewer's judgement beside it; None before metrics."""
    metrics = reader.read_json(METRICS)
    if not isinstance(metrics, dict) or not isinstance(metrics.get("answers"), list):
        return None
    ratio = (metrics.get("ratios") or {}).get("answer_coverage") or {}
    return {
        "coverage": ratio.get("value"),
        "answered": ratio.get("numerator"),
        "questions_total": ratio.get("denominator"),
        "questions": [
            {k: a.get(k) for k in ("question_id", "question", "verdict", "reason", "reviewer")}
            for a in metrics["answers"]
            if isinstance(a, dict)
        ],
    }


def summarize(root: Path | str | RunReader) -> dict[str, Any]:
    reader = root if isinstance(root, RunReader) else RunReader(root, cache=True)
    run = reader.run()
    plan = reader.plan()
    branches = run.get("branches") or {}
    questions = []
    for q in reader.questions():
        questions.append(
            {
                "id": q.get("id"),
                "kind": q.get("kind"),
                "critical": q.get("critical"),
                "text": q.get("text"),
                "tag": q.get("tag"),
                "branch": (branches.get(q.get("id")) or {}).get("status"),
            }
        )
    kinds: Counter = Counter()
    flagged = flagged_sentences = 0
    sources = reader.source_ids()
    for sid in sources:
        rec = reader.source(sid) or {}
        kinds[rec.get("kind", "unknown")] += 1
        flags = rec.get("flags") if isinstance(rec.get("flags"), list) else []
        flagged += bool(flags)
        flagged_sentences += len(flags)
    doc = reader.read_json(CLAIMS)
    listed = doc.get("claims") if isinstance(doc, dict) else None
    claim_counts: Counter = Counter(c.get("status", "unknown") for c in listed or [] if isinstance(c, dict))
    reviews = []
    for rel in reader.reviews():
        rev = reader.read_json(rel) or {}
        defects = rev.get("defects") or []
        reviews.append(
            {
                "path": rel,
                "draft": rev.get("draft"),
                "verdict": rev.get("verdict"),
                "errors": sum(1 for d in defects if d.get("severity") == "error"),
                "warnings": sum(1 for d in defects if d.get("severity") == "warning"),
                "codes": dict(Counter(d.get("code") for d in defects)),
            }
        )
    budget = run.get("budget") or {}
    return {
        "run_id": run.get("run_id"),
        "status": run.get("status"),
        "status_reason": run.get("status_reason"),
        "question": run.get("question"),
        "plan": {
            "revision": plan.get("revision") if plan else None,
            "approved": bool(plan and (plan.get("approval") or {}).get("decision") == "approved"),
            "questions": questions,
        },
        "sources": {
            "total": len(sources),
            "primary": kinds.get("primary", 0),
            "secondary": kinds.get("secondary", 0),
            "flagged": flagged,
            "flagged_sentences": flagged_sentences,
            "duplicates": (run.get("stats") or {}).get("duplicate_sources", 0),
        },
        "cards": len(reader.card_ids()),
        "claims": {s: claim_counts.get(s, 0) for s in CLAIM_STATUSES} | {"total": sum(claim_counts.values())},
        "drafts": reader.drafts(),
        "reviews": reviews,
        "budget": {"limits": budget.get("limits", {}), "spent": budget.get("spent", {})},
        "answers": answers_of(reader),
        # workspace-relative, like every path here: the summary travels (viewer) without local paths
        "final_report": FINAL_REPORT if reader.exists(FINAL_REPORT) else None,
    }
