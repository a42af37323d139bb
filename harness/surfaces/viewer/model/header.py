"""The header's view models: the run's facts as `summarize` counts them (what `research inspect` shows), and its
lineage (the run it follows up, its follow-ups)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.contract.claims import CLAIM_STATUSES, ClaimStatus
from harness.contract.statuses import RunStatus
from harness.surfaces.viewer.model.fields import integer, literal, obj, text


@dataclass
class SourceCounts:
    total: int
    primary: int
    secondary: int
    flagged: int  # sources with a flagged sentence
    flagged_sentences: int
    duplicates: int | None  # search hits that named a source already stored (run.json `stats`)


@dataclass
class RunFacts:
    """What the header and the section titles say of the run."""

    run_id: str | None
    status: RunStatus | None
    status_reason: str | None
    question: str | None
    plan_revision: int | None
    plan_approved: bool
    plan_questions: int
    sources: SourceCounts
    cards: int
    claims: dict[ClaimStatus, int]  # count by claim status
    claims_total: int
    final_report: bool  # final-report.md exists
    engines: list[str]  # the engines the roles run on (run.json `config`)

    @classmethod
    def read(cls, summary: dict[str, Any], run: dict[str, Any]) -> RunFacts:
        """From `summarize`'s dict and run.json (as read)."""
        plan, src, claims = obj(summary.get("plan")), obj(summary.get("sources")), obj(summary.get("claims"))
        return cls(
            run_id=text(summary.get("run_id")),
            status=literal(summary.get("status"), RunStatus),
            status_reason=text(summary.get("status_reason")),
            question=text(summary.get("question")),
            plan_revision=integer(plan.get("revision")),
            plan_approved=bool(plan.get("approved")),
            plan_questions=len(plan.get("questions") or []),
            sources=SourceCounts(
                total=integer(src.get("total")) or 0,
                primary=integer(src.get("primary")) or 0,
                secondary=integer(src.get("secondary")) or 0,
                flagged=integer(src.get("flagged")) or 0,
                flagged_sentences=integer(src.get("flagged_sentences")) or 0,
                duplicates=integer(src.get("duplicates")),
            ),
            cards=integer(summary.get("cards")) or 0,
            claims={k: integer(claims.get(k)) or 0 for k in CLAIM_STATUSES},
            claims_total=integer(claims.get("total")) or 0,
            final_report=bool(summary.get("final_report")),
            engines=sorted(
                {e for e in obj(obj(run.get("config")).get("engines")).values() if isinstance(e, str) and e}
            ),
        )


@dataclass
class RunLink:
    """A sibling run: its id and question."""

    run_id: str
    question: str | None


@dataclass
class Lineage:
    parent: RunLink | None  # the run this one follows up (run.json `parent`)
    children: list[RunLink]  # its follow-ups, found next to it
