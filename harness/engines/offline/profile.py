"""How the offline Researcher ranks and selects, for one kind of text: a frozen `RankingProfile`, chosen by what the
corpus's text is (`choose_profile`), never by its name. Figures behind each value: docs/tuning-log.md, bench/README.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

from harness.sources.corpus import Corpus
from harness.sources.pythondocs import SIGNATURE_START


@dataclass(frozen=True)
class Score:
    """A sentence's relevance as named terms (so a bench can print why a sentence won) and their `total`."""

    terms: tuple[tuple[str, float], ...]
    total: float

    @classmethod
    def of(cls, *groups: tuple[tuple[str, float], ...]) -> Score:
        """The terms added group by group, each group summed first: a fixed order of float additions."""
        total = 0.0
        for group in groups:
            part = 0.0
            for _, value in group:
                part += value
            total += part
        return cls(tuple(t for g in groups for t in g), total)

    def as_dict(self) -> dict[str, float]:
        return dict(self.terms)


@dataclass(frozen=True)
class RankingProfile:
    """Every weight and switch of the Researcher's score and selection, each with why."""

    name: str
    # -- retrieval
    search_k: int = 8  # passages per search
    chain_k: int = 2  # search_k times this for a question about named things (`chain.about_names`)
    max_bridges: int = 3  # hop-2 searches per branch (each costs one search of the branch's budget)
    answer_docs: int = 2  # best documents whose docstrings named after the question's words are read whole
    # -- score (`Score`'s terms)
    min_score: float = 0.5  # of the subject/criteria screen: a sentence below it is not about the question
    secondary: float = 0.2  # penalty of a secondary source: a primary one saying as much ranks first
    flagged: float = 0.1  # penalty of a source with instruction-like text
    retrieved: float = 0.3  # weight of a hop-1 passage's retrieval score (a share of its search's best)
    own: float = 0.4  # added to a sentence of the docstring of a code name the question writes
    dangling: float = 0.3  # penalty of a sentence that does not stand alone and has no antecedent to quote
    document_meaning: float = 0.0  # times the closeness in meaning of a document's opening and names (`_about`)
    sentence_meaning: float = 0.0  # times a sentence's cosine with the question (a sentence encoder's only)
    superseded: float = 0.0  # taken from every sentence of a module whose document says importing it warns
    # -- select (`answer.SELECTORS`)
    max_cards: int = 6  # cards besides the chain
    max_per_source: int = 3  # cards of one source besides the chain
    hop2_cards: int = 3  # cards from hop 2 at most
    pair_link: float = 0.3  # added to a two-sentence chain whose one sentence names the other's document (`_chain`)
    pair_min: float = 0.5  # what a second document's sentence must add to join a two-sentence chain
    pair_from: int = 5  # best sentences of each document that may be a link of a two-sentence chain
    chain_more: int = 1  # chain documents' sentences that join when no link has the asked-for kind of answer
    documents_chain: bool = True  # documents may pair (`_chain`, `chain.chain_docs`): they name each other to lead on
    agreed: bool = False  # the document every search ranks first leads the answer (`answer._named_best`)
    near_best: int = 0  # sentences of the best document in the answer (`_near_best`); 0: the chain alone
    near: float = 0.8  # ... each scoring at least this share of the best's relevance
    runner_up: float = 0.0  # share of the answer's relevance at which a second document's best joins it; 0: never
    one_copy: bool = False  # a sentence a section and its chapter both hold is quoted from one copy (`_one_copy`)
    rest: bool = False  # an answer card quotes the rest of its paragraph (`passages._rest`)
    continues: bool = False  # a sentence quoted with its antecedent takes the antecedent's card's place

    @property
    def needs_meaning(self) -> bool:
        """Does this profile read a meaning model (so a run needs its weights installed)?"""
        return bool(self.document_meaning or self.sentence_meaning)


# Entity-titled short paragraphs: two documents that name each other answer; each further sentence is another fact.
ENCYCLOPEDIA = RankingProfile(name="encyclopedia")
# Docstrings under signature lines: one module answers, its sentences continue one another, its opening states its
# subject, and modules name one another everywhere (so no pairs).
REFERENCE = replace(
    ENCYCLOPEDIA,
    name="reference",
    document_meaning=1.0,
    sentence_meaning=1.0,
    superseded=1.0,
    documents_chain=False,
    agreed=True,
    near_best=6,
    runner_up=0.9,
    one_copy=True,
    rest=True,
    continues=True,
)
# Prose chapters under Markdown headings: one chapter's paragraph answers, as in a reference.
GUIDE = replace(REFERENCE, name="guide")
PROFILES = {p.name: p for p in (REFERENCE, ENCYCLOPEDIA, GUIDE)}

_SIGNATURE = re.compile(rf"^{SIGNATURE_START}[A-Za-z_]", re.M)
_FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
ONE_PARAGRAPH_SHARE = 0.5  # share of documents that are a title and one paragraph that makes an encyclopedia
SIGNED_SHARE = 0.2  # share of documents with a signature line outside fenced code that makes a reference


@dataclass(frozen=True)
class TextProperties:
    """What a corpus's text is, measured: the values `choose_profile` decides on."""

    documents: int
    one_paragraph: float  # share of documents that are a title line and at most one paragraph
    signed: float  # share of documents with a `def`/`class` signature line outside fenced code

    @classmethod
    def of(cls, texts: Iterable[str]) -> TextProperties:
        texts = list(texts)
        n = len(texts) or 1
        paragraphs = [len([p for p in _PARAGRAPH_BREAK.split(t) if p.strip()]) for t in texts]
        return cls(
            documents=len(texts),
            one_paragraph=round(sum(k <= 2 for k in paragraphs) / n, 3),
            signed=round(sum(bool(_SIGNATURE.search(_FENCE.sub("", t))) for t in texts) / n, 3),
        )


def choose_profile(props: TextProperties) -> RankingProfile:
    """The profile for a corpus, by what its text is: an encyclopedia, else a docstring reference, else a guide."""
    if props.one_paragraph >= ONE_PARAGRAPH_SHARE:
        return ENCYCLOPEDIA
    if props.signed >= SIGNED_SHARE:
        return REFERENCE
    return GUIDE


_MEASURED: dict[str, TextProperties] = {}


def corpus_profile(corpus: Corpus | None) -> RankingProfile:
    """The profile of a run's corpus (measured once per corpus per process); ENCYCLOPEDIA without one (web pages)."""
    if corpus is None:
        return ENCYCLOPEDIA
    key = corpus.fingerprint
    if key not in _MEASURED:
        _MEASURED[key] = TextProperties.of(d.text for d in corpus.documents)
    return choose_profile(_MEASURED[key])
