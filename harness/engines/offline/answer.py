"""The answer among the offline Researcher's ranked candidates: the selectors (`SELECTORS`: the chain, `_near_best`,
`_runner_up`, `_with_rest`), each a pure function of a `Selection`, and the cards chosen to write (`_choose`)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from harness.engines.offline.passages import _flat, _section_of
from harness.engines.offline.profile import ENCYCLOPEDIA, RankingProfile, Score
from harness.engines.offline.ranking import Ask, entities, has_type, stands_alone, title_match, title_words
from harness.evidence.lexical import content_words
from harness.sources.injection import find_injections

BRIDGE_FROM = 2  # the best sentences of each chain-start document whose named things are bridge candidates


@dataclass(frozen=True)
class Selection:
    """What the selectors read; `profiled`: the sources the profile ranks (the corpus's, not a web page's)."""

    ranked: list
    ask: Ask
    profile: RankingProfile = ENCYCLOPEDIA
    profiled: frozenset[str] = frozenset()
    agreed: str = ""
    doc_chain: tuple = ()

    def ruled(self, sid: str, switch: object) -> bool:
        """Does the profile's rule (`switch`, on when truthy) apply to this source?"""
        return bool(switch) and sid in self.profiled


def _chain_start(ranked: list) -> list:
    """Where the answer's chain starts: the BRIDGE_FROM best sentences of each hop-1 document titled after something
    the question names, or else the best sentence found."""
    count: dict[str, int] = {}
    out = []
    for c in ranked:
        if c.titled and c.hop == 1:
            count[c.source_id] = count.get(c.source_id, 0) + 1
            out += [c] if count[c.source_id] <= BRIDGE_FROM else []
    return out or ranked[:1]


def _named_best(ranked: list, agreed: str = "") -> list:
    """The answer's one sentence: the best of the document fully titled after what the question names, else of the
    `agreed` document, else the best found (a half name already adds to its sentences' scores: `ranking.TITLED`)."""
    top = max((c.titled for c in ranked if c.hop == 1), default=0.0)
    if top >= 1:
        return [next(c for c in ranked if c.hop == 1 and c.titled == top)]
    lead = next((c for c in ranked if c.hop == 1 and c.source_id == agreed and c.titled == top), None)
    return [lead or ranked[0]] if ranked else []


def _near_best(sel: Selection, chain: list) -> list:
    """More of the answer (one docstring sentence rarely says it all): the best document's (or the chain's defined or
    agreed one's) other sentences scoring `near` × its best, up to `near_best` of it in all."""
    ranked, p = sel.ranked, sel.profile
    if not ranked or not sel.ruled(ranked[0].source_id, p.near_best):
        return chain
    top = ranked[0]
    defined = {c.source_id for c in ranked if c.defined} | ({sel.agreed} if sel.agreed else set())
    named = next((c for c in chain if c.source_id in defined and c.hop == 1), None)
    if named is not None and named.source_id in sel.profiled:
        top = next(c for c in ranked if c.source_id == named.source_id)
    have = sum(c.source_id == top.source_id for c in chain)
    near = [
        c for c in ranked if c.source_id == top.source_id and c not in chain and c.relevance >= p.near * top.relevance
    ]
    return chain + near[: max(0, p.near_best - have)]


def _runner_up(sel: Selection, chain: list) -> list:
    """The best sentence of a second document scoring at least `runner_up` × the answer's (`queue` and
    `asyncio.queues` both answer): missing the one that answers costs more than a citation too many."""
    if not chain or not sel.ruled(chain[0].source_id, sel.profile.runner_up) or chain[0].relevance <= 0:
        return chain
    docs = {c.source_id for c in chain}
    others = [c for c in sel.ranked if c.hop == 1 and c.source_id not in docs and c.source_id in sel.profiled]
    return chain + others[:1] if others and others[0].relevance >= sel.profile.runner_up * chain[0].relevance else chain


def _one_copy(ranked: list, texts: dict[str, str]) -> list:
    """A sentence a section (`topics/try`) and its chapter (`topics/compound`) both hold is quoted from one copy:
    the section's, unless the chapter's own sentences rank above all of the section's. Only sources in `texts`."""
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
    """The documents the question names: for each named thing, the hop-1 documents whose titles match it best."""
    out: list[str] = []
    for name in ask.names:
        scores = {c.source_id: title_match(name, c.title) for c in ranked if c.hop == 1}
        top = max(scores.values(), default=0.0)
        out += [sid for sid, v in scores.items() if top > 0 and v == top and sid not in out]
    return out


