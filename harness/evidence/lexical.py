"""Lexical helpers shared by the offline engine, the Reviewer's checks and the metrics:
content words, overlap, numbers and negation (sentences: `harness.sources.sentences`)."""

from __future__ import annotations

import re

from harness.sources.tokens import tokenize

_VERSION = re.compile(r"\b\d+(?:\.\d+)+\b|\b\d+\b")
_NEGATION = re.compile(
    r"\b(?:not|no|none|nothing|nobody|never|no longer|cannot|can't|doesn't|don't|isn't|aren't|won't|without|neither|nor)\b",
    re.I,
)

# Words that carry no topic (question scaffolding), dropped when matching evidence to questions.
SCAFFOLD = frozenset(
    """find finds found documentation document documents says say said describe describes described
explain explains what how which why when where who does do did about regarding between compare compared comparison
differ differs difference differences versus vs work works using use uses used should would could whether respect
terms information recommend recommendation answer question questions evidence source sources""".split()
)


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


def number_clauses(text: str) -> set[str]:
    """Content words of the clauses that carry a number or version (what a version claim is about)."""
    words: set[str] = set()
    for clause in re.split(r"[,;:()]|\s[-–—]\s", text):
        if _VERSION.search(clause):
            words |= {w for w in content_words(clause) if not w.replace(".", "").isdigit()}
    return words
