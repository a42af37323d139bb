"""Offline Researcher: BM25 retrieval per question, a second hop for bridge entities, verbatim sentence cards.

For each plan question the Researcher searches with the question's search terms, then
reads each hit's passage sentence by sentence. A sentence is a candidate when it is prose
(not code), its passage or document is about the question's subject, and it mentions the
subject or the criteria the question asks about. Candidates are ranked by how well they
answer the question (`ranking.Ask`: rare question words, the asked-for answer type, a
document titled after something the question names, a document's opening sentence).

Hop 2: when the best evidence names something the question only describes (a *bridge*:
"the woman who portrayed Corliss Archer" → "Shirley Temple"), the Researcher searches for
that name and takes the best sentences of the documents titled after it. Every card says
which hop it came from.

The answer's chain (the cards written with confidence "high"): for a question about named things,
the documents that lead to one another (`chain.py`: the one the question describes and the one it
names by title, or the two the question names, chosen among all retrieved documents' sentences,
unscreened, each search looking SEARCH_K × CHAIN_K passages deep), and their answer-bearing
sentences; never documents of the Python documentation, which name one another everywhere (a
capitalized "Python" or class name makes a question about named things there too). Otherwise
(`_chain`) the best pair of sentences from two documents that name each other, or that the
question names both, the second ranked against what the first leaves unsaid;
or the best sentence alone when no second document adds enough, and always in the Python
documentation, where one module or topic answers and every document names others; there, a second
document whose best sentence scores nearly as well joins it (`_runner_up`: two modules that answer
about equally well are both cited).

The answering document's other sentences: besides its retrieved passages, the docstrings a question
names are read whole (`_named_docstrings`: a code name's own documentation; in the best documents,
each function whose name holds the question's words); in the Python documentation, its sentences
that score close to its best join the answer (`_near_best`), as a docstring's later sentences say
what its first leaves out (what it returns, raises, when it applies); and each answer card quotes the
rest of its sentence's paragraph (`_rest`: a paragraph makes one point, the definition and then its
specifics; a docstring's first sentence, the rest of its docstring, which documents one name), counted
as the cards it holds, so the cards of other documents are the same as without it.

The quote is copied from the stored snapshot with its offsets, so it verifies verbatim. Each
passage is quoted by one card: a candidate whose quote overlaps a chosen card's is not written
again; in the Python documentation, where a docstring's sentences continue one another, one
whose quote holds a chosen card's (the next sentence quoted with it as its antecedent) takes that
card's place instead. There too, a sentence that a `help()` topic's section and its chapter both hold is
quoted from one copy only (`_one_copy`), and what a document is about in meaning is judged on its title, its
opening and the names it documents (`_about`).
Sentences inside text flagged as instruction-like are never quoted, nor a quote that cannot stand alone
(`evidence/standalone.py`: a question, a heading, narration, an opening reference it does not resolve).
No relevant sentence →
the branch is blocked; only secondary sources → blocked with that reason. When the step's or its
role's search budget runs out, the Researcher stops searching and writes cards from the hits it
already has (the run's own budget still ends the run).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, replace
from typing import Any

from harness.contract.cards import HIGH, LOW, MEDIUM, Confidence
from harness.contract.layout import PLAN, snapshot_path, source_record_path
from harness.contract.statuses import BLOCKED, COMPLETED
from harness.engines.offline import semantic
from harness.engines.offline.chain import about_names, chain_docs, chain_sentences
from harness.engines.offline.ranking import (
    OTHER,
    SIGNATURE_LINE,
    YESNO,
    Ask,
    criterion_words,
    entities,
    has_type,
    names_match,
    own_sections,
    signed_sections,
    stands_alone,
    title_match,
    title_words,
)
from harness.engines.offline.semantic import closeness, similarity
from harness.engines.offline.web_research import step_search
from harness.errors import BudgetExhausted
from harness.evidence.lexical import content_words
from harness.evidence.standalone import not_standalone
from harness.runtime.context import AgentContext
from harness.runtime.interface import AgentResult, Brief
from harness.sources.corpus import BUILTIN
from harness.sources.injection import find_injections, flagged_spans
from harness.sources.pythondocs import deprecated
from harness.sources.sentences import split_sentences
from harness.sources.tokens import tokenize

SEARCH_K = 8
CHAIN_K = 2  # SEARCH_K times this for a question about named things (`chain.about_names`)
MAX_CARDS = 6
MAX_PER_SOURCE = 3
MIN_SCORE = 0.5  # of the subject/criteria screen: a sentence below it is not about the question
MAX_BRIDGES = 3  # hop-2 searches per branch (each costs one search of the branch's budget)
BRIDGE_FROM = 2  # the best sentences of each chain-start document whose named things are bridge candidates
HOP2_CARDS = 3  # cards kept from hop 2 at most (from documents titled after a bridge)
SECONDARY, FLAGGED = 0.2, 0.1  # relevance penalties: a primary, unflagged source saying as much ranks first
PAIR_FROM = 5  # best sentences of each document that may be a link of a two-document chain
LINK = 0.3  # added to a two-document chain whose one sentence names the other's document
CHAIN_MORE = 1  # sentences of the chain's documents that join it when no link has the asked-for kind of answer
PAIR_MIN = 0.5  # what a second document's sentence must add (against the rest of the question) to join the chain
MIN_CHARS, MAX_CHARS = 30, 500
RETRIEVED = (
    0.3  # weight of a hop-1 passage's retrieval score (a share of its search's best) in its sentences' relevance
)
OWN = 0.4  # added to a sentence of the docstring of a code name the question writes (`OrderedDict.move_to_end`)
DANGLING = 0.3  # relevance penalty of a sentence that does not stand alone and has no antecedent to quote
LEAD_MAX = 2  # sentences before a sentence that does not stand alone that its card may quote with it
MEANING = 1.0  # added to every sentence of the retrieved document closest in meaning to the question (0 the farthest)
SENTENCE_MEANING = 1.0  # times a sentence's cosine with the question (`semantic.similarity`), Python documentation only
ABOUT_CHARS = 600  # a document's opening, and at most as much of the names it documents: what its meaning is judged on
ANSWER_DOCS = 2  # best documents whose docstrings named after the question's words are read whole
BEST_PER_SOURCE = 6  # sentences of the best candidate's document in the answer (`_near_best`), each at least
NEAR = 0.8  # this share of the best's relevance
SIGNATURE_MAX = 200  # characters of a signature line quoted with its docstring's first sentence
SIGNED_WORDS = 0.5  # share of words a docstring's first sentence needs (by its place it is prose: `Optional[X] is...`)
PARAGRAPH_MAX = 2 * MAX_CHARS  # characters an answer card may quote when it continues to its paragraph's end (`_rest`)
RUNNER_UP = 0.9  # share of the answer's relevance at which a second document's best sentence joins it (`_runner_up`)
SECTION_OF = 0.75  # share of a document's paragraphs another holds that makes it a section of that one (`_one_copy`)
SUPERSEDED = 1.0  # taken from every sentence of a module whose document says importing it warns it is deprecated
_CODE_START = re.compile(
    r"^(?:async\s+with|async\s+def\s|with\s+\w+\(|def\s|class\s|import\s|from\s+\S+\s+import|>>>|\$|@|[\w.]+\s*=|#)"
)
# A heading's underline (reST, Markdown setext): a line of one mark repeated, under the title it underlines.
_UNDERLINE = re.compile(r"^[ \t]*([=\-*~^#+])\1{2,}[ \t]*$", re.M)
# Emphasis at a sentence's start (reST, Markdown): one or two stars before a word, not a list item's "* ".
_EMPHASIS = re.compile(r"^\*{1,2}(?=[^\s*])")
# A value quoted in prose ('yes', "0x", '1'): one token, no space inside its quotes.
_QUOTED_VALUE = re.compile(r"'[^'\s]{1,40}'|\"[^\"\s]{1,40}\"")


def is_prose(sentence: str, min_tokens: int = 6, words_share: float = 0.6) -> bool:
    """A sentence a report can quote: words, not code (at least `min_tokens` tokens, `words_share` of them words), and
    not a heading (a title over its underline of `*`, `=`, `-`, ...: it names a section, it states nothing). It may
    open with emphasis (`**CPython implementation detail:** For CPython, ...`, `*path* is ...`), not a list mark."""
    stripped = sentence.strip()
    if "\n    " in sentence or "\n\t" in sentence or _CODE_START.match(stripped):
        return False
    if _UNDERLINE.search(sentence):
        return False  # a heading and its underline ("Unary arithmetic and bitwise operations" / "*****"): a title
    # Emphasis opens prose ("*path* is a ...", "**CPython implementation detail:** For CPython, ..."); a mark and a
    # space opens a list item ("* If the ...").
    opening = _EMPHASIS.sub("", stripped)
    if not re.match(r"[A-Za-z`\"“]", opening) or re.search(r"#\d", stripped):
        return False  # list markers, changelog entries, issue numbers
    if sentence.rstrip().endswith(":"):
        return False
    tokens = sentence.split()
    words = [t for t in tokens if re.fullmatch(r"[A-Za-z][A-Za-z'’-]*[,.;:!?)]*|\(?[A-Za-z][A-Za-z'’-]*", t)]
    return len(tokens) >= min_tokens and len(words) >= words_share * len(tokens)


def _subject_term(term: str) -> str:
    """The specific part of a dotted name (asyncio.TaskGroup → TaskGroup): the package alone is too broad."""
    term = term.strip().strip("`").removesuffix("()")
    return term.rsplit(".", 1)[-1] if re.fullmatch(r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+", term) else term


def _opening_sentence(text: str) -> int:
    """Offset of the document's first prose sentence after its heading line(s)."""
    for s, e in split_sentences(text):
        if is_prose(text[s:e]):
            return s
    return -1