def _chain(sel: Selection, chain: list) -> list:
    """The answer's chain: the documents' chain, else the best pair (a, b) of documents that name each other (or the
    question names both) where b adds `pair_min` against the rest of the question, else `_named_best`."""
    ranked, ask, p = sel.ranked, sel.ask, sel.profile
    if chain or sel.doc_chain:
        return [*chain, *sel.doc_chain]
    if not ranked:
        return []
    documented = frozenset() if p.documents_chain else sel.profiled
    by_doc: dict[str, list] = {}
    for c in ranked:
        by_doc.setdefault(c.source_id, []).append(c)
    pool = [c for sid, cands in by_doc.items() if sid not in documented for c in cands[: p.pair_from]]
    words = {id(c): content_words(c.text) | content_words(c.title) for c in pool}
    names = {id(c): entities(c.text) for c in pool}
    asked = set(_start_docs(ranked, ask)) | {
        sid for sid, cands in by_doc.items() if _mentions(ask.text, cands[0].title)
    }

    def link(c, title: str) -> float:
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
            added = rest.score(b.text, b.title, first=b.first) + p.pair_link * linked
            if a.relevance + added > best[0]:
                best = (a.relevance + added, added, a, b)
    chain = list(best[2:]) if best[2] is not None and best[1] >= p.pair_min else _named_best(ranked, sel.agreed)
    docs = {c.source_id for c in chain}
    more: list = []
    if not any(has_type(c.text, ask.kind, ask.text) for c in chain):
        # the asked-for kind of answer (a date, a name...) is in no link: the chain documents' best that has one joins
        more = [c for c in ranked if c.source_id in docs and c not in chain and has_type(c.text, ask.kind, ask.text)]
    return sorted(chain + more[: p.chain_more], key=lambda c: c.key)


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
    score: Score | None = field(default=None, compare=False)  # its relevance's named terms

    @property
    def quote(self) -> tuple[str, int]:
        """The card's quote and its start: the sentence, after its antecedent when it has one."""
        return self.lead + self.text + self.trail, self.start - len(self.lead)

    @property
    def key(self) -> tuple:
        return (-self.relevance, self.hop, self.rank, self.source_id, self.start)


def _with_rest(sel: Selection, chain: list) -> list:
    """Each answer card that stands alone quotes the rest of its paragraph (`rest`), when the longer quote still
    passes the Reviewer's injection screen (an imperative summary with more text can read as a request)."""
    return [
        replace(c, trail=c.rest)
        if sel.ruled(c.source_id, sel.profile.rest)
        and c.rest
        and stands_alone(c.quote[0])
        and (find_injections(c.quote[0]) or not find_injections(c.quote[0] + c.rest))
        else c
        for c in chain
    ]


# The answer, selector by selector: each a pure function of the selection and the answer so far.
SELECTORS = (("chain", _chain), ("near_best", _near_best), ("runner_up", _runner_up), ("rest", _with_rest))


def select(sel: Selection) -> list:
    """The answer cards: the chain, then what the profile lets join it."""
    chain: list = []
    for _, selector in SELECTORS:
        chain = selector(sel, chain)
    return chain


def _choose(sel: Selection, chain: list[_Candidate]) -> tuple[list[_Candidate], list[_Candidate], dict[str, int]]:
    """The cards to write, best first: the chain whole, then the best others within the limits, one card per
    passage; with the chain (where a card took its antecedent's place) and the count per source."""
    candidates, p = sel.ranked, sel.profile
    chosen: list[_Candidate] = []
    per_source: dict[str, int] = {}
    hop2_taken = 0
    absorbed = 0  # answer cards left out because an answer card quoting its paragraph's rest holds them
    for cand in chain + [c for c in candidates if c not in chain]:
        if any(_within(cand, c) for c in chosen):
            # an answer sentence inside another's paragraph still counts, so a whole paragraph makes no room
            absorbed += cand in chain and any(_within(cand, c) and cand.start >= c.end for c in chosen)
            continue  # one card per passage: a quote inside a chosen card's says nothing more
        held = next((c for c in chosen if _within(c, cand)), None)
        if held is not None and sel.ruled(cand.source_id, p.continues):
            # A sentence quoted with its antecedent continues it: its card takes the antecedent's place.
            chosen[chosen.index(held)] = cand
            chain = [cand if c is held else c for c in chain]
            continue
        full = len(chosen) + absorbed >= max(p.max_cards, len(chain)) or cand.hop == 2 and hop2_taken >= p.hop2_cards
        if cand not in chain and (full or per_source.get(cand.source_id, 0) >= p.max_per_source):
            continue  # the chain is written whole
        per_source[cand.source_id] = per_source.get(cand.source_id, 0) + 1
        hop2_taken += cand.hop == 2
        chosen.append(cand)
    chosen.sort(key=lambda c: c.key)
    return chosen, chain, per_source
