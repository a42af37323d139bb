"""The viewer's view models: one typed record per thing the page shows, read from a workspace by `collect()`.

A run folder can be half-written or hand-edited, and the viewer shows it anyway, so every record
is parsed defensively (`fields`): a field that is missing or of the wrong type reads as None (or
an empty list), and a record that is not a JSON object is skipped where the page always skipped
it, or reads as all None where the page showed it anyway (a card, a source record, a review).
Free-form JSON (a trace event's detail) is kept as read. Statuses are the `Literal` types of
`harness.contract` (a value outside the set reads as None), never string sets of their own.

One module per part of the run: `plan`, `evidence` (sources, cards, claims), `drafts` (drafts,
diffs, reviews), `timeline` (trace events), `metrics` (budget, ratios, cost per role, answers,
artifact index), `header` (the run's facts and lineage); `RunView` here holds them all.

`collect()` builds these records straight from the run folder (no untyped dict underneath);
`as_json()` is the typed view serialized, what the page embeds for `viewer.js` and what the app's
API returns (`GET /api/runs/{id}`, its `view`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from harness.surfaces.viewer.model.drafts import Defect, Diff, Draft, Review
from harness.surfaces.viewer.model.evidence import Card, Claim, Flag, Source, SourceRecord
from harness.surfaces.viewer.model.header import Lineage, RunFacts, RunLink, SourceCounts
from harness.surfaces.viewer.model.metrics import Answer, Artifact, BudgetLine, Metrics, Ratio, RoleCost
from harness.surfaces.viewer.model.plan import Approval, Change, Decision, Plan, Question, Refinement
from harness.surfaces.viewer.model.timeline import Event

__all__ = [
    "Answer",
    "Approval",
    "Artifact",
    "BudgetLine",
    "Card",
    "Change",
    "Claim",
    "Decision",
    "Defect",
    "Diff",
    "Draft",
    "Event",
    "Flag",
    "Lineage",
    "Metrics",
    "Plan",
    "Question",
    "Ratio",
    "Refinement",
    "Review",
    "RoleCost",
    "RunFacts",
    "RunLink",
    "RunView",
    "Source",
    "SourceCounts",
    "SourceRecord",
]


# ---- the view of a run ----------------------------------------------------------------------------


@dataclass
class RunView:
    """Everything the viewer page shows of one run."""

    facts: RunFacts
    lineage: Lineage
    final_report: str | None  # final-report.md's text
    plan: Plan | None
    decisions: list[Decision]
    sources: list[Source]  # by id
    cards: list[Card]  # by id
    claims: list[Claim]  # in claims.json's order
    drafts: list[Draft]  # in numeric order
    diffs: list[Diff]  # each draft after the first from the one before
    reviews: list[Review]  # in numeric order
    timeline: list[Event]  # the trace, without the viewer's own writes
    budget: list[BudgetLine]
    metrics: Metrics | None  # None before metrics.json
    answers: list[Answer]
    cost: dict[str, Any] | None  # the summary's cost so far (`summary.run_costs`), for `summary.cost_text`
    artifacts: list[Artifact]  # run.json's index, without the viewer's own file
    app_link: str | None = None

    def question_ids(self) -> list[str]:
        """The plan's question ids (the deliverable's too), shortest first."""
        ids = {q.id for q in self.plan.questions if q.id is not None} if self.plan else set()
        return sorted(ids, key=lambda q: (len(q), q))

    def claims_by_card(self) -> dict[str, list[Claim]]:
        """card id -> the claims that use it (supporting or contradicting)."""
        out: dict[str, list[Claim]] = {}
        for claim in self.claims:
            for card_id in claim.supporting_cards + claim.contradicting_cards:
                out.setdefault(card_id, []).append(claim)
        return out

    def linked(self, app_link: str | None) -> RunView:
        """This view with a link back to the app serving it."""
        return dataclasses.replace(self, app_link=app_link) if app_link else self

    def as_json(self) -> dict[str, Any]:
        """The typed view as JSON-ready data: what the page embeds for viewer.js and the app's API returns."""
        return {f.name: _json(getattr(self, f.name)) for f in dataclasses.fields(self)}


def _json(value: Any) -> Any:
    if isinstance(value, list):
        return [_json(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    return value
