"""Which period a figure is for, and which of two figures on one measure is the current one.

Documents as people keep them give the same figure for several periods: this year's annual report and last year's
in `archive/`. Two such figures are a series, not a conflict: the newer leads, the older is superseded. The period
is read from the text, never guessed: a year (and quarter) in the document's title, else its path, else the
sentence; a path under `archive/`, `old/` or `superseded/` (or a file name saying so) marks the whole document as
older than any document outside one. The offline Analyst applies this (`engines/offline/analyst.py`); the claim's
`series` and its vintages are `contract/claims.py`'s.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from harness.evidence.lexical import content_words, jaccard, number_clauses, numbers

_YEAR = re.compile(r"(?<!\d)(19[5-9]\d|20\d\d)(?!\d)")
_QUARTER = re.compile(r"\b(?:Q([1-4])|([1-4])Q|(first|second|third|fourth) quarter)\b", re.I)
_ORDINAL = {"first": 1, "second": 2, "third": 3, "fourth": 4}
_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?"
_DAY_OF_MONTH = re.compile(rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}(?=\W|$)|\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?\b")
_YEAR_LIKE = re.compile(r"1\d{3}|20\d\d")  # any year a sentence may name ("born 1923"): a date, not a figure
_ARCHIVED = re.compile(r"(?:^|[/_.\s-])(?:archive[sd]?|old|superseded)(?:$|[/_.\s-])", re.I)
SAME_MEASURE = 0.3  # Jaccard of the content words of the clauses that carry the two figures


class Period(NamedTuple):
    """When a figure is from: an archived document is older than any other; then by year and quarter."""

    archived: bool
    year: int | None
    quarter: int | None

    def order(self) -> tuple[int, int, int]:
        return (0 if self.archived else 1, self.year or 0, self.quarter or 0)

    def label(self) -> str:
        """ "Q4 2024", "2023", or "archived" when only its folder dates it."""
        if self.year is None:
            return "archived" if self.archived else "undated"
        return f"Q{self.quarter} {self.year}" if self.quarter else str(self.year)


def _quarter(text: str) -> int | None:
    m = _QUARTER.search(text)
    if not m:
        return None
    return int(m.group(1) or m.group(2)) if (m.group(1) or m.group(2)) else _ORDINAL[m.group(3).lower()]


def period_of(path: str, title: str, sentence: str) -> Period:
    """The period of a sentence of the document at `path` titled `title`: the first of title, path and sentence
    that holds a year gives the year (and its quarter); the path says whether the document is archived."""
    archived = bool(_ARCHIVED.search(path))
    for text in (title, path, sentence):
        m = _YEAR.search(text)
        if m:
            return Period(archived, int(m.group(1)), _quarter(text))
    return Period(archived, None, None)


def dated(period: Period) -> bool:
    """Does the period say anything (a year or an archive)? Undated figures are never put in a series."""
    return period.archived or period.year is not None


def same_measure(a: str, b: str) -> bool:
    """Two sentences giving a figure for the same thing: both hold a number, and their figures count the same thing
    ("180 robots" / "312 robots") or the clauses around their numbers share most content words ("Revenue for the year was $5.1 million" / "Revenue for fiscal year 2024 was $9.2
    million"), the years and figures aside."""
    if not (_figures(a) and _figures(b)):
        return False
    wa, wb = _measure_words(a), _measure_words(b)
    return bool(_units(a) & _units(b)) or max(jaccard(wa, wb), jaccard(_plain(a), _plain(b))) >= SAME_MEASURE


_UNIT = re.compile(r"(?<![\d.,])\d[\d.,]*\s+([A-Za-z][\w-]*)")
_SCALE = frozenset("million billion thousand per percent".split())


def _units(text: str) -> set[str]:
    """What a sentence's figures count: the word after each number that is not a year or a day of a month ("312
    robots" counts robots; "28 August" and "in 1923 Acme" count nothing), scale words aside."""
    return {
        w
        for m in _UNIT.finditer(_DAY_OF_MONTH.sub(" ", text))
        if not _YEAR_LIKE.fullmatch(m.group(0).split()[0]) and m.group(1).lower() not in _SCALE
        for w in content_words(m.group(1))
    }


def _figures(text: str) -> set[str]:
    """The numbers of a sentence that are not years or days of a month (a date says when, not how much)."""
    return {n for n in numbers(_DAY_OF_MONTH.sub(" ", text)) if not _YEAR_LIKE.fullmatch(n)}


def _measure_words(text: str) -> set[str]:
    return {w for w in number_clauses(text) if not any(ch.isdigit() for ch in w)}


def _plain(text: str) -> set[str]:
    return {w for w in content_words(text) if not any(ch.isdigit() for ch in w)}


def supersedes(new: Period, old: Period) -> bool:
    """Is `new` a later period than `old`? Both must be dated; equal periods supersede nothing."""
    return dated(new) and dated(old) and new.order() > old.order()


def differ(a: str, b: str) -> bool:
    """Do two sentences give different figures (years aside)?"""
    return _figures(a) != _figures(b)
