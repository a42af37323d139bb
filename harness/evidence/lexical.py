"""Lexical helpers shared by the offline engine, the Reviewer's checks and the metrics:
sentences with offsets, content words, overlap, numbers and negation."""

from __future__ import annotations

import re

from harness.sources.index import tokenize

# A sentence ends at . ! ? followed by whitespace, or at a blank line. Dotted names such as
# asyncio.gather() never end a sentence (no whitespace after the dot), and common
# abbreviations (e.g., i.e., vs.) are glued back to what follows.
_SENT_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=\S)|\n\s*\n")
_ABBREV = re.compile(r"(?:\b(?:e\.g|i\.e|etc|vs|cf|approx|incl|resp|no|fig|Mr|Ms|Dr|St)\.|\b[A-Z]\.)$", re.I)
_VERSION = re.compile(r"\b\d+(?:\.\d+)+\b|\b\d+\b")
_NEGATION = re.compile(
    r"\b(?:not|never|no longer|cannot|can't|doesn't|don't|isn't|aren't|won't|without|neither|nor)\b", re.I
)

# Words that carry no topic (question scaffolding), dropped when matching evidence to questions.
SCAFFOLD = frozenset(
    """find finds found documentation document documents says say said describe describes described
explain explains what how which why when where who does do did about regarding between compare compared comparison
differ differs difference differences versus vs work works using use uses used should would could whether respect
terms information recommend recommendation answer question questions evidence source sources""".split()
)


def split_sentences(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Sentence spans (absolute offsets) inside text[start:end], whitespace trimmed."""
    end = len(text) if end is None else end
    spans = []
    pos = start
    for m in _SENT_END.finditer(text, start, end):
        if "\n\n" not in m.group(0) and _ABBREV.search(text, pos, m.start()):
            continue  # "e.g. foo" does not end a sentence
        spans.append((pos, m.start()))
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


_SCAFFOLD_STEMS = frozenset(tokenize(" ".join(SCAFFOLD)))


def content_words(text: str) -> set[str]:
    """Topic-bearing stems: BM25 tokens minus question scaffolding."""
    return {t for t in tokenize(text) if t not in _SCAFFOLD_STEMS}


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def coverage(needles: set[str], hay: set[str]) -> float:
    """Share of `needles` present in `hay`."""
    return len(needles & hay) / len(needles) if needles else 0.0


def numbers(text: str) -> set[str]:
    """Numbers and dotted versions mentioned in the text (3.11, 2, 1.0.4)."""
    return set(_VERSION.findall(text))


def negated(text: str) -> bool:
    return bool(_NEGATION.search(text))


def paragraph_around(text: str, offset: int) -> tuple[int, int]:
    """The span of the blank-line-separated paragraph containing `offset`."""
    start = text.rfind("\n\n", 0, offset)
    end = text.find("\n\n", offset)
    return (0 if start < 0 else start + 2, len(text) if end < 0 else end)


def number_clauses(text: str) -> set[str]:
    """Content words of the clauses that carry a number or version (what a version claim is about)."""
    words: set[str] = set()
    for clause in re.split(r"[,;:()]|\s[-–—]\s", text):
        if _VERSION.search(clause):
            words |= {w for w in content_words(clause) if not w.replace(".", "").isdigit()}
    return words
