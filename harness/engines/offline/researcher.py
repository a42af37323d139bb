"""Offline Researcher: BM25 retrieval per question, a second hop for bridge entities, verbatim sentence cards.

A staged pipeline (`OfflineResearcher.run`): retrieve (hop 1: the question's searches) → candidates (each hit's
quotable prose sentences about the question's subject or criteria, the docstrings a question names read whole, hop
2's bridges: a name the best evidence gives for what the question only describes, searched for) → score (each
sentence's `Score`: `ranking.Ask` and what its place adds) → select (`answer.SELECTORS`: the answer's chain, and
what the profile lets join it) → write (`answer._choose`, then one card each through the evidence service, the
answer's `in_answer`). Every weight and switch is the corpus's `RankingProfile`, chosen by what its text is.

A quote is copied from the stored snapshot with its offsets, so it verifies verbatim; never inside text flagged as
instruction-like, nor one that cannot stand alone (`evidence/standalone.py`). No relevant sentence: the branch is
blocked; only secondary sources: blocked with that reason. When the step's or its role's search budget runs out,
the Researcher writes cards from the hits it has (the run's own budget still ends the run).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from harness.contract.cards import HIGH, LOW, MEDIUM, Confidence
from harness.contract.layout import PLAN, snapshot_path, source_record_path
from harness.contract.meaning import MeaningModel, chosen_meaning
from harness.contract.statuses import BLOCKED, COMPLETED
from harness.engines.offline.answer import Selection, _Candidate, _chain_start, _choose, _one_copy, select
from harness.engines.offline.chain import about_names, chain_docs, chain_sentences
from harness.engines.offline.passages import _about, _lead, _opening_sentence, _quotable, _rest
from harness.engines.offline.profile import ENCYCLOPEDIA, RankingProfile, Score
from harness.engines.offline.ranking import (
    Ask,
    criterion_words,
    names_match,
    own_sections,
    signed_sections,
    stands_alone,
)
from harness.engines.offline.semantic import Meaning
from harness.engines.offline.web_research import step_search
from harness.errors import BudgetExhausted
from harness.evidence.lexical import content_words
from harness.evidence.standalone import not_standalone
from harness.runtime.context import AgentContext
from harness.runtime.interface import AgentResult, Brief
from harness.sources.injection import flagged_spans
from harness.sources.pythondocs import deprecated
from harness.sources.sentences import split_sentences
from harness.sources.tokens import tokenize


def _subject_term(term: str) -> str:
    """The specific part of a dotted name (asyncio.TaskGroup → TaskGroup): the package alone is too broad."""
    term = term.strip().strip("`").removesuffix("()")
    return term.rsplit(".", 1)[-1] if re.fullmatch(r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+", term) else term


def _summary(title: str, quote: str, question_id: str | None, via: str) -> str:
    """A card's summary as a sentence: what the document says for the question, in its own first sentence of the
    quote (cut at a word near 200 characters), not a list of the question's words it shares."""
    spans = split_sentences(quote)
    first = (quote[spans[0][0] : spans[0][1]] if spans else quote).strip()
    if len(first) > 200:
        first = first[:200].rsplit(" ", 1)[0].rstrip(",;:") + " …"
    if first and first[-1] not in ".!?…":
        first += "."
    return f'"{title}" says, for {question_id}{via}: {first or "see the quote."}'


def _confidence(relevance: float) -> Confidence:
    if relevance >= 0.6:
        return MEDIUM
    return LOW


@dataclass
class _Document:
    """What one retrieved document's sentences are judged with, read once per passage: how it stands to the
    question (titled after, or defining, what it names), where its text may not be quoted, and its landmarks."""

    text: str
    spans: list[tuple[int, int]]  # its sentences
    flagged: list[tuple[int, int]]  # instruction-like text: never quoted
    in_doc: bool  # its title or path names the question's subject
    titled: float
    own: list[tuple[int, int]]  # the docstrings of a code name the question writes
    defined: bool
    opening: int  # its opening sentence
    profile: RankingProfile  # the corpus's (`_Branch.profile_of`)
    superseded: bool  # a deprecated module: its replacement, saying as much, is the better answer