def _after_signature(text: str, s: int, e: int) -> int:
    """Where a sentence's prose starts: after a code line it was split together with (a `def f(x)` signature line
    and the first sentence of its docstring are one "sentence" to the splitter)."""
    nl = text.find("\n", s, e)
    if nl < 0 or not _CODE_START.match(text[s:nl].strip()):
        return s
    rest = nl + 1
    while rest < e and text[rest].isspace():
        rest += 1
    return rest if rest < e else s


def _signed(text: str, s0: int, s: int) -> int:
    """Where the card of a docstring's first sentence starts: at its `def`/`class` signature line, so the answer
    names the function or class the sentence documents ("def b64encode(s, altchars=None)" / "Encode the
    bytes-like object s using Base64..."); s for any other sentence, or a signature longer than SIGNATURE_MAX."""
    line = text[s0:s].strip()
    return s0 if s > s0 and SIGNATURE_LINE.match(line) and len(line) <= SIGNATURE_MAX and "\n" not in line else s


def _lead(text: str, spans: list[tuple[int, int]], s: int, e: int, flagged) -> int:
    """Where the card of the sentence at s..e starts: at s when it stands alone; else at the sentence before it, or
    the one before that, the nearest one that stands alone ("For instance, ..." and "His ..." are quoted with what
    they point back to). Only the same paragraph's unflagged prose, at most LEAD_MAX sentences and 2 × MAX_CHARS;
    s when no such antecedent is found."""
    if stands_alone(text[s:e]):
        return s
    at = bisect.bisect_left(spans, (s, e))  # the document's sentences: a passage may start at this one
    start = s
    for bs, be in reversed(spans[max(0, at - LEAD_MAX) : at]):
        if "\n\n" in text[be:start] or e - bs > 2 * MAX_CHARS or not is_prose(text[bs:be]):
            return s
        if any(bs < fe and fs < be for fs, fe in flagged):
            return s
        start = bs
        if stands_alone(text[bs:be]):
            return start
    return s


