"""The answer among the offline Researcher's ranked candidate sentences: the candidate itself, the answer's chain (one
sentence, or two from documents that lead to each other: `_chain`), what joins it in the Python documentation
(`_near_best`, `_runner_up`), one copy of a sentence two overlapping documents hold (`_one_copy`), and the cards
chosen to write (`_choose`: the chain whole, then the best others within the limits, one card per passage).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from harness.engines.offline.passages import _flat, _section_of
from harness.engines.offline.ranking import (
    OTHER,
    YESNO,
    Ask,
    entities,
    has_type,
    stands_alone,
    title_match,
    title_words,
)
from harness.evidence.lexical import content_words
from harness.sources.injection import find_injections

MAX_CARDS = 6
MAX_PER_SOURCE = 3
BRIDGE_FROM = 2  # the best sentences of each chain-start document whose named things are bridge candidates
HOP2_CARDS = 3  # cards kept from hop 2 at most (from documents titled after a bridge)
PAIR_FROM = 5  # best sentences of each document that may be a link of a two-document chain
LINK = 0.3  # added to a two-document chain whose one sentence names the other's document
CHAIN_MORE = 1  # sentences of the chain's documents that join it when no link has the asked-for kind of answer
PAIR_MIN = 0.5  # what a second document's sentence must add (against the rest of the question) to join the chain
BEST_PER_SOURCE = 6  # sentences of the best candidate's document in the answer (`_near_best`), each at least
NEAR = 0.8  # this share of the best's relevance
RUNNER_UP = 0.9  # share of the answer's relevance at which a second document's best sentence joins it (`_runner_up`)


def _best_per_source(ranked: list, n: int = 1) -> list:
    """The first (best) n candidates of each source, in order."""
    count: dict[str, int] = {}
    out = []
    for c in ranked:
        count[c.source_id] = count.get(c.source_id, 0) + 1
        if count[c.source_id] <= n:
            out.append(c)
    return out


def _chain_start(ranked: list) -> list:
    """Where the answer's chain starts: the best sentences of the documents titled after something the question
    names, or else the best sentence found."""
    return _best_per_source([c for c in ranked if c.titled and c.hop == 1], BRIDGE_FROM) or ranked[:1]


def _named_best(ranked: list, agreed: str = "") -> list:
    """The answer's one sentence: the best of the document that fully names what the question names (the `with`
    statement's own page, the module a question names), or else the best sentence found. A half name (a module
    the question writes as a word that may be English, "random"; a partial title) does not outrank a better
    sentence of another document: it already adds to its sentences' scores (`ranking.TITLED`).

    Short of a full name, in the Python documentation, the document every search of the branch ranks first
    (`agreed`: the whole question and its content words agree on it) leads: its best sentence is the answer's."""
    top = max((c.titled for c in ranked if c.hop == 1), default=0.0)
    if top >= 1:
        return [next(c for c in ranked if c.hop == 1 and c.titled == top)]
    lead = next((c for c in ranked if c.hop == 1 and c.source_id == agreed and c.titled == top), None)
    return [lead or ranked[0]] if ranked else []


def _near_best(ranked: list, chain: list, documented: set[str], defined=frozenset()) -> list:
    """More of the answer, in the Python documentation: one sentence of a docstring or a reference topic rarely says
    it all (what a function returns, what it raises, when it applies). The best candidate's document's other
    sentences that score at least NEAR × the best, up to BEST_PER_SOURCE of that document in all, join the answer
    (a document's further sentences cost no citation precision). Only there (`documented`: its sources): an
    encyclopedia paragraph's further sentences are other facts, and on HotpotQA they cost supporting-fact precision.
    When the chain holds a document the question names by a definition or opens by naming (`defined`: it defines a
    code name the question writes, or it is the module of "With poplib, ..."), more of the answer comes from it."""
    if not ranked or ranked[0].source_id not in documented:
        return []
    top = ranked[0]
    named = next((c for c in chain if c.source_id in defined and c.hop == 1), None)
    if named is not None and named.source_id in documented:
        top = next(c for c in ranked if c.source_id == named.source_id)
    have = sum(c.source_id == top.source_id for c in chain)
    near = [
        c for c in ranked if c.source_id == top.source_id and c not in chain and c.relevance >= NEAR * top.relevance
    ]
    return near[: max(0, BEST_PER_SOURCE - have)]


