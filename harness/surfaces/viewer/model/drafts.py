"""The drafts' view models: each draft, the diff from the one before, the reviews and their defects."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.contract.layout import draft_number
from harness.contract.statuses import Verdict
from harness.surfaces.viewer.model.fields import integer, literal, obj, text, texts


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
    def read(cls, path: str, number: int | None, review: Any) -> Review:
        r = obj(review)
        defects, draft = r.get("defects"), text(r.get("draft"))
        return cls(
            path=path,
            number=number,
            draft=draft,
            draft_number=draft_number(draft) if draft else None,
            verdict=literal(r.get("verdict"), Verdict),
            reviewed_by=obj(r.get("reviewed_by")),
            defects=[Defect.read(i, d) for i, d in enumerate(defects) if isinstance(d, dict)]
            if isinstance(defects, list)
            else [],
        )