def _rest(text: str, spans: list[tuple[int, int]], s: int, e: int, flagged, until: int = 0) -> int:
    """Where an answer card of the Python documentation ends: at the end of its paragraph, the documentation's unit
    of one point ("The unary "~" (invert) operator yields the bitwise inversion of its integer argument." goes on
    "The bitwise inversion of "x" is defined as "-(x+1)"."; a docstring's "Return the running event loop." goes on
    "Raise a RuntimeError if there is none."). The following sentences of the same paragraph join while each is
    unflagged prose (a parenthesized one too; quoted values read as words: "True values are 'y', 'yes', ...") and the
    card stays within PARAGRAPH_MAX characters; e when none.
    Before `until` (a docstring's end, for its first sentence) a blank line does not end it: a docstring documents
    one name, its summary line first and then the paragraphs that say the rest ("The minimum maxlinelen is 4...")."""
    end = e
    for ns, ne in spans[bisect.bisect_left(spans, (e, e)) :]:
        if (
            "\n\n" in text[end:ns]
            and ns >= until
            or ne - s > PARAGRAPH_MAX
            or any(ns < fe and fs < ne for fs, fe in flagged)
        ):
            break
        nxt = text[ns:ne].strip()
        if nxt.startswith("(") and nxt.endswith((")", ").", ".)")):
            nxt = nxt[1:].rstrip(".").rstrip(")") + "."  # a parenthesized aside is read as the sentence it holds
        # a quoted value is a word of the sentence that names it ("True values are 'y', 'yes', ... and '1'")
        if not is_prose(_QUOTED_VALUE.sub("value", nxt)):
            break
        end = ne
    return end