def _runner_up(ranked: list, chain: list, documented: set[str]) -> list:
    """The best sentence of a second document, in the Python documentation, when it scores at least RUNNER_UP × the
    answer's: two modules or topics that answer about equally well (`queue` and `asyncio.queues`, a statement's
    topic and its chapter) are both cited, as missing the one that answers costs more than one citation too many.
    [] when the answer's document leads clearly, when the answer scores nothing (a share of a score at or below 0
    says nothing), or outside the documentation (an encyclopedia's second page is the chain's to choose: `chain.py`)."""
    if not chain or chain[0].source_id not in documented or chain[0].relevance <= 0:
        return []
    docs = {c.source_id for c in chain}
    runner = next((c for c in ranked if c.hop == 1 and c.source_id not in docs and c.source_id in documented), None)
    return [runner] if runner is not None and runner.relevance >= RUNNER_UP * chain[0].relevance else []


def _one_copy(ranked: list, texts: dict[str, str]) -> list:
    """A sentence that a section's document and its chapter's both hold is quoted from one copy only. The Python
    documentation's `help()` topics overlap (`topics/try` is a section of `topics/compound`, `topics/augassign` of
    `topics/assignment`), and citing both costs a citation for nothing. The copy kept is the section's, the page
    about that sentence, unless the chapter's own sentences (those the section does not hold) rank above every
    sentence of the section: then the question is about more of the chapter than the section says, and the
    chapter's copy is kept. Each kept copy keeps its own score. Two documents that merely share a sentence (a
    subclass's copied docstring) keep both copies. `texts`: the documents (the Python documentation's) this applies
    to; candidates of other sources are kept as they are."""
    best: dict[str, list] = {}
    for c in ranked:
        if c.source_id in texts:
            best.setdefault(c.source_id, []).append(c)
    flats = {sid: _flat(texts[sid]) for sid in best}
    drop: dict[str, set[str]] = {}  # source id -> the shared sentences (flattened) its copy of is not quoted
    for sec in best:
        for ch in best:
            if sec == ch or not _section_of(texts[sec], texts[ch], flats[ch]):
                continue
            own = [c for c in best[ch] if _flat(c.text) not in flats[sec]]
            loser = sec if own and own[0].relevance > best[sec][0].relevance else ch
            keeper = ch if loser == sec else sec
            shared = {_flat(c.text) for c in best[keeper] if _flat(c.text) in flats[loser]}
            drop.setdefault(loser, set()).update(shared)
    return [c for c in ranked if _flat(c.text) not in drop.get(c.source_id, ())]


def _mentions(sentence: str, title: str) -> bool:
    """Does the sentence name the document's title (all its content words, parenthetical left out)?"""
    words = title_words(title)
    return bool(words) and words <= content_words(sentence)


def _start_docs(ranked: list, ask: Ask) -> list[str]:
    """The documents the question names: for each named thing, the hop-1 documents whose titles match it best
    ("Richard Hornsby & Sons" over "Richard Hornsby")."""
    out: list[str] = []
    for name in ask.names:
        scores = {c.source_id: title_match(name, c.title) for c in ranked if c.hop == 1}
        top = max(scores.values(), default=0.0)
        out += [sid for sid, v in scores.items() if top > 0 and v == top and sid not in out]
    return out


