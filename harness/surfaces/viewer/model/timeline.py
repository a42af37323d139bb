"""The timeline's view model: one trace event."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.contract.statuses import OutcomeStatus, RunStatus
from harness.surfaces.viewer.model.fields import integer, literal, objects, text, texts


@dataclass
class Event:
    """One trace event (trace.jsonl): a delegation, a write, a decision, a status change, ..."""

    seq: int | None
    event: str | None  # its kind
    ts: str | None
    started_at: str | None
    ended_at: str | None
    agent: str | None
    question_id: str | None
    engine: str | None
    model: str | None
    tokens: int | None
    llm_calls: int | None
    stop_reason: OutcomeStatus | None
    retries: int | None
    errors: list[str]
    brief: str | None
    path: str | None
    decision: str | None
    status: RunStatus | None
    outputs: list[str] | None  # the paths a delegation wrote; None when the event lists none
    detail: Any  # free-form JSON, by the event's kind
    budget: Any  # free-form JSON: a delegation's limits, or a budget event's figures
    delegation_id: str | None = None

    @classmethod
    def read(cls, e: dict[str, Any]) -> Event:
        outputs = e.get("outputs")
        return cls(
            seq=integer(e.get("seq")),
            event=text(e.get("event")),
            ts=text(e.get("ts")),
            started_at=text(e.get("started_at")),
            ended_at=text(e.get("ended_at")),
            agent=text(e.get("agent")),
            question_id=text(e.get("question_id")),
            engine=text(e.get("engine")),
            model=text(e.get("model")),
            tokens=integer(e.get("tokens")),
            llm_calls=integer(e.get("llm_calls")),
            retries=integer(e.get("retries")),
            brief=text(e.get("brief")),
            path=text(e.get("path")),
            decision=text(e.get("decision")),
            stop_reason=literal(e.get("stop_reason"), OutcomeStatus),
            status=literal(e.get("status"), RunStatus),
            errors=texts(e.get("errors")),
            outputs=[text(o.get("path")) or "" for o in objects(outputs)] if outputs else None,
            detail=e.get("detail"),
            budget=e.get("budget"),
            delegation_id=text(e.get("delegation_id")),
        )
