"""What a flag puts off limits in a source, and whether other text repeats flagged text."""

from __future__ import annotations

from harness.contract.injection import (
    OVERRIDE,
)
from harness.sources.injection.document import (
    find_injections,
)


def _paragraph(text: str, offset: int) -> tuple[int, int]:
    start, end = text.rfind("\n\n", 0, offset), text.find("\n\n", offset)
    return (0 if start < 0 else start + 2, len(text) if end < 0 else end)


def flag_span(flag: dict, text: str) -> tuple[int, int]:
    """The span of a source's snapshot one flag puts off limits.

    A flagged sentence is its own span; after an "override" ("Ignore all previous
    instructions."), the whole paragraph, because the payload often follows its trigger by a
    sentence or two. A flag without `end` (written before flags were sentence-level) covers its paragraph.
    """
    offset = int(flag["offset"])
    if "end" not in flag or flag.get("reason") == OVERRIDE:
        p_start, p_end = _paragraph(text, offset)
        return p_start, max(p_end, int(flag.get("end", 0)))
    return offset, int(flag["end"])


def flagged_spans(record: dict, text: str) -> list[tuple[int, int]]:
    """The spans of a source's snapshot that no card may quote, from its record's flags (`flag_span`)."""
    return [flag_span(flag, text) for flag in record.get("flags", [])]


MIN_INSIDE_WORDS = 3  # a candidate this long or longer that lies inside flagged text repeats it


def _grams(text: str, n: int = 6) -> set[str]:
    words = " ".join(text.lower().split()).split(" ")
    return {" ".join(words[k : k + n]) for k in range(max(1, len(words) - n + 1))}


def repeats_flagged(candidate: str, text: str | None, flags: list[dict] | tuple[dict, ...]) -> bool:
    """Does `candidate` (a title, a quote, a claim) repeat flagged text of a source?

    True when it is instruction-like itself, contains a flagged sentence, lies inside one, or
    shares six words in a row with one. `text` is the source's snapshot and `flags` its flags;
    without the snapshot (None), each flag's excerpt stands for its text.
    """
    if not candidate.strip():
        return False
    if find_injections(candidate, limit=1):
        return True
    mine = " ".join(candidate.lower().split())
    grams = _grams(candidate)
    if text is None:
        texts = [str(flag.get("excerpt", "")) for flag in flags]
    else:
        texts = [text[start:end] for start, end in flagged_spans({"flags": list(flags)}, text)]
    for flagged_text in texts:
        flagged = " ".join(flagged_text.lower().split())
        if not flagged:
            continue
        # "lies inside one" needs a few words: a one-word title ("backups") inside a flagged paragraph repeats nothing
        inside = len(mine.split()) >= MIN_INSIDE_WORDS and mine in flagged
        if flagged in mine or inside or grams & _grams(flagged):
            return True
    return False
