"""The workspace's artifact kinds: which paths exist, what format each has, which schema governs it.

One table, used by writes (to pick the schema), by `validate` (to check every file)
and by `inspect`. A path that matches no kind is not a workspace artifact.
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


KINDS: tuple[ArtifactKind, ...] = (
    _k("run", r"run\.json", "json", "run.schema.json", indexed=False),
    _k("trace", r"trace\.jsonl", "jsonl", "trace-event.schema.json", indexed=False),
    _k("plan", r"plan\.json", "json", "plan.schema.json"),
    _k("source", r"sources/src-[0-9a-f]{12}\.json", "json", "source.schema.json"),
    _k("source_text", r"sources/src-[0-9a-f]{12}\.txt", "text"),
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


def kind_for_path(relpath: str) -> ArtifactKind | None:
    """Return the artifact kind of a workspace-relative POSIX path, or None."""
    for kind in KINDS:
        if kind.pattern.fullmatch(relpath):
            return kind
    return None


def kind_named(name: str) -> ArtifactKind:
    for kind in KINDS:
        if kind.name == name:
            return kind
    raise KeyError(name)


def numbered(relpath: str) -> int | None:
    """The N of drafts/draft-N.md or reviews/review-N.json, else None."""
    m = re.search(r"-([1-9][0-9]*)\.(md|json)$", relpath)
    return int(m.group(1)) if m and relpath.startswith(("drafts/", "reviews/")) else None
