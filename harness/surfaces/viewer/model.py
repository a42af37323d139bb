"""The viewer's view models: one typed record per thing the page shows, read from a workspace by `collect()`.

A run folder can be half-written or hand-edited, and the viewer shows it anyway, so every record
is parsed defensively: a field that is missing or of the wrong type reads as None (or an empty
list), a record that is not a JSON object is skipped where the page always skipped it, and each
record keeps `raw`, the JSON object as read, for what the page does not type (a trace event's
free-form detail). Statuses are the `Literal` types of `harness.contract` (a value outside the
set reads as None), never string sets of their own.

`RunView.data` is the JSON-ready dict the page embeds for `viewer.js` (unchanged by the view
models, so the script reads what it always read); `as_json()` is the typed view serialized, for
the app's API.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, cast, get_args

from harness.contract.cards import Confidence
from harness.contract.claims import ClaimStatus
from harness.contract.layout import draft_number
from harness.contract.statuses import BranchStatus, OutcomeStatus, QuestionKind, RunStatus, Verdict

# ---- lenient readers: a value of the wrong type reads as None ----------------------------------


def obj(value: Any) -> dict[str, Any]:
    """`value` if it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def number(value: Any) -> int | float | None:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def integer(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def texts(value: Any) -> list[str]:
    """The strings of a JSON list (anything else in it, or a non-list, is dropped)."""
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def literal(value: Any, kind: Any) -> Any:
    """`value` if it is one of the `Literal` type `kind`'s values, else None."""
    return value if isinstance(value, str) and value in get_args(kind) else None


def objects(value: Any) -> list[dict[str, Any]]:
    """The JSON objects of a JSON list."""
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


# ---- the plan -----------------------------------------------------------------------------------


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
    raw: dict[str, Any] = field(repr=False)

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
            raw=q,
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
    raw: dict[str, Any] = field(repr=False)

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
            raw=plan,
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


# ---- evidence: sources, cards, claims ---------------------------------------------------------


@dataclass
class Flag:
    """One flagged sentence of a source (an instruction-like line, ...)."""

    reason: str | None
    code: str | None
    offset: int | None
    end: int | None
    excerpt: str | None


@dataclass
class SourceRecord:
    """sources/src-N.json: what was fetched, from where, and how it was found."""

    kind: str | None
    title: str | None
    url: str | None
    corpus: str | None
    path: str | None
    size: int | None
    sha256: str | None
    flagged: bool  # the record lists flags (even ones too malformed to show)
    flags: list[Flag]
    origin_tool: str | None
    origin_question_id: str | None
    origin_query: str | None

    @classmethod
    def read(cls, rec: dict[str, Any]) -> SourceRecord:
        origin = obj(rec.get("origin"))
        return cls(
            kind=text(rec.get("kind")),
            title=text(rec.get("title")),
            url=text(rec.get("url")),
            corpus=text(rec.get("corpus")),
            path=text(rec.get("path")),
            size=integer(rec.get("size")),
            sha256=text(rec.get("sha256")),
            flagged=bool(rec.get("flags")),
            flags=[
                Flag(
                    text(f.get("reason")),
                    text(f.get("code")),
                    integer(f.get("offset")),
                    integer(f.get("end")),
                    text(f.get("excerpt")),
                )
                for f in objects(rec.get("flags"))
            ],
            origin_tool=text(origin.get("tool")),
            origin_question_id=text(origin.get("question_id")),
            origin_query=text(origin.get("query")),
        )


@dataclass
class Source:
    """One source: its record (None when missing or not a JSON object) and its snapshot's text."""

    id: str
    record: SourceRecord | None
    text: str | None


@dataclass
class Card:
    """source-cards/c-N.json: a quote from a source, for a question (all None when the file is no JSON object)."""

    id: str
    question_id: str | None
    source_id: str | None
    confidence: Confidence | None
    quote: str | None
    evidence_summary: str | None
    limitations: list[str]
    highlight: dict[str, int] | None  # the quote's span in the snapshot, in UTF-16 offsets (for viewer.js)

    @classmethod
    def read(cls, card_id: str, entry: dict[str, Any]) -> Card:
        card = obj(entry.get("card"))
        return cls(
            id=card_id,
            question_id=text(card.get("question_id")),
            source_id=text(card.get("source_id")),
            confidence=literal(card.get("confidence"), Confidence),
            quote=text(card.get("quote")),
            evidence_summary=text(card.get("evidence_summary")),
            limitations=texts(card.get("limitations")),
            highlight=entry.get("highlight"),
        )


@dataclass
class Claim:
    """One claim of claims.json, with the cards that support or contradict it."""

    claim_id: str | None
    status: ClaimStatus | None
    question_id: str | None
    statement: str | None
    supporting_cards: list[str]
    contradicting_cards: list[str]
    limitations: list[str]

    @classmethod
    def read(cls, c: dict[str, Any]) -> Claim:
        return cls(
            claim_id=text(c.get("claim_id")),
            status=literal(c.get("status"), ClaimStatus),
            question_id=text(c.get("question_id")),
            statement=text(c.get("statement")),
            supporting_cards=texts(c.get("supporting_cards")),
            contradicting_cards=texts(c.get("contradicting_cards")),
            limitations=texts(c.get("limitations")),
        )


# ---- drafts and reviews ---------------------------------------------------------------------


@dataclass
class Draft:
    path: str
    number: int | None
    text: str | None
    sha256: str


@dataclass
class Diff:
    """What changed from one draft to the next, as unified diff lines."""

    from_path: str
    to_path: str
    lines: list[str]
    added: int
    removed: int


@dataclass
class Defect:
    """One defect a review found, at its position among the review's defects."""

    index: int
    code: str | None
    severity: str | None
    message: str | None
    route: str | None
    origin: str | None
    line: int | None  # the draft line it points at
    excerpt: str | None
    claims: list[str]
    cards: list[str]
    sources: list[str]
    questions: list[str]

    @classmethod
    def read(cls, index: int, d: dict[str, Any]) -> Defect:
        loc, refs = obj(d.get("location")), obj(d.get("refs"))
        return cls(
            index=index,
            code=text(d.get("code")),
            severity=text(d.get("severity")),
            message=text(d.get("message")),
            route=text(d.get("route")),
            origin=text(d.get("origin")),
            line=integer(loc.get("line")),
            excerpt=text(loc.get("excerpt")),
            claims=texts(refs.get("claims")),
            cards=texts(refs.get("cards")),
            sources=texts(refs.get("sources")),
            questions=texts(refs.get("questions")),
        )


@dataclass
class Review:
    """reviews/review-N.json (its fields None when the file is no JSON object)."""

    path: str
    number: int | None
    draft: str | None
    draft_number: int | None  # N of the draft it reviews (drafts/draft-N.md)
    verdict: Verdict | None
    reviewed_by: dict[str, Any]  # role, engine, model
    defects: list[Defect]

    @classmethod
    def read(cls, entry: dict[str, Any]) -> Review:
        r = obj(entry["review"])
        defects, draft = r.get("defects"), text(r.get("draft"))
        return cls(
            path=entry["path"],
            number=entry["number"],
            draft=draft,
            draft_number=draft_number(draft) if draft else None,
            verdict=literal(r.get("verdict"), Verdict),
            reviewed_by=obj(r.get("reviewed_by")),
            defects=[Defect.read(i, d) for i, d in enumerate(defects) if isinstance(d, dict)]
            if isinstance(defects, list)
            else [],
        )


# ---- the timeline ---------------------------------------------------------------------------------


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
        )


