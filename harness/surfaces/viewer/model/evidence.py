"""The evidence's view models: sources, evidence cards and claims."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.contract.cards import Confidence
from harness.contract.claims import ClaimStatus
from harness.surfaces.viewer.model.fields import integer, literal, obj, objects, text, texts


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
    start: int | None = None  # the span the card records, in the snapshot's characters
    end: int | None = None
    readable: bool = True  # False: the file is no JSON object

    @classmethod
    def read(cls, card_id: str, card: Any, highlight: dict[str, int] | None) -> Card:
        c, span = obj(card), obj(obj(card).get("span"))
        return cls(
            id=card_id,
            question_id=text(c.get("question_id")),
            source_id=text(c.get("source_id")),
            confidence=literal(c.get("confidence"), Confidence),
            quote=text(c.get("quote")),
            evidence_summary=text(c.get("evidence_summary")),
            limitations=texts(c.get("limitations")),
            highlight=highlight,
            start=integer(span.get("start")),
            end=integer(span.get("end")),
            readable=isinstance(card, dict),
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