def _python_documentation(record: dict) -> bool:
    """Is this source the Python documentation (a built-in corpus, `BUILTIN`)? The one test of where the rules that
    read documentation apply: meaning by a module's opening (`semantic.closeness`), a deprecated module giving way
    to its replacement, more of the best document in the answer (`_near_best`) and a continuing sentence's card
    taking its antecedent's place. A docstring's sentences continue one another and a module's opening states its
    subject; on encyclopedia paragraphs (HotpotQA) the same rules cost gold paragraphs (docs/tuning-log.md)."""
    return record.get("corpus") in BUILTIN


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


def _flat(text: str) -> str:
    return " ".join(text.split())


def _section_of(part: str, whole: str, flat: str = "") -> bool:
    """Is the document `part` a section of the document `whole`: at least SECTION_OF of its paragraphs (of more
    than 40 characters, whitespace read as one space) are paragraphs of `whole`'s text? `flat`: `whole` as `_flat`
    reads it, when the caller has it already."""
    if len(part) >= len(whole):
        return False
    paras = [_flat(p) for p in part.split("\n\n") if len(p.strip()) > 40]
    allowed = (1 - SECTION_OF) * len(paras)  # paragraphs the whole may lack
    flat, missing = flat or _flat(whole), 0
    for p in paras:
        missing += p not in flat
        if missing > allowed:
            return False
    return bool(paras)


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


def _about(title: str, text: str) -> str:
    """What a document of the Python documentation is about, as its meaning is judged (`semantic.closeness`): its
    title, its opening (a module's docstring starts it) and the names of the functions and classes it documents, up
    to ABOUT_CHARS characters each. A module's names say what it offers where its opening is one generic line:
    `email.errors` opens "email package exception classes." and documents `NoBoundaryInMultipartDefect`, what a
    question about a multipart message without a boundary asks for. Private names (`_helper`, `__init__`) are left
    out; a reference topic has no signature lines, so its opening alone."""
    about = f"{title}\n{text[:ABOUT_CHARS]}"
    names = dict.fromkeys(name for name, _, _ in signed_sections(text) if not name.startswith("_"))
    return f"{about}\n{' '.join(names)[:ABOUT_CHARS]}" if names else about


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
    documentation: bool  # the Python documentation (`_python_documentation`)
    superseded: float


