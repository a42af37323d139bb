"""Does a cited claim lexically support the sentence citing it? One rule, shared by the
Reviewer's `citation_not_supporting` check and the citation-correctness metric.

A sentence is supported when at least a third of its content words occur in the claim's
evidence (its statement, limitations and its cards' quotes) and every number or version
it states appears there too. It is a cheap, conservative screen: it catches citations
to unrelated claims and invented figures, not subtle misreadings (an LLM judge can add those).
"""

from __future__ import annotations

from harness.evidence.lexical import content_words, coverage, numbers

SUPPORT_OVERLAP = 1 / 3


def evidence_text(claim: dict, quotes: list[str]) -> str:
    return " ".join([claim.get("statement", ""), *claim.get("limitations", []), *quotes])


def supports(sentence: str, evidence: str, words: bool = True) -> bool:
    """`words=False` (a report in another language than English, `contract.language.judges_overlap`) skips
    the word-overlap part: only the figures rule applies."""
    content = content_words(sentence) if words else set()
    if content and coverage(content, content_words(evidence)) < SUPPORT_OVERLAP:
        return False
    return not (numbers(sentence) - numbers(evidence))