def _chain(ranked: list, ask: Ask, documented=frozenset(), agreed: str = "") -> list:
    """The links of the answer's chain: one sentence, or two from two documents, best first.

    A multi-hop answer takes two documents: one sentence answers part of the question, a sentence of another
    document says the rest. Every pair (a, b) of sentences from two documents is ranked by a's relevance plus
    b's against the rest of the question (`Ask.rest`: the words a and its title do not already hold), plus
    LINK when one names the other's document (a bridge: "performed by Harry Connick Jr." and Harry Connick Jr.'s
    own page; half as much for a partial name). Only documents that name each other, or that the question
    names both, make a pair. A pair is the chain when its second sentence adds at least PAIR_MIN; else the best sentence
    alone (`_named_best`).

    A document of the Python documentation (`documented`: their sources) is in no pair: one module or topic
    answers, and the documentation names its modules and topics everywhere (`asyncio.runners` ↔
    `asyncio.base_events`, a topic's "See also"), so a link says nothing of whether the second document holds the
    rest of the answer; the second document of such a pair was most often one that does not answer
    (docs/tuning-log.md)."""
    if not ranked:
        return []
    by_doc: dict[str, list] = {}
    for c in ranked:
        by_doc.setdefault(c.source_id, []).append(c)
    pool = [c for sid, cands in by_doc.items() if sid not in documented for c in cands[:PAIR_FROM]]
    words = {id(c): content_words(c.text) | content_words(c.title) for c in pool}
    names = {id(c): entities(c.text) for c in pool}
    asked = set(_start_docs(ranked, ask)) | {
        sid for sid, cands in by_doc.items() if _mentions(ask.text, cands[0].title)
    }

    def link(c, title: str) -> float:
        """1 when the sentence names the whole title, 0.5 for a partial name ("Galaxy S6" ~ "Samsung Galaxy S6")."""
        return 1.0 if _mentions(c.text, title) else max((title_match(n, title) for n in names[id(c)]), default=0.0)

    links = {(id(c), sid): link(c, by_doc[sid][0].title) for c in pool for sid in by_doc if sid != c.source_id}
    best: tuple = (0.0, 0.0, None, None)
    for a in pool:
        rest = ask.rest(words[id(a)])
        for b in pool:
            if b.source_id == a.source_id:
                continue
            linked = max(links[(id(a), b.source_id)], links[(id(b), a.source_id)])
            if not linked and not {a.source_id, b.source_id} <= asked:
                continue  # two documents unrelated to each other, not both named by the question
            added = rest.score(b.text, b.title, first=b.first) + LINK * linked
            if a.relevance + added > best[0]:
                best = (a.relevance + added, added, a, b)
    chain = list(best[2:]) if best[2] is not None and best[1] >= PAIR_MIN else _named_best(ranked, agreed)
    docs = {c.source_id for c in chain}
    more: list = []
    if ask.kind not in (YESNO, OTHER) and not any(has_type(c.text, ask.kind, ask.text) for c in chain):
        # the asked-for kind of answer (a date, a number, a name...) is in neither link: the chain documents'
        # best sentence that has one joins the chain
        more = [c for c in ranked if c.source_id in docs and c not in chain and has_type(c.text, ask.kind, ask.text)]
    return sorted(chain + more[:CHAIN_MORE], key=lambda c: c.key)


def _span(cand) -> tuple[int, int]:
    """Where a candidate's card quotes its source: from its antecedent (if any) to its end."""
    return cand.quote[1], cand.end + len(cand.trail)


def _within(inner, outer) -> bool:
    """Does the card of `inner` quote part of (or all of) what the card of `outer` quotes?"""
    return (
        inner.source_id == outer.source_id and _span(outer)[0] <= _span(inner)[0] <= _span(inner)[1] <= _span(outer)[1]
    )


