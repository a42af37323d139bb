"""Quote matching: how a card's quote is compared with the stored source snapshot.

A quote matches its source when it equals the snapshot's text at the card's span up to
whitespace (any run of whitespace counts as one space, the ends are trimmed). That is the
verbatim guarantee (invariant 3); nothing looser is ever accepted.
"""

from __future__ import annotations

import re

_WS = re.compile(r"\s+")


def normalize_ws(text: str) -> str:
    """Collapse every run of whitespace to one space and strip the ends."""
    return _WS.sub(" ", text).strip()


def quote_matches(text: str, quote: str, start: int, end: int) -> bool:
    """True when `quote` equals `text[start:end]` up to whitespace."""
    if not (0 <= start < end <= len(text)):
        return False
    return normalize_ws(text[start:end]) == normalize_ws(quote)


def find_quote(text: str, quote: str) -> tuple[int, int] | None:
    """Locate `quote` in `text` allowing any whitespace between its words; return the span."""
    words = normalize_ws(quote).split(" ")
    if not words or words == [""]:
        return None
    pattern = r"\s+".join(re.escape(w) for w in words)
    m = re.search(pattern, text)
    return (m.start(), m.end()) if m else None