class _Branch:
    """One research branch's reading of the corpus: its question (the subject, the criteria, the queries), the
    sources read through the guarded context (once each), its searches (stopped once its budget is spent), and the
    sentences of a passage as scored candidates."""

    def __init__(self, ctx: AgentContext, question: dict):
        self.ctx = ctx
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
        self.k = SEARCH_K * (CHAIN_K if about_names(self.ask) else 1)
        self.prior: dict[tuple[str, int], float] = {}  # a passage's retrieval score, as a share of its search's best
        self.meaning: dict[str, float] = {}
        self.seen_spans: set[tuple[str, int]] = set()

    def source(self, sid: str) -> tuple[str, dict]:
        if sid not in self.cache:  # read through the guarded context, once per source
            self.cache[sid] = (self.ctx.read_text(snapshot_path(sid)), self.ctx.read_json(source_record_path(sid)))
        return self.cache[sid]

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
        returns the hits and the document each search ranks first. The question's words are then weighed by their
        rarity among the retrieved documents, and each Python documentation document by its closeness in meaning."""
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
        """Rarity among the retrieved *documents*: the many passages of the one document about the question
        ("median" in statistics) must not make its words look common. What each document of the Python
        documentation is about, in meaning (`semantic.closeness`): "compute the median of some numbers" is the
        statistics module's subject even where another module's sentence shares more of its words. Only there: a
        module's opening and the names it documents state its subject (`_about`); on encyclopedia paragraphs
        (HotpotQA) the same rule cited fewer gold paragraphs (docs/tuning-log.md)."""
        by_doc: dict[str, list[str]] = {}
        for _, hit in hop1:
            by_doc.setdefault(hit.source_id, []).append(hit.text)
        self.ask.weigh([" ".join(texts) for texts in by_doc.values()])
        titles = {hit.source_id: hit.title for _, hit in hop1}
        documented = [sid for sid in by_doc if _python_documentation(self.source(sid)[1])]
        self.meaning = closeness(self.ask.text, {sid: _about(titles[sid], self.source(sid)[0]) for sid in documented})

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
        # a deprecated module of the Python documentation: its replacement, saying as much, is the better answer
        documentation = _python_documentation(record)
        return _Document(
            text=text,
            spans=self.doc_sentences(hit.source_id, text),
            flagged=flagged_spans(record, text),
            in_doc=bool(self.subject & doc_words),
            titled=titled,
            own=own,
            defined=defined,
            opening=_opening_sentence(text),
            documentation=documentation,
            superseded=SUPERSEDED if documentation and deprecated(text) else 0.0,
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
        if screen and screen_score < MIN_SCORE and not doc.titled:
            return None
        relevance = self._relevance(doc, hit, s, lead, e, signed, screen_score if screen else None)
        return _Candidate(
            relevance=relevance,
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
            if doc.documentation
            else "",
        )

    def _relevance(
        self, doc: _Document, hit, s: int, lead: int, e: int, signed: bool, screen_score: float | None
    ) -> float:
        """How well the sentence answers the question (`Ask.score`), with what its place adds: the screen's score and
        its passage's retrieval score (hop 1), a code name's own docstring, its document's meaning and its own (the
        Python documentation), less a secondary, flagged, superseded or dangling sentence's penalty."""
        text = doc.text
        # a docstring's first sentence is scored with its signature line: the name says what it documents
        scored = text[lead:e] if signed else text[s:e]
        # ... and it opens what its signature documents, as a module's opening sentence opens the module
        relevance = self.ask.score(scored, hit.title, first=s == doc.opening or signed, titled=doc.titled)
        if screen_score is not None:
            relevance += 0.5 * min(screen_score, 1.5) + RETRIEVED * self.prior.get((hit.source_id, hit.start), 0.0)
        relevance -= (SECONDARY if hit.kind == "secondary" else 0.0) + (FLAGGED if hit.flagged else 0.0)
        if any(a <= s < b for a, b in doc.own):
            relevance += OWN
        relevance += MEANING * self.meaning.get(hit.source_id, 0.0)
        # what the sentence itself says, in meaning (a sentence encoder's only: semantic.sentence_encoder)
        if doc.documentation and SENTENCE_MEANING and semantic.sentence_encoder():
            relevance += SENTENCE_MEANING * similarity(self.ask.text, scored)
        relevance -= doc.superseded
        if lead == s and not stands_alone(text[s:e]):
            relevance -= DANGLING  # points back at text no card can quote with it
        return relevance

    def agreed(self, firsts: list[str], documentation: set[str]) -> str:
        """The document every search ranks first, when there are two searches or more (the Python documentation's;
        not a deprecated module, whose replacement still answers better: SUPERSEDED), nor the retrieved document
        farthest in meaning (closeness 0): there the words agree, the subject does not. "" when none."""
        agreed = firsts[0] if len(firsts) >= 2 and len(set(firsts)) == 1 and firsts[0] in documentation else ""
        agreed = "" if agreed and deprecated(self.source(agreed)[0]) else agreed
        return agreed if self.meaning.get(agreed, 0.0) > 0.0 else ""