class _Branch:
    """One research branch's reading of the corpus: its question (the subject, the criteria, the queries), the
    sources read through the guarded context (once each), its searches (stopped once its budget is spent), and the
    sentences of a passage as scored candidates."""

    def __init__(self, ctx: AgentContext, question: dict, profile: RankingProfile, meaning: Meaning):
        self.ctx, self.profile, self.meaning_model = ctx, profile, meaning
        terms = question.get("search_terms") or []
        topic_words = content_words(question["text"])
        # The subject is what the question is about (its first search term, e.g. "asyncio.TaskGroup");
        # the criteria are the other words it asks about ("error handling", "cancellation").
        self.subject = content_words(_subject_term(terms[0])) if terms else topic_words
        criteria = (topic_words | set().union(*map(criterion_words, question.get("criteria", [])))) - content_words(
            terms[0] if terms else ""
        )
        self.criteria = (criteria - self.subject) or set(self.subject)  # a plain question asks about its subject
        self.queries = list(dict.fromkeys([*terms, " ".join(sorted(topic_words))] if terms else [question["text"]]))
        self.ask = Ask.of(question["text"], " ".join(question.get("criteria", [])))
        self.cache: dict[str, tuple[str, dict]] = {}
        self.sentence_spans: dict[str, list[tuple[int, int]]] = {}
        self.docstring_ends: dict[str, dict[int, int]] = {}
        self.stopped: list[BudgetExhausted] = []
        self.find = step_search(ctx, question)  # the corpus, and the web when the plan allows it for this question
        # A question about named things may take a chain of documents: the one it describes and the one that
        # document names (`chain`), which shares few of its words; each search looks further down the ranking.
        self.k = profile.search_k * (profile.chain_k if about_names(self.ask) else 1)
        self.prior: dict[tuple[str, int], float] = {}  # a passage's retrieval score, as a share of its search's best
        self.meaning: dict[str, float] = {}
        self.seen_spans: set[tuple[str, int]] = set()

    def source(self, sid: str) -> tuple[str, dict]:
        if sid not in self.cache:  # read through the guarded context, once per source
            self.cache[sid] = (self.ctx.read_text(snapshot_path(sid)), self.ctx.read_json(source_record_path(sid)))
        return self.cache[sid]

    def profile_of(self, sid: str) -> RankingProfile:
        """The profile a source's sentences are ranked by: the corpus's, for a document of the corpus; ENCYCLOPEDIA
        (every documentation rule off) for a web page or a tool's result."""
        return self.profile if "corpus" in self.source(sid)[1] else ENCYCLOPEDIA

    def doc_sentences(self, sid: str, text: str) -> list[tuple[int, int]]:
        if sid not in self.sentence_spans:
            self.sentence_spans[sid] = split_sentences(text)
        return self.sentence_spans[sid]

    def docstrings(self, sid: str, text: str) -> dict[int, int]:
        """Where each docstring (from its signature line) ends, by where it starts."""
        if sid not in self.docstring_ends:
            self.docstring_ends[sid] = {a: b for _, a, b in signed_sections(text)}
        return self.docstring_ends[sid]

    def search(self, query: str) -> list:
        """One search. Once this step's or its role's search budget is spent, no further search is made and the
        branch goes on with the hits it has; the run's own budget still ends the run."""
        if self.stopped or not tokenize(query):
            return []  # spent, or a query of nothing but stopwords and marks ("B.B.A" → no term): nothing to find
        try:
            return self.find(query, self.k)
        except BudgetExhausted as exc:
            if exc.scope == "run":
                raise
            self.stopped.append(exc)
            return []

    def retrieve(self) -> tuple[list, list[str]]:
        """Hop 1: every query searched, each hit kept with its rank (and its score as a share of its search's best);
        returns the hits and the document each search ranks first, the question's words weighed (`_weigh`)."""
        hop1: list = []
        firsts: list[str] = []  # the document each search ranks first
        for query in self.queries:
            hits = self.search(query)
            firsts += [hits[0].source_id] if hits else []
            top = max((h.score for h in hits), default=0.0) or 1.0
            for rank, hit in enumerate(hits):
                hop1.append((rank, hit))
                key = (hit.source_id, hit.start)
                self.prior[key] = max(self.prior.get(key, 0.0), hit.score / top)
        if not hop1 and self.stopped:
            raise self.stopped[0]  # not one search made: the step ends on its limit (blocked, the limit as its reason)
        self._weigh(hop1)
        return hop1, firsts

    def _weigh(self, hop1: list) -> None:
        """Rarity among the retrieved *documents* (the many passages of the one document about the question must
        not make its words look common), and, where the profile reads it, each document's closeness in meaning to
        the question, judged on its title, opening and the names it documents (`_about`)."""
        by_doc: dict[str, list[str]] = {}
        for _, hit in hop1:
            by_doc.setdefault(hit.source_id, []).append(hit.text)
        self.ask.weigh([" ".join(texts) for texts in by_doc.values()])
        titles = {hit.source_id: hit.title for _, hit in hop1}
        documented = [sid for sid in by_doc if self.profile_of(sid).document_meaning]
        if documented:
            about = {sid: _about(titles[sid], self.source(sid)[0]) for sid in documented}
            self.meaning = self.meaning_model.closeness(self.ask.text, about)

    def sentences(
        self, hit, rank: int, hop: int, screen: bool, bridge: str = "", seen: set[tuple[str, int]] | None = None
    ) -> list[_Candidate]:
        """The quotable sentences of a hit's passage as candidates, scored; none when `screen` finds the passage not
        about the question's subject. A sentence is taken once per `seen` (the branch's, unless given)."""
        seen = self.seen_spans if seen is None else seen
        text, record = self.source(hit.source_id)
        doc_words = content_words(hit.title) | content_words(hit.path.replace("/", " "))
        if screen and not self.subject & (content_words(hit.text) | doc_words):
            return []  # the passage is not about the question's subject
        doc = self._document(hit, text, record, doc_words, bridge)
        out = []
        for s0, e in split_sentences(text, hit.start, hit.end):
            cand = self._candidate(doc, hit, rank, hop, screen, bridge, s0, e, seen)
            if cand is not None:
                out.append(cand)
        return out

    def _document(self, hit, text: str, record: dict, doc_words: set[str], bridge: str) -> _Document:
        """How the hit's document stands to the question (or to the bridge it was found by)."""
        # Its document is about what the question names: titled after it, or defining the code name it writes.
        titled = self.ask.titled(hit.title, [bridge] if bridge else None)
        # the named function's or class's own docstring: where it has one, the document defines the name
        own = own_sections(text, self.ask.code, hit.title) if not bridge else []
        defined = False
        if not bridge:
            within = self.ask.within
            defined = bool(own) or bool(
                within and (hit.title.rsplit(": ", 1)[-1].lower() + ".").startswith(within + ".")
            )
            titled = max(titled, 1.0 if own else 0.0)
        profile = self.profile_of(hit.source_id)
        return _Document(
            text=text,
            spans=self.doc_sentences(hit.source_id, text),
            flagged=flagged_spans(record, text),
            in_doc=bool(self.subject & doc_words),
            titled=titled,
            own=own,
            defined=defined,
            opening=_opening_sentence(text),
            profile=profile,
            superseded=bool(profile.superseded) and deprecated(text),
        )

    def _candidate(
        self, doc: _Document, hit, rank: int, hop: int, screen: bool, bridge: str, s0: int, e: int, seen: set
    ) -> _Candidate | None:
        """The sentence at s0..e as a candidate: None when it cannot be quoted, was taken already, or (screened) is
        not about the question's subject or criteria."""
        text, flagged = doc.text, doc.flagged
        quotable = _quotable(text, flagged, hit.source_id, s0, e, seen)
        if quotable is None:
            return None
        s, lead, signed = quotable
        seen.add((hit.source_id, s))
        # "For instance, ..." / "His ...": its card quotes what it points back to (`_lead`).
        if lead == s:
            lead = _lead(text, doc.spans, s, e, flagged)
        if not_standalone(text, lead, e, hit.title):
            return None  # a question, heading, narration or unresolved reference: never a card's whole quote
        words = content_words(text[s:e])
        screen_score = (len(self.criteria & words) / len(self.criteria) if self.criteria else 0.0) + (
            0.5 if self.subject & words else 0.25 if doc.in_doc else 0.0
        )
        if screen and screen_score < self.profile.min_score and not doc.titled:
            return None
        score = self._relevance(doc, hit, s, lead, e, signed, screen_score if screen else None)
        return _Candidate(
            relevance=score.total,
            score=score,
            rank=rank,
            source_id=hit.source_id,
            start=s,
            end=e,
            kind=hit.kind,
            title=hit.title,
            flagged=hit.flagged,
            hop=hop,
            text=text[s:e],
            bridge=bridge,
            first=s == doc.opening,
            titled=doc.titled,
            defined=doc.defined,
            lead=text[lead:s],
            rest=text[e : _rest(text, doc.spans, s, e, flagged, self.docstrings(hit.source_id, text).get(lead, 0))]
            if doc.profile.rest
            else "",
        )

    def _relevance(
        self, doc: _Document, hit, s: int, lead: int, e: int, signed: bool, screen_score: float | None
    ) -> Score:
        """How well the sentence answers the question (`Ask.score`), with what its place adds: the screen's score and
        its passage's retrieval score (hop 1), a code name's own docstring, its document's meaning and its own (by the
        profile's weights), less a secondary, flagged, superseded or dangling sentence's penalty. Each a named term."""
        text, p = doc.text, doc.profile
        # a docstring's first sentence is scored with its signature line: the name says what it documents
        scored = text[lead:e] if signed else text[s:e]
        # ... and it opens what its signature documents, as a module's opening sentence opens the module
        asked = self.ask.score(scored, hit.title, first=s == doc.opening or signed, titled=doc.titled)
        screened = (
            (
                ("screen", 0.5 * min(screen_score, 1.5)),
                ("retrieved", p.retrieved * self.prior.get((hit.source_id, hit.start), 0.0)),
            )
            if screen_score is not None
            else ()
        )
        penalty = (p.secondary if hit.kind == "secondary" else 0.0) + (p.flagged if hit.flagged else 0.0)
        # what the sentence itself says, in meaning (a sentence encoder's only)
        said = p.sentence_meaning and self.meaning_model.sentence_encoder
        return Score.of(
            (("ask", asked),),
            screened,
            (("secondary_or_flagged", -penalty),),
            (("own", p.own if any(a <= s < b for a, b in doc.own) else 0.0),),
            (("document_meaning", p.document_meaning * self.meaning.get(hit.source_id, 0.0)),),
            (
                (
                    "sentence_meaning",
                    p.sentence_meaning * self.meaning_model.similarity(self.ask.text, scored) if said else 0.0,
                ),
            ),
            (("superseded", -p.superseded if doc.superseded else 0.0),),
            # points back at text no card can quote with it
            (("dangling", -p.dangling if lead == s and not stands_alone(text[s:e]) else 0.0),),
        )

    def agreed(self, firsts: list[str]) -> str:
        """The document every search ranks first, when there are two searches or more and the profile lets it lead
        (`agreed`); not a deprecated module, whose replacement still answers better, nor the retrieved document
        farthest in meaning (closeness 0): there the words agree, the subject does not. "" when none."""
        agreed = firsts[0] if len(firsts) >= 2 and len(set(firsts)) == 1 and self.profile_of(firsts[0]).agreed else ""
        agreed = "" if agreed and deprecated(self.source(agreed)[0]) else agreed
        return agreed if self.meaning.get(agreed, 0.0) > 0.0 else ""


