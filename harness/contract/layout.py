"""The workspace layout: which paths exist, what format each has, which schema governs it, and how to name them.

One table (`KINDS`), used by writes (to pick the schema), by `validate` (to check every
file) and by `inspect`; a path that matches no kind is not a workspace artifact. Every
artifact path is built by the functions below, never by hand.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class ArtifactKind:
    name: str
    pattern: re.Pattern[str]
    fmt: str  # "json", "text", "markdown", "jsonl", "html"
    schema: str | None  # schema file name under schemas/, for json kinds
    indexed: bool = True  # listed in run.json's artifact index


def _k(name: str, regex: str, fmt: str, schema: str | None = None, indexed: bool = True) -> ArtifactKind:
    return ArtifactKind(name, re.compile(regex), fmt, schema, indexed)


SOURCE_ID = r"src-[0-9a-f]{12}"  # what SourceRegistry names a source: 'src-' and 12 hex digits of its locator's hash

KINDS: tuple[ArtifactKind, ...] = (
    _k("run", r"run\.json", "json", "run.schema.json", indexed=False),
    _k("trace", r"trace\.jsonl", "jsonl", "trace-event.schema.json", indexed=False),
    _k("plan", r"plan\.json", "json", "plan.schema.json"),
    _k("source", rf"sources/{SOURCE_ID}\.json", "json", "source.schema.json"),
    _k("source_text", rf"sources/{SOURCE_ID}\.txt", "text"),
    _k("card", r"source-cards/[a-z0-9][a-z0-9._-]{0,95}\.json", "json", "card.schema.json"),
    _k("claims", r"claims\.json", "json", "claims.schema.json"),
    _k("draft", r"drafts/draft-[1-9][0-9]*\.md", "markdown"),
    _k("review", r"reviews/review-[1-9][0-9]*\.json", "json", "review.schema.json"),
    _k("final_report", r"final-report\.md", "markdown"),
    _k("metrics", r"metrics\.json", "json", "metrics.schema.json"),
    _k("viewer", r"index\.html", "html"),
    _k("readme", r"README\.md", "markdown"),
)

# Folders that belong to the audit trail. Anything else at the top level is ignored
# by `validate` except the harness's private folder, which is never audited.
AUDITED_DIRS = ("sources", "source-cards", "drafts", "reviews")
PRIVATE_DIR = ".harness"
EXPORTS_DIR = "exports"  # `research export`'s default folder: outside the audited set, so validate never reads it
RUN_LOCK = "run.lock"  # in the private folder: held by the one process working on the run

# The single files of a run.
RUN = "run.json"
TRACE = "trace.jsonl"
PLAN = "plan.json"
CLAIMS = "claims.json"
FINAL_REPORT = "final-report.md"
METRICS = "metrics.json"
VIEWER = "index.html"
README = "README.md"

# Globs of the numbered and per-id artifacts.
SOURCE_RECORDS = "sources/*.json"
CARDS = "source-cards/*.json"
DRAFTS = "drafts/draft-*.md"
REVIEWS = "reviews/review-*.json"

_NUMBERED = re.compile(r"(?:drafts/draft|reviews/review)-([1-9][0-9]*)\.(?:md|json)")


def kind_for_path(relpath: str) -> ArtifactKind | None:
    """Return the artifact kind of a workspace-relative POSIX path, or None."""
    for kind in KINDS:
        if kind.pattern.fullmatch(relpath):
            return kind
    return None


def source_record_path(source_id: str) -> str:
    return f"sources/{source_id}.json"


def snapshot_path(source_id: str) -> str:
    """The stored text of a source, which every quote must come from."""
    return f"sources/{source_id}.txt"


def card_path(card_id: str) -> str:
    return f"source-cards/{card_id}.json"


def card_id_prefix(question_id: str, source_id: str) -> str:
    """What every card id of a question from one source starts with: 'q2-src-1a2b3c4d5e6f-'."""
    return f"{question_id.lower()}-{source_id}-"


def new_card_id(question_id: str, source_id: str, n: int) -> str:
    """The id of the n-th card of a question from one source: 'q2-src-1a2b3c4d5e6f-1' (what `question_cards` globs)."""
    return f"{card_id_prefix(question_id, source_id)}{n}"


def card_number(card_id: str, question_id: str, source_id: str) -> int | None:
    """The n of a card id built by `new_card_id` for this question and source, else None."""
    n = card_id.removeprefix(card_id_prefix(question_id, source_id))
    return int(n) if n != card_id and n.isdigit() else None


def question_cards(question_id: str) -> str:
    """The glob of one research question's cards (their ids start with the question id)."""
    return f"source-cards/{question_id.lower()}-*.json"


def draft_path(n: int) -> str:
    return f"drafts/draft-{n}.md"


def review_path(n: int) -> str:
    return f"reviews/review-{n}.json"


def numbered(relpath: str) -> int | None:
    """The N of drafts/draft-N.md or reviews/review-N.json, else None."""
    m = _NUMBERED.fullmatch(relpath) if isinstance(relpath, str) else None
    return int(m.group(1)) if m else None


def draft_number(relpath: str) -> int | None:
    """The N of drafts/draft-N.md, else None (a review's path is not a draft)."""
    return numbered(relpath) if isinstance(relpath, str) and relpath.startswith("drafts/") else None


def by_number(paths) -> list[str]:
    """Draft or review paths in numeric order (draft-10 after draft-9)."""
    return sorted(paths, key=lambda p: (numbered(p) or 0, p))


def id_of(relpath: str) -> str:
    """The id a per-id artifact is named after: 'source-cards/q1-x.json' -> 'q1-x', 'sources/src-….txt' -> 'src-…'."""
    name = relpath.rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[0]