# ---- the view of a run ----------------------------------------------------------------------------


@dataclass
class RunView:
    """Everything the viewer page shows of one run."""

    data: dict[str, Any] = field(repr=False)  # the JSON-ready dict the page embeds for viewer.js
    status: RunStatus | None
    plan: Plan | None
    decisions: list[Decision]
    sources: list[Source]  # by id
    cards: list[Card]  # by id
    claims: list[Claim]  # in claims.json's order
    drafts: list[Draft]  # in numeric order
    diffs: list[Diff]  # each draft after the first from the one before
    reviews: list[Review]  # in numeric order
    timeline: list[Event]  # the trace, without the viewer's own writes
    app_link: str | None = None

    @classmethod
    def read(cls, data: dict[str, Any], run: dict[str, Any]) -> RunView:
        """The view of `data` (collect()'s dict) and `run` (run.json as read)."""
        plan = data.get("plan")
        return cls(
            data=data,
            status=literal(run.get("status"), RunStatus),
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
        """The typed view as JSON-ready data (each record's `raw` left out: `data` holds the records as read)."""
        return cast(dict[str, Any], _without_raw(dataclasses.asdict(self)))


def _without_raw(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_raw(v) for k, v in value.items() if k not in ("raw", "data")}
    if isinstance(value, list):
        return [_without_raw(v) for v in value]
    return value
