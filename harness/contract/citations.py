"""The one citation syntax drafts use, and the one place it is parsed, stripped and rendered.

A draft cites claims from claims.json in square brackets with an at-sign, the
Pandoc way: ``[@C1]`` for one claim, ``[@C1; @C4]`` for several. Nothing else is a
citation. A bracket that starts with ``[@`` but holds something that is not a
claim id (``[@S3]``, ``[@C1, C2]``) is still parsed, so the checks can report it
as an unknown claim instead of letting it slip through as plain text.

The final report renders each citation as Markdown links to the claim's evidence cards,
``[C1](source-cards/<card_id>.json)``; `CARD_LINK` parses them back for the checks.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from harness.contract.layout import card_path

CLAIM_ID = re.compile(r"C[1-9][0-9]{0,4}")
CITATION = re.compile(r"\[@([^\[\]\n]*)\]")
_LEADING = re.compile(r"^((?:\[@[^\[\]\n]*\]\s*)+)(.*)$", re.S)
# A rendered citation: the claim id (with an optional suffix such as "·2" or " contra") linking to a card.
CARD_LINK = re.compile(r"\[(C[1-9][0-9]*)(?:[^\]]*)\]\((source-cards/[a-z0-9][a-z0-9._-]*\.json)\)")


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


def _keys(inner: str) -> tuple[str, ...]:
    return tuple(part.strip().lstrip("@").strip() for part in inner.split(";") if part.strip())


def parse_citations(markdown: str) -> list[Citation]:
    """Every citation group in `markdown`, in order."""
    out: list[Citation] = []
    line_starts = [0] + [m.end() for m in re.finditer(r"\n", markdown)]
    line = 1
    for m in CITATION.finditer(markdown):
        while line < len(line_starts) and line_starts[line] <= m.start():
            line += 1
        out.append(Citation(line=line, start=m.start(), end=m.end(), keys=_keys(m.group(1)) or ("",)))
    return out


def strip_citations(text: str) -> str:
    """`text` without its citation markers."""
    return CITATION.sub("", text)


def replace_citations(text: str, render: Callable[[tuple[str, ...]], str]) -> str:
    """`text` with each citation replaced by `render(keys)`."""
    return CITATION.sub(lambda m: render(_keys(m.group(1))), text)


def split_leading_citations(text: str) -> tuple[str, str] | None:
    """(citations, rest) when `text` starts with citation markers ("[@C1] Next sentence"), else None."""
    m = _LEADING.match(text)
    return (m.group(1).strip(), m.group(2).strip()) if m else None


def format_citation(claim_ids: list[str] | tuple[str, ...]) -> str:
    """The canonical way to write a citation of these claims."""
    return "[" + "; ".join("@" + c for c in claim_ids) + "]"


def card_link(label: str, card_id: str, href: Callable[[str], str] | None = None) -> str:
    """A rendered citation: `label` linking to the card's file (what `CARD_LINK` parses), or to `href(path)`."""
    path = card_path(card_id)
    return f"[{label}]({href(path) if href else path})"
