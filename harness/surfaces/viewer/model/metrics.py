"""The figures' view models: the budget, metrics.json's ratios and cost per role, the answer check, the artifact index."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.contract.statuses import BUDGET_DIMENSIONS, AnswerVerdict, BudgetDimension
from harness.surfaces.viewer.model.fields import literal, number, obj, objects, text


@dataclass
class BudgetLine:
    """One budget dimension the run limits or has spent on."""

    dimension: BudgetDimension
    spent: int | float | None
    limit: int | float | None  # None: no limit

    @classmethod
    def read_all(cls, budget: dict[str, Any]) -> list[BudgetLine]:
        """The dimensions of run.json's budget (as the summary carries it), in their fixed order."""
        spent, limits = obj(budget.get("spent")), obj(budget.get("limits"))
        return [
            cls(k, number(spent.get(k, 0)), number(limits.get(k)))
            for k in BUDGET_DIMENSIONS
            if k in spent or k in limits
        ]


@dataclass
class Ratio:
    """One quality ratio of metrics.json."""

    name: str
    value: int | float | None
    numerator: int | float | None
    denominator: int | float | None


@dataclass
class RoleCost:
    """What one role's delegations cost (metrics.json `roles`); a figure it does not list is None."""

    role: str
    delegations: int | float | None
    llm_calls: int | float | None
    tokens: int | float | None
    cached_tokens: int | float | None
    wall_seconds: int | float | None
    usd: int | float | None


@dataclass
class Metrics:
    """metrics.json: its ratios and its cost per role."""

    ratios: list[Ratio]
    roles: list[RoleCost]

    @classmethod
    def read(cls, metrics: dict[str, Any]) -> Metrics:
        ratios = obj(metrics.get("ratios"))
        roles = obj(metrics.get("roles"))
        return cls(
            ratios=[
                Ratio(name, number(r.get("value")), number(r.get("numerator")), number(r.get("denominator")))
                for name, r in ratios.items()
                if isinstance(r, dict)
            ],
            roles=[
                RoleCost(
                    role=role,
                    delegations=number(v.get("delegations")),
                    llm_calls=number(v.get("llm_calls")),
                    tokens=number(v.get("tokens")),
                    cached_tokens=number(v.get("cached_tokens")),
                    wall_seconds=number(v.get("wall_seconds")),
                    usd=number(v.get("usd")),
                )
                for role, v in roles.items()
                if isinstance(v, dict)
            ],
        )


@dataclass
class Answer:
    """The answer check's verdict on one research question, with a model Reviewer's beside it."""

    question_id: str | None
    question: str | None
    verdict: AnswerVerdict | None
    reason: str | None
    reviewer_verdict: AnswerVerdict | None

    @classmethod
    def read_all(cls, answers: Any) -> list[Answer]:
        """The summary's `answers` (None before metrics.json)."""
        return [
            cls(
                question_id=text(a.get("question_id")),
                question=text(a.get("question")),
                verdict=literal(a.get("verdict"), AnswerVerdict),
                reason=text(a.get("reason")),
                reviewer_verdict=literal(obj(a.get("reviewer")).get("verdict"), AnswerVerdict),
            )
            for a in objects(obj(answers).get("questions"))
        ]


@dataclass
class Artifact:
    """One file of run.json's artifact index: who wrote it, its size and sha256."""

    path: str
    writer: str | None
    size: int | float | None
    sha256: str | None
    written_at: str | None

    @classmethod
    def read(cls, a: dict[str, Any]) -> Artifact:
        return cls(
            a["path"], text(a.get("writer")), number(a.get("size")), text(a.get("sha256")), text(a.get("written_at"))
        )
