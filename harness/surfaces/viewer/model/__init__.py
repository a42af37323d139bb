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

`RunView.data` is the JSON-ready dict the page embeds for `viewer.js` (unchanged by the view
models, so the script reads what it always read); `as_json()` is the typed view serialized, for
the app's API.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from harness.surfaces.viewer.model.drafts import Defect, Diff, Draft, Review
from harness.surfaces.viewer.model.evidence import Card, Claim, Flag, Source, SourceRecord
from harness.surfaces.viewer.model.fields import obj, objects, text
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

    data: dict[str, Any] = field(repr=False)  # the JSON-ready dict the page embeds for viewer.js
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

    @classmethod
    def read(cls, data: dict[str, Any], run: dict[str, Any]) -> RunView:
        """The view of `data` (collect()'s dict) and `run` (run.json as read)."""
        plan, summary = data.get("plan"), data["summary"]
        return cls(
            data=data,
            facts=RunFacts.read(summary, data["run"]),
            lineage=Lineage.read(obj(data.get("lineage"))),
            final_report=text(data.get("final_report")),
            plan=Plan.read(plan, obj(run.get("branches"))) if isinstance(plan, dict) else None,
            decisions=[Decision.read(d) for d in objects(run.get("decisions"))],
            sources=[
                Source(sid, SourceRecord.read(e["record"]) if isinstance(e["record"], dict) else None, e["text"])
                for sid, e in data["sources"].items()
            ],
            cards=[Card.read(card_id, entry) for card_id, entry in data["cards"].items()],
            claims=[Claim.read(c) for c in objects(obj(data.get("claims")).get("claims"))],
            drafts=[Draft(d["path"], d["number"], d["text"], d["sha256"]) for d in data["drafts"]],
            diffs=[Diff(d["from"], d["to"], d["lines"], d["added"], d["removed"]) for d in data["diffs"]],
            reviews=[Review.read(r) for r in data["reviews"]],
            timeline=[Event.read(e) for e in data["timeline"]],
            budget=BudgetLine.read_all(summary["budget"]),
            metrics=Metrics.read(metrics) if isinstance(metrics := data.get("metrics"), dict) else None,
            answers=Answer.read_all(summary.get("answers")),
            cost=summary.get("cost") or None,
            artifacts=[Artifact.read(a) for a in data["artifacts"]],
        )

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
        """This view with a link back to the app serving it (embedded for viewer.js too)."""
        if not app_link:
            return self
        return dataclasses.replace(self, data={**self.data, "app_link": app_link}, app_link=app_link)

    def as_json(self) -> dict[str, Any]:
        """The typed view as JSON-ready data (without `data`, the records as read)."""
        return {f.name: _json(getattr(self, f.name)) for f in dataclasses.fields(self) if f.name != "data"}


def _json(value: Any) -> Any:
    if isinstance(value, list):
        return [_json(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    return value