class OfflineResearcher:
    """The Researcher as a staged pipeline: `retrieve` (hop 1's searches), `candidates` (every quotable sentence,
    each scored as it is read: `_Branch._relevance`, a `Score`), `select` (`answer.SELECTORS`) and `write` (the cards).
    `profile`: how its corpus is ranked (`profile.corpus_profile`, by what the text is); `meaning`: the run's model."""

    def __init__(self, spec=None, *, profile: RankingProfile = ENCYCLOPEDIA, meaning: MeaningModel | None = None):
        self.spec, self.profile = spec, profile
        self.meaning = Meaning(meaning or chosen_meaning())

    def run(self, brief: Brief, ctx: AgentContext) -> AgentResult:
        plan = ctx.read_json(PLAN)
        question = next(q for q in plan["questions"] if q["id"] == brief.question_id)
        branch = _Branch(ctx, question, self.profile, self.meaning)
        hop1, firsts = branch.retrieve()
        candidates, doc_chain, profiled = self._candidates(branch, hop1)
        sel = Selection(
            candidates, branch.ask, self.profile, frozenset(profiled), branch.agreed(firsts), tuple(doc_chain)
        )
        written, per_source, kinds = self._write_cards(brief, ctx, sel)
        stopped = branch.stopped
        if not written:
            return AgentResult(
                BLOCKED,
                "no relevant passage",
                blocked_reason=f"no_evidence: no passage matched {', '.join(repr(q) for q in branch.queries[:4])}"
                + (f" (searches stopped at the limit: {stopped[0]})" if stopped else ""),
            )
        if kinds == {"secondary"}:
            return AgentResult(
                BLOCKED,
                f"{written} card(s), secondary sources only",
                blocked_reason="no_primary_source: only secondary sources address this question",
            )
        limit = f"; searches stopped at the limit ({stopped[0]})" if stopped else ""
        return AgentResult(COMPLETED, f"{written} card(s) from {len(per_source)} source(s){limit}")

    def _candidates(self, branch: _Branch, hop1: list) -> tuple[list[_Candidate], list[_Candidate], set[str]]:
        """Every candidate sentence, best first: hop 1's passages, the docstrings that answer read whole, hop 2's
        bridges and the documents' chain; returns them, the chain, and the sources among those a card may quote (hop
        2 included) that the corpus's profile ranks."""
        source, sentences, ask = branch.source, branch.sentences, branch.ask
        candidates = [c for rank, hit in hop1 for c in sentences(hit, rank, 1, screen=True)]
        candidates.sort(key=lambda c: c.key)
        candidates += self._named_docstrings(ask, candidates, hop1, source, sentences, self.profile.answer_docs)
        candidates.sort(key=lambda c: c.key)
        seen_titles = {hit.source_id: hit.title for _, hit in hop1}
        candidates += self._second_hop(ask, candidates, seen_titles, branch.search, sentences, self.profile.max_bridges)
        candidates.sort(key=lambda c: c.key)
        # every source a card may quote, hop 2 included, by the same test as hop 1's meaning
        quotable = {hit.source_id for _, hit in hop1} | {c.source_id for c in candidates}
        profiled = {sid for sid in quotable if branch.profile_of(sid) is self.profile}
        chain = self._doc_chain(ask, candidates, hop1, sentences, set() if self.profile.documents_chain else profiled)
        candidates += [c for c in chain if c not in candidates]
        candidates.sort(key=lambda c: c.key)
        if not chain and self.profile.one_copy:  # (the documents' chain's sentences are its documents' own)
            candidates = _one_copy(candidates, {sid: source(sid)[0] for sid in profiled})
        return candidates, chain, profiled

    @staticmethod
    def _named_docstrings(
        ask: Ask, ranked: list[_Candidate], hop1: list, source, sentences, n: int
    ) -> list[_Candidate]:
        """The docstrings that answer, read whole (the answer is often where no search returned): in every
        retrieved document, the own documentation of a code name the question writes (`os.walk`: the `def walk(`
        docstring); in the `n` best documents, each function or class whose name holds the question's words
        (`Ask.in_name`). Their sentences are candidates like any other, without a retrieval score."""
        first: dict[str, tuple[int, Any]] = {}
        for rank, hit in hop1:
            first.setdefault(hit.source_id, (rank, hit))
        best = list(dict.fromkeys(c.source_id for c in ranked if c.hop == 1))[:n]
        out: list[_Candidate] = []
        for sid, (rank, hit) in first.items():
            text = source(sid)[0]
            spans = own_sections(text, ask.code, hit.title)
            if sid in best:
                spans += [(a, b) for _, a, b in signed_sections(text) if ask.in_name(text[a:b])]
            for a, b in sorted(set(spans)):
                out += sentences(replace(hit, start=a, end=b, text=text[a:b]), rank, 1, screen=True)
        return out

    @staticmethod
    def _second_hop(ask: Ask, ranked: list[_Candidate], seen_titles: dict[str, str], search, sentences, n: int):
        """The bridges: things the chain's hop-1 evidence (`_chain_start`) names that the question does not. A
        document titled after a bridge joins: one found already stays hop 1; otherwise the bridge is searched for
        (at most `n` searches) and its document's sentences come as hop 2. Returns them, best first."""
        bridges: list[str] = []
        for cand in _chain_start(ranked):
            for name in ask.new_names(cand.text):
                if name not in bridges and not names_match(name, cand.title):
                    bridges.append(name)
        have = {c.source_id for c in ranked}
        out: list[_Candidate] = []
        searched = 0
        for name in bridges:
            if searched >= n:
                break
            if any(names_match(name, title) for title in seen_titles.values()):
                continue  # already found by hop 1
            searched += 1
            for rank, hit in enumerate(search(name)):
                if names_match(name, hit.title) and hit.source_id not in have:
                    out.extend(sentences(hit, rank, 2, screen=False, bridge=name))
        out.sort(key=lambda c: c.key)
        return out

    @staticmethod
    def _doc_chain(
        ask: Ask, candidates: list[_Candidate], hop1: list, sentences, documented=frozenset()
    ) -> list[_Candidate]:
        """The answer's chain chosen among documents (`chain.chain_docs`): every prose sentence of each retrieved
        document's passages, unscreened (a bridge's own page need not repeat the question's words), and the chain
        documents' answer-bearing sentences (`chain.chain_sentences`); [] when no two documents lead to each other
        or the question is not about named things. A sentence already a candidate keeps its candidate. The
        `documented` sources (a profile without `documents_chain`: a reference names its modules everywhere, so a
        link says nothing) are left out of the pool."""
        if not about_names(ask):
            return []
        known = {(c.source_id, c.start): c for c in candidates}
        pool: dict[str, list[_Candidate]] = {}
        seen: set[tuple[str, int]] = set()
        for rank, hit in hop1:
            if hit.source_id in documented:
                continue
            for c in sentences(hit, rank, 1, screen=False, seen=seen):
                pool.setdefault(c.source_id, []).append(known.get((c.source_id, c.start), c))
        for c in candidates:
            if c.hop == 2 and c.source_id not in documented:
                pool.setdefault(c.source_id, []).append(c)
        for cands in pool.values():
            cands.sort(key=lambda c: c.start)
        return chain_sentences(ask, pool, chain_docs(ask, pool))

    @staticmethod
    def _write_cards(brief: Brief, ctx: AgentContext, sel: Selection):
        """The answer (`select`: the chain and what the profile lets join it) and then the best other candidates as
        cards (`_choose`: within the profile's limits, one card per passage); the answer's cards are `in_answer`."""
        chosen, chain, per_source = _choose(sel, select(sel))
        kinds: set[str] = set()
        for cand in chosen:
            ctx.check_deadline()
            _record_card(brief, ctx, cand, cand in chain)
            kinds.add(cand.kind)
        return len(chosen), per_source, kinds


def _record_card(brief: Brief, ctx: AgentContext, cand: _Candidate, answer: bool) -> None:
    """One card, through the evidence service: the harness names it and copies the quote and its span from the
    snapshot, as for every engine. An answer card is `in_answer`, with confidence high; another's follows its relevance."""
    limitations = []
    if cand.kind == "secondary":
        limitations.append("secondary source")
    if cand.flagged:
        limitations.append("the source contains instruction-like text (flagged for review)")
    quote, start = cand.quote
    via = f" (found by searching for {cand.bridge!r}, named by hop-1 evidence)" if cand.hop == 2 else ""
    ctx.services.record_evidence(
        cand.source_id,
        quote,
        _summary(cand.title, quote, brief.question_id, via),
        HIGH if answer else _confidence(cand.relevance),
        limitations,
        hint=start,
        hop=cand.hop,
        in_answer=answer,
    )
