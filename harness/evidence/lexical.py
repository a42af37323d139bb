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


# Words a criterion is commonly discussed with: "error handling" is about exceptions. The answer check judges a
# criterion by these (`evidence/answers.py`). The offline Writer places claims in a criterion's row by the same
# words (`engines/offline/ranking.criterion_words`: the union of `criterion_groups`).
RELATED = {
    "error": "exception raise fail failure",
    "exception": "error raise",
    "fail": "error exception",
    "speed": "fast slow performance time",
    "fast": "speed slow performance",
    "performance": "speed fast slow",
    "memory": "allocation footprint",
    "cancel": "cancellation cancelled",
    "security": "secure safe",
    "safety": "safe secure",
    "concurrency": "concurrent parallel thread",
    "cost": "price expensive cheap",
}
_RELATED_STEMS = {stem: content_words(related) for word, related in RELATED.items() for stem in content_words(word)}


def criterion_groups(criterion: str) -> list[set[str]]:
    """Each content word of a criterion with the words it is commonly discussed with: a text speaks of the
    criterion's word when it holds any word of its group."""
    return [{w} | _RELATED_STEMS.get(w, set()) for w in sorted(content_words(criterion))]
