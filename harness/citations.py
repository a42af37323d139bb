"""The one citation syntax drafts use, and the one function that parses it.

A draft cites claims from claims.json in square brackets with an at-sign, the
Pandoc way: ``[@C1]`` for one claim, ``[@C1; @C4]`` for several. Nothing else is a
citation. A bracket that starts with ``[@`` but holds something that is not a
claim id (``[@S3]``, ``[@C1, C2]``) is still parsed, so the checks can report it
as an unknown claim instead of letting it slip through as plain text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

CLAIM_ID = re.compile(r"C[1-9][0-9]{0,4}")
_GROUP = re.compile(r"\[@([^\[\]\n]*)\]")


@dataclass(frozen=True)
class Citation:
    line: int  # 1-based line number in the document
    start: int  # character offset of '[' in the whole document
    end: int  # offset one past ']'
    keys: tuple[str, ...]  # as written, without '@'

    @property
    def claim_ids(self) -> tuple[str, ...]:
        """The keys that are well-formed claim ids."""
        return tuple(k for k in self.keys if CLAIM_ID.fullmatch(k))

    @property
    def malformed(self) -> tuple[str, ...]:
        """The keys that are not claim ids at all."""
        return tuple(k for k in self.keys if not CLAIM_ID.fullmatch(k))


def parse_citations(markdown: str) -> list[Citation]:
    """Every citation group in `markdown`, in order."""
    out: list[Citation] = []
    line_starts = [0] + [m.end() for m in re.finditer(r"\n", markdown)]
    line = 1
    for m in _GROUP.finditer(markdown):
        while line < len(line_starts) and line_starts[line] <= m.start():
            line += 1
        keys = tuple(part.strip().lstrip("@").strip() for part in m.group(1).split(";") if part.strip())
        out.append(Citation(line=line, start=m.start(), end=m.end(), keys=keys or ("",)))
    return out


def format_citation(claim_ids: list[str] | tuple[str, ...]) -> str:
    """The canonical way to write a citation of these claims."""
    return "[" + "; ".join("@" + c for c in claim_ids) + "]"


def cited_claim_ids(markdown: str) -> list[str]:
    """All claim ids cited in `markdown`, first occurrence order, no repeats."""
    seen: dict[str, None] = {}
    for cit in parse_citations(markdown):
        for key in cit.keys:
            seen.setdefault(key, None)
    return list(seen)
