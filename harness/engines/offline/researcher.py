"""Offline Researcher: BM25 retrieval per question, a second hop for bridge entities, verbatim sentence cards.

A staged pipeline: retrieve → candidates (each scored, a `Score`) → select (`answer.SELECTORS`) → write, weighed by
the corpus's `RankingProfile`. A quote is copied from the snapshot, so it verifies verbatim.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from operator import attrgetter
from typing import Any

from harness.contract.cards import HIGH, LOW, MEDIUM
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
    own_sections,
    signed_sections,
    stands_alone,
    title_match,
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

_key = attrgetter("key")  # best first: `_Candidate.key`
CARD_HOOKS: list[Callable] = []  # a bench's (`bench_docs --verbose`): called with each branch's question id and answer


def _subject_term(term: str) -> str:
    """The specific part of a dotted name (asyncio.TaskGroup → TaskGroup): the package alone is too broad."""
    term = term.strip().strip("`").removesuffix("()")
    return term.rsplit(".", 1)[-1] if re.fullmatch(r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+", term) else term


def _summary(title: str, quote: str, question_id: str | None, via: str) -> str:
    """A card's summary as a sentence: the quote's first sentence (cut at a word near 200 characters)."""
    spans = split_sentences(quote)
    first = (quote[spans[0][0] : spans[0][1]] if spans else quote).strip()
    if len(first) > 200:
        first = first[:200].rsplit(" ", 1)[0].rstrip(",;:") + " …"
    if first and first[-1] not in ".!?…":
        first += "."
    return f'"{title}" says, for {question_id}{via}: {first or "see the quote."}'


@dataclass
class _Document:
    """What one retrieved document's sentences are judged with, read once per passage."""

    text: str
    spans: list[tuple[int, int]]  # its sentences
    docstring_ends: dict[int, int]  # where each docstring ends, by where its signature line starts
    flagged: list[tuple[int, int]]  # instruction-like text: never quoted
    in_doc: bool  # its title or path names the question's subject
    titled: float
    own: list[tuple[int, int]]  # the docstrings of a code name the question writes
    defined: bool
    opening: int  # its opening sentence
    profile: RankingProfile  # the corpus's (`_Branch.profile_of`)
    superseded: bool  # a deprecated module: its replacement, saying as much, is the better answer


