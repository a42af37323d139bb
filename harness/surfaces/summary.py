"""A run at a glance: the one summary `research inspect` prints and the viewer shows.

Read-only and tolerant: a half-finished or hand-edited workspace still summarizes.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from harness.contract.claims import CLAIM_STATUSES, STATABLE
from harness.contract.layout import CLAIMS, FINAL_REPORT, METRICS
from harness.contract.statuses import USD
from harness.evidence.metrics import role_costs, run_cost
from harness.workspace.reader import RunReader

PRICE_UNKNOWN = "price unknown"


def dollars(value: float | None) -> str:
    """Dollars as people read them: $0.00 for nothing spent (the offline engine), four places under a cent,
    'price unknown' when a model's price is (never a guess)."""
    if value is None:
        return PRICE_UNKNOWN
    if value == 0:
        return "$0.00"
    return f"${value:.4f}" if value < 0.01 else f"${value:.2f}"


def budget_amount(dim: str, value: float | None) -> str:
    """One budget figure: dollars as dollars, no limit as ∞."""
    if value is None:
        return "∞"
    return dollars(value) if dim == USD else str(value)


def _tokens(n: float) -> str:
    return f"{n / 1000:.1f}k" if n >= 1000 else str(int(n))


def cost_text(cost: dict[str, Any]) -> str:
    """The run's cost in one line: dollars in all and per verified claim, and tokens (cached shown apart)."""
    usd = dollars(cost["usd"])
    if cost["usd"] is None and cost.get("price_unknown"):
        usd = f"{PRICE_UNKNOWN} ({', '.join(cost['price_unknown'])})"
    tokens = (
        _tokens(cost["tokens"])
        + " tokens"
        + (f", {_tokens(cost['cached_tokens'])} cached" if cost.get("cached_tokens") else "")
    )
    n = cost["verified_claims"]
    if not n:
        return f"cost: {usd}; {tokens}; no verified claim"
    each = dollars(cost["usd_per_verified_claim"]) if cost["usd"] is not None else PRICE_UNKNOWN
    return f"cost: {usd}; {tokens}; {n} verified claim(s), {each} and {_tokens(cost['tokens_per_verified_claim'])} tokens each"


def run_costs(reader: RunReader) -> dict[str, Any]:
    """The run's cost so far (`metrics.run_cost` with its `roles`), from its trace and claim table: also for a
    run that is paused or still going."""
    roles = role_costs([e for e in reader.events() if e.get("event") == "delegation"])
    doc = reader.read_json(CLAIMS)
    listed = doc.get("claims") if isinstance(doc, dict) else None
    verified = sum(1 for c in listed or [] if isinstance(c, dict) and c.get("status") in STATABLE)
    return {**run_cost(roles, verified), "roles": roles}


def cost_line(run_dir: Path | str) -> str | None:
    """The run's end line about cost (None when the folder cannot be read)."""
    try:
        return cost_text(run_costs(RunReader(run_dir, cache=True)))
    except (OSError, ValueError):
        return None


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
        flags = found if isinstance(found := rec.get("flags"), list) else []
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
        "cost": run_costs(reader),
        "answers": answers_of(reader),
        # workspace-relative, like every path here: the summary travels (viewer) without local paths
        "final_report": FINAL_REPORT if reader.exists(FINAL_REPORT) else None,
    }
