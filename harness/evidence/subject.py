"""A sentence that only names the subject is not evidence for a criterion it does not state.

A brief about one company ("a due-diligence brief on Acme Robotics covering funding history, ...") makes every
sentence that names the company look relevant to every part: "Acme Robotics is a company that builds robots" and
"Acme Robotics employees may work remotely" share the brief's rarest words. Such a sentence supports a part only
when it also speaks of what the part asks for: the criterion's own words or the words it is commonly discussed with
(`lexical.criterion_groups`, and `PART_WORDS` for the parts a company brief has: funding with rounds and
investment), or, when a caller gives one, a sense of meaning that places it close to the criterion. The offline Analyst screens its cards with this rule
(`engines/offline/analyst.py`); a sentence that does not name the subject is left to the other rules.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from harness.evidence.lexical import content_words, criterion_groups

# The words a company brief's parts are discussed with (a due-diligence brief's sections), beside the criterion's
# own; kept here, for this rule, so the Researcher's ranking and the answer check read only `lexical.RELATED`.
PART_WORDS = {
    "funding": "raise raised round investment investor investors capital",
    "financial": "revenue margin profit loss income cash",
    "price": "cost subscription fee licence license",
    "risk": "exposure disruption incident depend dependency",
    "competitive": "compete competes competing competitor competitors rival rivals market leader",
    "roadmap": "planned scheduled launch release availability",
    "operations": "fleet site sites production supply supplier headcount facility",
}
_PART_STEMS = {stem: content_words(words) for word, words in PART_WORDS.items() for stem in content_words(word)}
STATES_BY_MEANING = 0.35  # cosine of sentence and criterion above which a sentence speaks of it without its words

Closeness = Callable[[str, str], float]


def names_subject(sentence: str, subject: str) -> bool:
    """Does the sentence name the subject (any of its content words: "Halvard had 312 robots" names Halvard
    Robotics)?"""
    return bool(content_words(subject) & content_words(sentence))


def states(sentence: str, criteria: Iterable[str], subject: str = "", close: Closeness | None = None) -> bool:
    """Does the sentence speak of one of the criteria, the subject's own words aside?"""
    own = content_words(subject)
    words = content_words(sentence) - own
    for criterion in criteria:
        groups = [(g | _PART_STEMS.get(w, set())) - own for g in criterion_groups(criterion) for w in g]
        if any(g & words for g in groups if g):
            return True
        if close is not None and close(sentence, criterion) >= STATES_BY_MEANING:
            return True
    return False


def subject_only(sentence: str, subject: str, criteria: Iterable[str], close: Closeness | None = None) -> bool:
    """Is the sentence's only tie to the criteria the subject's name? Then it is not evidence for them. Without a
    subject or criteria there is nothing to screen."""
    criteria = [c for c in criteria if content_words(c) - content_words(subject)]
    if not subject.strip() or not criteria or not names_subject(sentence, subject):
        return False
    return not states(sentence, criteria, subject, close)