def _quotable(
    text: str, flagged: list[tuple[int, int]], sid: str, s0: int, e: int, seen: set
) -> tuple[int, int, bool] | None:
    """Where the sentence at s0..e starts (after a code line split with it), where its card starts (at its signature
    line, for a docstring's first sentence), and whether it is such a signed sentence; None when it cannot be quoted:
    taken already, too short or long, flagged, or not prose."""
    s = _after_signature(text, s0, e)
    lead = _signed(text, s0, s)
    if lead < s and any(lead < fe and fs < s for fs, fe in flagged):
        lead = s
    signed = lead < s  # a docstring's first sentence, quoted with its signature line
    # A docstring's summary line is prose by its place, however short ("Directory tree generator."): with
    # its signature it says what the function does.
    if (sid, s) in seen or not (MIN_CHARS <= e - lead <= MAX_CHARS + SIGNATURE_MAX):
        return None
    if e - s > MAX_CHARS or any(s < fe and fs < e for fs, fe in flagged):
        return None
    if not (is_prose(text[s:e]) or signed and is_prose(text[s:e], min_tokens=2, words_share=SIGNED_WORDS)):
        return None
    return s, lead, signed


class OfflineResearcher:
    def __init__(self, spec=None):
        self.spec = spec

    def run(self, brief: Brief, ctx: AgentContext) -> AgentResult:
        plan = ctx.read_json(PLAN)
        question = next(q for q in plan["questions"] if q["id"] == brief.question_id)
        branch = _Branch(ctx, question)
        hop1, firsts = branch.retrieve()
        candidates, chain, documentation = self._candidates(branch, hop1)
        written, per_source, kinds = self._write_cards(
            brief,
            ctx,
            candidates,
            branch.subject | branch.criteria,
            branch.ask,
            chain,
            documentation,
            branch.agreed(firsts, documentation),
        )
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
        bridges and the documents' chain; returns them, the chain, and the Python documentation's sources among
        those a card may quote (hop 2 included)."""
        source, sentences, ask = branch.source, branch.sentences, branch.ask
        candidates = [c for rank, hit in hop1 for c in sentences(hit, rank, 1, screen=True)]
        candidates.sort(key=lambda c: c.key)
        candidates += self._named_docstrings(ask, candidates, hop1, source, sentences)
        candidates.sort(key=lambda c: c.key)
        seen_titles = {hit.source_id: hit.title for _, hit in hop1}
        candidates += self._second_hop(ask, candidates, seen_titles, branch.search, sentences)
        candidates.sort(key=lambda c: c.key)
        # every source a card may quote, hop 2 included, by the same test as hop 1's meaning
        quotable = {hit.source_id for _, hit in hop1} | {c.source_id for c in candidates}
        documentation = {sid for sid in quotable if _python_documentation(source(sid)[1])}
        chain = self._doc_chain(ask, candidates, hop1, sentences, documentation)
        candidates += [c for c in chain if c not in candidates]
        candidates.sort(key=lambda c: c.key)
        if not chain:  # (the documents' chain is of named things: its sentences are its documents' own)
            candidates = _one_copy(candidates, {sid: source(sid)[0] for sid in documentation})
        return candidates, chain, documentation

    @staticmethod
    def _named_docstrings(ask: Ask, ranked: list[_Candidate], hop1: list, source, sentences) -> list[_Candidate]:
        """The docstrings that answer, read whole: the answer is often in a part of the document no search returned.

        In every retrieved document, the own documentation of a code name the question writes (`os.walk`: the
        `def walk(` docstring, its later sentences too); in the ANSWER_DOCS best documents, the docstring of each
        function or class whose name holds the question's words (`Ask.in_name`: "join paths" ~ `joinpath`). Their
        sentences are candidates like any other (screened, scored), without a retrieval score."""
        first: dict[str, tuple[int, Any]] = {}
        for rank, hit in hop1:
            first.setdefault(hit.source_id, (rank, hit))
        best = list(dict.fromkeys(c.source_id for c in ranked if c.hop == 1))[:ANSWER_DOCS]
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
    def _second_hop(ask: Ask, ranked: list[_Candidate], seen_titles: dict[str, str], search, sentences):
        """The bridges: things the chain's hop-1 evidence names that the question does not.

        The chain starts at the documents titled after something the question names (or else at
        the best sentence found); their best BRIDGE_FROM sentences may name a bridge. A document
        titled after a bridge joins the chain: one already found stays hop 1; otherwise the
        Researcher searches for the bridge (at most MAX_BRIDGES searches) and the document's
        sentences come as hop 2. Returns the hop-2 candidates, best first."""
        bridges: list[str] = []
        for cand in _chain_start(ranked):
            for name in ask.new_names(cand.text):
                if name not in bridges and not names_match(name, cand.title):
                    bridges.append(name)
        have = {c.source_id for c in ranked}
        out: list[_Candidate] = []
        searched = 0
        for name in bridges:
            if searched >= MAX_BRIDGES:
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
        documents' answer-bearing sentences (`chain.chain_sentences`); [] when no two documents lead to each
        other or the question is not about named things (checked first: the pool is not built for nothing). A
        sentence already a candidate keeps its candidate.

        Documents of the Python documentation (`documented`: their sources) are left out of the pool, as they are
        of `_chain`'s pairs: its modules and topics name one another everywhere, so a link between two of them says
        nothing of whether the second answers, and a question that writes "Python", "Unicode" or a class name
        (`MIMEMultipart`) is about named things by `about_names`. Such chains cited a reference topic with a
        one-word title beside the answer (`Comparisons`: "Python" names half its title, "Python reference:
        Comparisons") on 6 of 45 v4 tune questions (docs/tuning-log.md)."""
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
    def _write_cards(
        brief: Brief,
        ctx: AgentContext,
        candidates: list[_Candidate],
        asked: set[str],
        ask: Ask,
        chain=None,
        documented=frozenset(),
        agreed: str = "",
    ):
        """The answer's chain (the documents' chain, or else the best sentences' `_chain`) and then the best other
        candidates as cards (at most MAX_CARDS besides the chain, MAX_PER_SOURCE a source); the chain's cards, and in
        the Python documentation its best document's close sentences (`_near_best`), have confidence "high". In the
        Python documentation each of those answer cards that stands alone quotes the rest of its paragraph (`_rest`)."""
        chain = _answer(candidates, ask, chain, documented, agreed)
        chosen, chain, per_source = _choose(candidates, chain, documented)
        kinds: set[str] = set()
        for cand in chosen:
            ctx.check_deadline()
            _record_card(brief, ctx, cand, cand in chain)
            kinds.add(cand.kind)
        return len(chosen), per_source, kinds


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


def _record_card(brief: Brief, ctx: AgentContext, cand: _Candidate, answer: bool) -> None:
    """One card, through the evidence service: the harness names it and copies the quote and its span from the
    snapshot, as for every engine. An answer card's confidence is high; another's follows its relevance."""
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
    )
