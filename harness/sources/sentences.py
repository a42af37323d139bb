"""Cutting text into sentences with their offsets: the unit a card quotes, a draft cites and a flag marks.

One splitter for the whole harness (the offline Researcher's quotes, the draft parser, the
injection detector), so a "sentence" means the same thing everywhere.
"""

from __future__ import annotations

import re

# A sentence ends at . ! ? (and any closing quotes or brackets right after it) followed by
# whitespace, or at a blank line. Dotted names such as asyncio.gather() never end a sentence
# (no whitespace after the dot), and common abbreviations (e.g., i.e., vs., Jr., Inc., c.)
# and initials are glued back to what follows, as is an ellipsis inside a sentence (a title such as
# "When Harry Met Sally..." followed by a lower-case word).
_SENT_END = re.compile(r"(?<=[.!?])([\"'”’)\]]*)\s+(?=\S)|\n\s*\n")
_ABBREV = re.compile(
    r"(?:\b(?:e\.g|i\.e|etc|vs|cf|approx|incl|resp|no|fig|vol|pp|op|ca|c|fl|al|"
    r"mr|mrs|ms|dr|st|jr|sr|prof|rev|gen|col|lt|capt|sgt|gov|sen|inc|corp|co|ltd|bros|mt|ft|ret)\.|\b[A-Z]\.)$",
    re.I,
)


def split_sentences(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Sentence spans (absolute offsets) inside text[start:end], whitespace trimmed."""
    end = len(text) if end is None else end
    spans = []
    pos = start
    for m in _SENT_END.finditer(text, start, end):
        if "\n\n" not in m.group(0) and _ABBREV.search(text, pos, m.start()):
            continue  # "e.g. foo" does not end a sentence
        if (
            "\n\n" not in m.group(0)
            and text[max(pos, m.start() - 3) : m.start()].endswith(("...", "…"))
            and text[m.end() : m.end() + 1].islower()
        ):
            continue  # "Sally... is the soundtrack": an ellipsis in a title, not a sentence end
        spans.append((pos, m.start() + len(m.group(1) or "")))
        pos = m.end()
    spans.append((pos, end))
    out = []
    for s, e in spans:
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if e > s:
            out.append((s, e))
    return out
