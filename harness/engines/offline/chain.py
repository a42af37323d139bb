"""The answer's chain of documents: which two (or three) retrieved documents answer a multi-hop question together;
the one the question describes names the next by its title (a *bridge*, like a hyperlink), or the question both.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from harness.engines.offline.ranking import Ask, entities, title_match, title_words
from harness.evidence.lexical import content_words

COVER = 1.0  # weight of the question's share a document's whole text covers, beside its best sentence's score
NAMED = 0.5  # added to a document the question names by its title
LINK = 0.6  # added to a pair whose first document names the second's title (half for a partial name)
INDEX_PAGE = 0.5  # subtracted from a page that only lists things of one name ("X (disambiguation)")
MARGIN = 0.4  # a runner-up pair within this of the best brings its third document into the chain
SIBLING = 0.2  # ... within this when the third document only names a chain document (the chain does not name it)
MAX_DOCS = 3
BRIDGE = 0.3  # added, when choosing a chain document's sentences, to one that names another chain document
SECOND = 0.6  # a document's second best sentence joins the chain when it scores this share of its best (and adds)
EVERYWHERE = math.log(2) + 1e-9  # `Ask.weigh`'s weight of a word every retrieved document holds
_INDEX_TITLE = re.compile(r"\(disambiguation\)", re.I)
_CODE_REF = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+|[a-z_]\w*")  # a dotted or lower-case name: code


class Sentence(Protocol):
    source_id: str
    title: str
    text: str
    first: bool


@dataclass
class _Doc:
    sid: str
    title: str
    words: set[str]
    text: str
    sentences: list


def _names_title(title: str, names: list[str]) -> float:
    """1 when a text's named things (not its other words) hold all the title's words, else 0.5 × a partial match."""
    words = title_words(title)
    if words and words <= content_words(" ".join(names)):
        return 1.0
    return 0.5 * max((title_match(n, title) for n in names), default=0.0)


def _links_to(title: str, text: str, names: list[str]) -> float:
    """How fully a document names another by its title, as a hyperlink would: 1 written out or in one name; 0.5 only
    pieced together from several ("John Smith" from "John Lennon" and "Will Smith") or partly."""
    if _writes(title, text):
        return 1.0
    words = title_words(title)
    if words and any(words <= content_words(n) for n in names):
        return 1.0
    return min(_names_title(title, names), 0.5)


def _writes(title: str, text: str) -> bool:
    """Does the text write the title out, its parenthetical left out and capitalized as the title is ("an elephant"
    does not name "Elephant (2003 film)")?"""
    bare = re.sub(r"\s*\([^)]*\)", "", title).strip()
    return bool(content_words(bare)) and re.search(r"(?<!\w)" + re.escape(bare) + r"(?!\w)", text) is not None


def _asked(title: str, ask: Ask) -> float:
    """How fully the question names a document by its title: written out, or its names (which may piece it together)."""
    return 1.0 if _writes(title, ask.text) else _names_title(title, _proper(ask.names))


def about_names(ask: Ask) -> bool:
    """Is the question about named things (a capitalized or quoted name, not an acronym nor one every retrieved
    document holds) rather than code, whose cross-references are no bridges? Call it after `Ask.weigh`."""
    if ask.keywords or any("_" in c or ("." in c and re.search(r"[a-z]", c)) for c in ask.code):
        return False  # a Python statement, or a code name ("asyncio.run", "move_to_end"; not a title's "I.X")
    for name in ask.names:
        if _CODE_REF.fullmatch(name) or not re.search(r"[A-Z][a-z]", name):
            continue  # code, an acronym ("URL", "SMTP"), a number
        if any(ask.weight(w) > EVERYWHERE for w in content_words(name)):
            return True  # a name not in every retrieved document (not the corpus's own subject)
    return False


def _proper(names: list[str]) -> list[str]:
    """The names that are not code references (`asyncio.run`, `json`): a cross-reference is not a bridge."""
    return [n for n in names if not _CODE_REF.fullmatch(n)]


def _best(ask: Ask, doc: _Doc) -> float:
    return max((ask.score(s.text, doc.title, first=s.first) for s in doc.sentences), default=0.0)


def chain_docs(ask: Ask, pool: Mapping[str, Sequence[Sentence]]) -> list[str]:
    """The chain's documents (source ids), the first the one the question describes; [] when no two link, or
    when the question is not about named things (`about_names`)."""
    if not about_names(ask):
        return []
    docs = []
    for sid, sentences in pool.items():
        if sentences:
            text = " ".join(s.text for s in sentences)
            title = sentences[0].title
            docs.append(_Doc(sid, title, content_words(text) | content_words(title), text, list(sentences)))
    if len(docs) < 2:
        return []
    names = {d.sid: _proper(entities(d.text)) for d in docs}
    in_question = {d.sid: _asked(d.title, ask) for d in docs}
    alone = {
        d.sid: _best(ask, d) + COVER * ask.coverage(d.words) + NAMED * in_question[d.sid] - _index(d) for d in docs
    }
    pairs: list[tuple[float, str, str]] = []
    for a in docs:
        rest = ask.rest(a.words)
        for b in docs:
            if b.sid == a.sid:
                continue
            linked = _links_to(b.title, a.text, names[a.sid])
            if not linked and not (in_question[a.sid] >= 1 and in_question[b.sid] >= 1):
                continue  # two documents that do not lead to each other, not both named by the question
            score = alone[a.sid] + _best(rest, b) + COVER * rest.coverage(b.words) + LINK * linked
            pairs.append((score + NAMED * in_question[b.sid] - _index(b), a.sid, b.sid))
    if not pairs:
        return []
    pairs.sort(key=lambda p: (-p[0], p[1], p[2]))
    chain = [pairs[0][1], pairs[0][2]]
    for score, a_sid, b_sid in pairs[1:]:
        if score < pairs[0][0] - MARGIN or len(chain) >= MAX_DOCS:
            break
        new = [sid for sid in (a_sid, b_sid) if sid not in chain]
        if new[:1] == [a_sid] and score < pairs[0][0] - SIBLING:
            continue  # it names a chain document, no chain document names it: a sibling unless nearly as good
        chain += new[: MAX_DOCS - len(chain)]
    return chain


def _adds(ask: Ask, sentence, best) -> bool:
    """Does the sentence hold a question word (of `ask`) that the best sentence does not?"""
    return ask.coverage(content_words(sentence.text) - content_words(best.text)) > 0


def _index(doc: _Doc) -> float:
    return INDEX_PAGE if _INDEX_TITLE.search(doc.title) else 0.0


def chain_sentences(ask: Ask, pool: Mapping[str, Sequence[Sentence]], chain: list[str]) -> list:
    """The chain documents' sentences that carry the answer: each one's best (against the rest of the question after
    the first), its opening (unless named by the question and adding nothing), its second best within SECOND."""
    if not chain:
        return []
    first_words = content_words(" ".join(s.text for s in pool[chain[0]])) | content_words(pool[chain[0]][0].title)
    titles = {sid: pool[sid][0].title for sid in chain}
    out: list = []
    for i, sid in enumerate(chain):
        a = ask if i == 0 else ask.rest(first_words)
        others = [t for s, t in titles.items() if s != sid]

        def score(s, a=a, others=others) -> float:
            bridge = any(_links_to(t, s.text, entities(s.text)) >= 1 for t in others)
            return a.score(s.text, s.title, first=s.first) + BRIDGE * bridge

        ranked = sorted(pool[sid], key=lambda s: -score(s))  # stable: ties keep document order
        best = ranked[0]
        picked = [best]
        opening = next((s for s in pool[sid] if s.first), None)
        if opening is not None and opening not in picked and (not _asked(titles[sid], ask) or _adds(a, opening, best)):
            picked.append(opening)
        if len(ranked) > 1 and ranked[1] not in picked and score(ranked[1]) >= SECOND * score(best):
            if _adds(a, ranked[1], best):
                picked.append(ranked[1])
        out += picked
    return out