class _Branch:
    """One research branch: its question, the sources it read (once each), its searches, its scored sentences."""

    def __init__(self, ctx: AgentContext, question: dict, profile: RankingProfile, meaning: Meaning):
        self.ctx, self.profile, self.meaning_model = ctx, profile, meaning
        terms = question.get("search_terms") or []
        topic_words = content_words(question["text"])
        # the subject: its first search term ("asyncio.TaskGroup"); the criteria: the other words it asks about
        self.subject = content_words(_subject_term(terms[0])) if terms else topic_words
        named = content_words(terms[0]) if terms else set()
        criteria = (topic_words | set().union(*map(criterion_words, question.get("criteria", [])))) - named
        self.criteria = (criteria - self.subject) or set(self.subject)  # a plain question asks about its subject
        self.queries = list(dict.fromkeys([*terms, " ".join(sorted(topic_words))] if terms else [question["text"]]))
        self.ask = Ask.of(question["text"], " ".join(question.get("criteria", [])))
        self.cache: dict[str, tuple[str, dict]] = {}
        self.landmarks: dict[str, tuple[list[tuple[int, int]], dict[int, int]]] = {}
        self.stopped: list[BudgetExhausted] = []
        self.find = step_search(ctx, question)  # the corpus, and the web when the plan allows it for this question
        # a chain of documents (`chain`) shares few of the question's words: each search looks further down
        self.k = profile.search_k * (profile.chain_k if about_names(self.ask) else 1)
        self.prior: dict[tuple[str, int], float] = {}  # a passage's retrieval score, as a share of its search's best
        self.meaning: dict[str, float] = {}
        self.seen_spans: set[tuple[str, int]] = set()

    def source(self, sid: str) -> tuple[str, dict]:
        if sid not in self.cache:  # read through the guarded context, once per source
            self.cache[sid] = (self.ctx.read_text(snapshot_path(sid)), self.ctx.read_json(source_record_path(sid)))
        return self.cache[sid]

    def profile_of(self, sid: str) -> RankingProfile:
        """The corpus's profile for a document of the corpus; ENCYCLOPEDIA for a web page or a tool's result."""
        return self.profile if "corpus" in self.source(sid)[1] else ENCYCLOPEDIA

    def landmarks_of(self, sid: str, text: str) -> tuple[list[tuple[int, int]], dict[int, int]]:
        """A source's sentences, and where each docstring ends by where it starts (found once per source)."""
        if sid not in self.landmarks:
            self.landmarks[sid] = (split_sentences(text), {a: b for _, a, b in signed_sections(text)})
        return self.landmarks[sid]

    def search(self, query: str) -> list:
        """One search; once the step's or role's budget is spent, none (the run's own budget still ends the run)."""
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
        """Hop 1: every query's hits with their ranks, and the document each search ranks first."""
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
        """Word rarity among the retrieved *documents* (not passages: one long document must not make its words look
        common), and, where the profile reads it, each document's closeness in meaning (`_about`)."""
        by_doc: dict[str, list[str]] = {}
        for _, hit in hop1:
            by_doc.setdefault(hit.source_id, []).append(hit.text)
        self.ask.weigh([" ".join(texts) for texts in by_doc.values()])
        titles = {hit.source_id: hit.title for _, hit in hop1}
        documented = [sid for sid in by_doc if self.profile_of(sid).document_meaning]
        about = {sid: _about(titles[sid], self.source(sid)[0]) for sid in documented}
        self.meaning = self.meaning_model.closeness(self.ask.text, about)  # {} when none is read for meaning

    def sentences(
        self, hit, rank: int, hop: int, screen: bool, bridge: str = "", seen: set[tuple[str, int]] | None = None
    ) -> list[_Candidate]:
        """The quotable sentences of a hit's passage as scored candidates, each once per `seen` (the branch's unless
        given); none when `screen` finds the passage not about the question's subject."""
        seen = self.seen_spans if seen is None else seen
        text, record = self.source(hit.source_id)
        doc_words = content_words(hit.title) | content_words(hit.path.replace("/", " "))
        if screen and not self.subject & (content_words(hit.text) | doc_words):
            return []  # the passage is not about the question's subject
        doc = self._document(hit, text, record, doc_words, bridge)
        spans = split_sentences(text, hit.start, hit.end)
        return [c for s0, e in spans if (c := self._candidate(doc, hit, rank, hop, screen, bridge, s0, e, seen))]

    def _document(self, hit, text: str, record: dict, doc_words: set[str], bridge: str) -> _Document:
        """How the hit's document stands to the question (or to the bridge it was found by): titled after what it
        names, or defining the code name it writes (its own docstring), or the module it opens by naming."""
        own = [] if bridge else own_sections(text, self.ask.code, hit.title)
        within = self.ask.within
        defined = not bridge and (
            bool(own) or bool(within and (hit.title.rsplit(": ", 1)[-1].lower() + ".").startswith(within + "."))
        )
        titled = max(self.ask.titled(hit.title, [bridge] if bridge else None), 1.0 if own else 0.0)
        profile = self.profile_of(hit.source_id)
        spans, docstring_ends = self.landmarks_of(hit.source_id, text)
        return _Document(
            text=text,
            spans=spans,
            docstring_ends=docstring_ends,
            flagged=flagged_spans(record, text),
            in_doc=bool(self.subject & doc_words),
            titled=titled,
            own=own,
            defined=defined,
            opening=_opening_sentence(text, hit.title),
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
            rest=text[e : _rest(text, doc.spans, s, e, flagged, doc.docstring_ends.get(lead, 0))]
            if doc.profile.rest
            else "",
        )

    def _relevance(
        self, doc: _Document, hit, s: int, lead: int, e: int, signed: bool, screen_score: float | None
    ) -> Score:
        """How well the sentence answers the question (`Ask.score`) and what its place adds, each a named term."""
        text, p = doc.text, doc.profile
        # a docstring's first sentence is scored with its signature line, and opens what the signature documents
        scored = text[lead:e] if signed else text[s:e]
        asked = self.ask.score(scored, hit.title, first=s == doc.opening or signed, titled=doc.titled)
        screened: tuple[tuple[str, float], ...] = ()
        if screen_score is not None:
            prior = self.prior.get((hit.source_id, hit.start), 0.0)
            screened = (("screen", 0.5 * min(screen_score, 1.5)), ("retrieved", p.retrieved * prior))
        penalty = (p.secondary if hit.kind == "secondary" else 0.0) + (p.flagged if hit.flagged else 0.0)
        said = p.sentence_meaning and self.meaning_model.sentence_encoder  # a sentence encoder's vectors only
        meaning = p.sentence_meaning * self.meaning_model.similarity(self.ask.text, scored) if said else 0.0
        return Score.of(
            (("ask", asked),),
            screened,
            (("secondary_or_flagged", -penalty),),
            (("own", p.own if any(a <= s < b for a, b in doc.own) else 0.0),),
            (("document_meaning", p.document_meaning * self.meaning.get(hit.source_id, 0.0)),),
            (("sentence_meaning", meaning),),
            (("superseded", -p.superseded if doc.superseded else 0.0),),
            # points back at text no card can quote with it
            (("dangling", -p.dangling if lead == s and not stands_alone(text[s:e]) else 0.0),),
        )

    def agreed(self, firsts: list[str]) -> str:
        """The document every search (two or more) ranks first, where the profile lets it lead; not a deprecated
        module, nor the retrieved document farthest in meaning (the words agree, the subject does not). "" if none."""
        agreed = firsts[0] if len(firsts) >= 2 and len(set(firsts)) == 1 and self.profile_of(firsts[0]).agreed else ""
        agreed = "" if agreed and deprecated(self.source(agreed)[0]) else agreed
        return agreed if self.meaning.get(agreed, 0.0) > 0.0 else ""


