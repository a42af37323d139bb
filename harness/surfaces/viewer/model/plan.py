"""The plan's view models: its questions, approval and refinement, and the run's decisions at its gates."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.contract.statuses import BranchStatus, QuestionKind
from harness.surfaces.viewer.model.fields import integer, literal, obj, objects, text, texts


@dataclass
class Question:
    """One question of plan.json, with how its research branch ended (run.json `branches`)."""

    id: str | None
    kind: QuestionKind | None
    text: str | None
    tag: str | None
    critical: bool
    criteria: list[str]
    allowed_sources: list[str]
    search_terms: list[str]
    branch: BranchStatus | None

    @classmethod
    def read(cls, q: dict[str, Any], branches: dict[str, Any]) -> Question:
        qid = text(q.get("id"))
        return cls(
            id=qid,
            kind=literal(q.get("kind"), QuestionKind),
            text=text(q.get("text")),
            tag=text(q.get("tag")),
            critical=bool(q.get("critical")),
            criteria=texts(q.get("criteria")),
            allowed_sources=texts(q.get("allowed_sources")),
            search_terms=texts(q.get("search_terms")),
            branch=literal(obj(branches.get(qid)).get("status"), BranchStatus) if qid else None,
        )


@dataclass
class Approval:
    decision: str | None
    by: str | None
    at: str | None
    edited: bool
    plan_sha256: str | None
    feedback: str | None

    @classmethod
    def read(cls, a: dict[str, Any]) -> Approval:
        return cls(
            decision=text(a.get("decision")),
            by=text(a.get("by")),
            at=text(a.get("at")),
            edited=bool(a.get("edited")),
            plan_sha256=text(a.get("plan_sha256")),
            feedback=text(a.get("feedback")),
        )


@dataclass
class Change:
    """One question the refinement changed."""

    question_id: str | None
    tag: str | None
    note: str | None


@dataclass
class Refinement:
    feedback: str | None
    changes: list[Change]


@dataclass
class Plan:
    revision: int | None
    deliverable: str | None
    in_scope: list[str]
    out_of_scope: list[str]
    criteria: list[str]
    stop_conditions: list[str]
    approval: Approval | None
    refinement: Refinement | None
    questions: list[Question]  # every question that is a JSON object, in the plan's order

    @classmethod
    def read(cls, plan: dict[str, Any], branches: dict[str, Any]) -> Plan:
        scope, refinement = obj(plan.get("scope")), plan.get("refinement")
        approval = plan.get("approval")
        return cls(
            revision=integer(plan.get("revision")),
            deliverable=text(plan.get("deliverable")),
            in_scope=texts(scope.get("in_scope")),
            out_of_scope=texts(scope.get("out_of_scope")),
            criteria=texts(plan.get("criteria")),
            stop_conditions=texts(plan.get("stop_conditions")),
            approval=Approval.read(approval) if isinstance(approval, dict) else None,
            refinement=Refinement(
                feedback=text(refinement.get("feedback")),
                changes=[
                    Change(text(c.get("question_id")), text(c.get("tag")), text(c.get("note")))
                    for c in objects(refinement.get("changes"))
                ],
            )
            if isinstance(refinement, dict)
            else None,
            questions=[Question.read(q, branches) for q in objects(plan.get("questions"))],
        )


@dataclass
class Decision:
    """One decision at a gate (run.json `decisions`), bound to the hash of what was decided."""

    gate: str | None
    decision: str | None
    by: str | None
    at: str | None
    feedback: str | None
    sha256: str | None

    @classmethod
    def read(cls, d: dict[str, Any]) -> Decision:
        return cls(*(text(d.get(k)) for k in ("gate", "decision", "by", "at", "feedback", "sha256")))