@dataclass(kw_only=True)
class _Candidate:
    relevance: float
    rank: int  # of the passage in its search
    source_id: str
    start: int
    end: int
    kind: str
    title: str
    flagged: bool
    hop: int
    text: str
    bridge: str = ""
    first: bool = False  # its document's opening sentence
    titled: float = 0.0  # its document is titled after (or defines) something the question (or the bridge) names
    defined: bool = False  # it defines a code name the question writes, or is the module it opens by naming
    lead: str = ""  # the sentence before it, quoted with it when it does not stand alone ("For instance, ...")
    rest: str = ""  # the rest of its paragraph (the Python documentation: `_rest`), quoted by an answer card
    trail: str = ""  # what its card quotes after it: its `rest` when it is an answer card

    @property
    def quote(self) -> tuple[str, int]:
        """The card's quote and its start: the sentence, after its antecedent when it has one."""
        return self.lead + self.text + self.trail, self.start - len(self.lead)

    @property
    def key(self) -> tuple:
        return (-self.relevance, self.hop, self.rank, self.source_id, self.start)


def _answer(candidates: list[_Candidate], ask: Ask, chain, documented, agreed: str) -> list[_Candidate]:
    """The answer cards: the chain, then in the Python documentation the best document's close sentences
    (`_near_best`) and a second document's best (`_runner_up`), each that stands alone quoting its paragraph's rest."""
    chain = list(chain or _chain(candidates, ask, documented, agreed))
    defined = {c.source_id for c in candidates if c.defined} | ({agreed} if agreed else set())
    chain = chain + _near_best(candidates, chain, documented, defined)
    chain = chain + _runner_up(candidates, chain, documented)
    # In the Python documentation an answer card quotes the rest of its sentence's paragraph (`_rest`), unless
    # it does not stand alone: the Summary never quotes it, so it must not take in sentences that it would quote.
    # The paragraph's rest joins only when the longer quote passes the screen the Reviewer runs on every cited
    # card's quote alone (`find_injections`): out of its document's context, a docstring's imperative summary
    # followed by more text ("Create a socket object from a duplicate of the given file descriptor.  The
    # remaining arguments are...") can read as a request, and the run would end `needs_human` over its own card.
    return [
        replace(c, trail=c.rest)
        if c.source_id in documented
        and c.rest
        and stands_alone(c.quote[0])
        and (find_injections(c.quote[0]) or not find_injections(c.quote[0] + c.rest))
        else c
        for c in chain
    ]


def _choose(
    candidates: list[_Candidate], chain: list[_Candidate], documented
) -> tuple[list[_Candidate], list[_Candidate], dict[str, int]]:
    """The cards to write, best first: the chain whole, then the best other candidates within the limits, one card
    per passage. Returns them, the chain (a card that took its antecedent's place stands in it) and the count per
    source."""
    chosen: list[_Candidate] = []
    per_source: dict[str, int] = {}
    hop2_taken = 0
    absorbed = 0  # answer cards left out because an answer card quoting its paragraph's rest holds them
    for cand in chain + [c for c in candidates if c not in chain]:
        if any(_within(cand, c) for c in chosen):
            # an answer sentence quoted as part of another's paragraph still counts as one of the cards written,
            # so quoting a paragraph whole makes no room for other documents' cards
            absorbed += cand in chain and any(_within(cand, c) and cand.start >= c.end for c in chosen)
            continue  # one card per passage: a quote inside a chosen card's says nothing more
        held = next((c for c in chosen if _within(c, cand)), None)
        if held is not None and cand.source_id in documented:
            # In the Python documentation a sentence quoted with its antecedent continues it (a docstring's
            # "The exceptions are then combined..."): its card takes the place of the antecedent's, in the chain
            # too. Elsewhere both are written (an encyclopedia's opening and a later fact are two facts).
            chosen[chosen.index(held)] = cand
            chain = [cand if c is held else c for c in chain]
            continue
        if cand in chain:
            pass  # the chain is written whole
        elif (
            len(chosen) + absorbed >= max(MAX_CARDS, len(chain)) or per_source.get(cand.source_id, 0) >= MAX_PER_SOURCE
        ):
            continue
        if cand.hop == 2 and cand not in chain and hop2_taken >= HOP2_CARDS:
            continue
        per_source[cand.source_id] = per_source.get(cand.source_id, 0) + 1
        hop2_taken += cand.hop == 2
        chosen.append(cand)
    chosen.sort(key=lambda c: c.key)
    return chosen, chain, per_source