class OfflineResearcher:
    """The Researcher; `profile`: how its corpus is ranked (`profile.corpus_profile`), `meaning`: the run's model."""

    def __init__(self, spec=None, *, profile: RankingProfile = ENCYCLOPEDIA, meaning: MeaningModel | None = None):
        self.spec, self.profile = spec, profile
        self.meaning = Meaning(meaning or chosen_meaning())

    def run(self, brief: Brief, ctx: AgentContext) -> AgentResult:
        question = next(q for q in ctx.read_json(PLAN)["questions"] if q["id"] == brief.question_id)
        branch = _Branch(ctx, question, self.profile, self.meaning)
        hop1, firsts = branch.retrieve()
        candidates, doc_chain, profiled = self._candidates(branch, hop1)
        sel = Selection(
            candidates, branch.ask, self.profile, frozenset(profiled), branch.agreed(firsts), tuple(doc_chain)
        )
        # the answer (`select`) and the best other candidates (`_choose`) as cards; the answer's are `in_answer`
        chosen, chain, per_source = _choose(sel, select(sel))
        for cand in chosen:
            ctx.check_deadline()
            _record_card(brief, ctx, cand, cand in chain)
        for hook in CARD_HOOKS:
            hook(brief.question_id, chain)
        stopped = branch.stopped
        if not chosen:
            return AgentResult(
                BLOCKED,
                "no relevant passage",
                blocked_reason=f"no_evidence: no passage matched {', '.join(repr(q) for q in branch.queries[:4])}"
                + (f" (searches stopped at the limit: {stopped[0]})" if stopped else ""),
            )
        if {c.kind for c in chosen} == {"secondary"}:
            return AgentResult(
                BLOCKED,
                f"{len(chosen)} card(s), secondary sources only",
                blocked_reason="no_primary_source: only secondary sources address this question",
            )
        limit = f"; searches stopped at the limit ({stopped[0]})" if stopped else ""
        return AgentResult(COMPLETED, f"{len(chosen)} card(s) from {len(per_source)} source(s){limit}")

    def _candidates(self, branch: _Branch, hop1: list) -> tuple[list[_Candidate], list[_Candidate], set[str]]:
        """Every candidate sentence, best first (hop 1's passages, the docstrings that answer, hop 2's bridges, the
        documents' chain); returns them, the chain, and the quotable sources the corpus's profile ranks."""
        candidates = sorted((c for rank, hit in hop1 for c in branch.sentences(hit, rank, 1, screen=True)), key=_key)
        candidates = sorted(candidates + self._named_docstrings(branch, candidates, hop1), key=_key)
        candidates = sorted(candidates + self._second_hop(branch, candidates, hop1), key=_key)
        quotable = {hit.source_id for _, hit in hop1} | {c.source_id for c in candidates}
        profiled = {sid for sid in quotable if branch.profile_of(sid) is self.profile}
        chain = self._doc_chain(branch, candidates, hop1, set() if self.profile.documents_chain else profiled)
        candidates = sorted(candidates + [c for c in chain if c not in candidates], key=_key)
        if not chain and self.profile.one_copy:  # (the documents' chain's sentences are its documents' own)
            candidates = _one_copy(candidates, {sid: branch.source(sid)[0] for sid in profiled})
        return candidates, chain, profiled

    def _named_docstrings(self, branch: _Branch, ranked: list[_Candidate], hop1: list) -> list[_Candidate]:
        """The docstrings that answer, read whole (often where no search returned): a code name's the question writes
        (`os.walk`), and in the `answer_docs` best documents those whose name holds its words (`Ask.in_name`)."""
        first: dict[str, tuple[int, Any]] = {}
        for rank, hit in hop1:
            first.setdefault(hit.source_id, (rank, hit))
        best = list(dict.fromkeys(c.source_id for c in ranked if c.hop == 1))[: self.profile.answer_docs]
        out: list[_Candidate] = []
        for sid, (rank, hit) in first.items():
            text = branch.source(sid)[0]
            spans = own_sections(text, branch.ask.code, hit.title)
            if sid in best:
                spans += [(a, b) for _, a, b in signed_sections(text) if branch.ask.in_name(text[a:b])]
            for a, b in sorted(set(spans)):
                out += branch.sentences(replace(hit, start=a, end=b, text=text[a:b]), rank, 1, screen=True)
        return out

    def _second_hop(self, branch: _Branch, ranked: list[_Candidate], hop1: list) -> list[_Candidate]:
        """Hop 2: what the chain's hop-1 evidence (`_chain_start`) names and the question does not (a bridge), searched
        for unless it titles a hop-1 document (`max_bridges` searches at most); its document's sentences, best first."""
        bridges: list[str] = []
        for cand in _chain_start(ranked):
            for name in branch.ask.new_names(cand.text):
                if name not in bridges and not title_match(name, cand.title):
                    bridges.append(name)
        have = {c.source_id for c in ranked}
        out: list[_Candidate] = []
        searched = 0
        for name in bridges:
            if searched >= self.profile.max_bridges:
                break
            if any(title_match(name, hit.title) for _, hit in hop1):
                continue  # already found by hop 1
            searched += 1
            for rank, hit in enumerate(branch.search(name)):
                if title_match(name, hit.title) and hit.source_id not in have:
                    out.extend(branch.sentences(hit, rank, 2, screen=False, bridge=name))
        return sorted(out, key=_key)

    @staticmethod
    def _doc_chain(branch: _Branch, candidates: list[_Candidate], hop1: list, documented: set) -> list[_Candidate]:
        """The answer's chain among documents (`chain.py`), from each retrieved passage's sentences unscreened (a
        bridge's page need not repeat the question's words), the `documented` sources left out."""
        if not about_names(branch.ask):
            return []
        known = {(c.source_id, c.start): c for c in candidates}
        pool: dict[str, list[_Candidate]] = {}
        seen: set[tuple[str, int]] = set()
        for rank, hit in hop1:
            if hit.source_id in documented:
                continue
            for c in branch.sentences(hit, rank, 1, screen=False, seen=seen):
                pool.setdefault(c.source_id, []).append(known.get((c.source_id, c.start), c))
        for c in candidates:
            if c.hop == 2 and c.source_id not in documented:
                pool.setdefault(c.source_id, []).append(c)
        for cands in pool.values():
            cands.sort(key=lambda c: c.start)
        return chain_sentences(branch.ask, pool, chain_docs(branch.ask, pool))


def _record_card(brief: Brief, ctx: AgentContext, cand: _Candidate, answer: bool) -> None:
    """One card, through the evidence service (which copies the quote and its span from the snapshot); an answer
    card is `in_answer`, with confidence high."""
    limitations = ["secondary source"] if cand.kind == "secondary" else []
    if cand.flagged:
        limitations.append("the source contains instruction-like text (flagged for review)")
    quote, start = cand.quote
    via = f" (found by searching for {cand.bridge!r}, named by hop-1 evidence)" if cand.hop == 2 else ""
    ctx.services.record_evidence(
        cand.source_id,
        quote,
        _summary(cand.title, quote, brief.question_id, via),
        HIGH if answer else MEDIUM if cand.relevance >= 0.6 else LOW,
        limitations,
        hint=start,
        hop=cand.hop,
        in_answer=answer,
    )
