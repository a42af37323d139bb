"""How well a sentence answers a question: the offline engine's one relevance rule (Researcher, Analyst, Writer).
Lexical and deterministic: the question's words weighted by rarity, the answer type it asks for, the named things
of a text (documents' titles and bridges), and the keywords, modules and code names it writes.
"""

from __future__ import annotations

import keyword
import math
import re
from dataclasses import dataclass, field
from functools import cached_property

from harness.evidence.lexical import content_words, criterion_groups
from harness.sources.pythondocs import SIGNATURE_START

TITLED = 0.4  # a sentence of a document titled after a thing the question names (half for a partial match)
FIRST = 0.15  # a document's opening sentence: it says what the document is about
TYPED = 0.25  # a sentence with a phrase of the asked-for answer type (a date, a number, a name...)
PERSON, DATE, NUMBER, PLACE, YESNO, OTHER = "person", "date", "number", "place", "yes/no", "other"

_YESNO = re.compile(r"^(?:is|are|was|were|do|does|did|can|could|has|have|had|will|would|should)\b", re.I)
_NUMBER_Q = re.compile(
    r"\bhow\s+(?:many|much|long|old|tall|high|far|big|large|deep|wide|heavy)\b|\bwhat\s+(?:number|percentage|size|population)\b|\bpopulation\b",
    re.I,
)
_DATE_Q = re.compile(
    r"^when\b|\bwhen\s+(?:was|were|did|is|does)\b|\b(?:what|which)\s+(?:year|date|day|month|decade|century|time)\b|\bin\s+what\s+year\b",
    re.I,
)
_PERSON_Q = re.compile(
    r"\bwho(?:m|se)?\b|\b(?:what|which)\s+(?:\w+\s+){0,2}?(?:person|people|man|woman|actor|actress|singer|player|author|writer|director|"
    r"producer|composer|musician|artist|politician|king|queen|president|founder|poet|novelist|coach|member|rapper|comedian)s?\b",
    re.I,
)
_PLACE_Q = re.compile(
    r"^where\b|\bwhere\s+(?:is|was|are|were|did|does)\b|\b(?:what|which)\s+(?:\w+\s+){0,2}?(?:city|town|country|state|county|province|"
    r"region|village|island|river|continent|nation|place|location|area)\b",
    re.I,
)
_KIND_Q = ((NUMBER, _NUMBER_Q), (DATE, _DATE_Q), (PERSON, _PERSON_Q), (PLACE, _PLACE_Q))  # checked in this order

_MONTH = r"(?:January|February|March|April|May|June|July|August|September|October|November|December)"
_YEAR = re.compile(r"\b1[0-9]{3}\b|\b20[0-9]{2}\b")
_DATE_S = re.compile(rf"\b{_MONTH}\b|{_YEAR.pattern}|\b\d{{1,2}}(?:st|nd|rd|th)\s+century\b", re.I)
_NUMBER_S = re.compile(
    r"\b\d[\d,.]*\b|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|"
    r"hundred|thousand|million|billion|dozen)\b",
    re.I,
)
_PLACE_S = re.compile(
    r"\b(?:in|at|near|from|of)\s+(?:the\s+)?[A-Z][\w'’-]+|\b(?:city|town|county|state|province|country|located|based|capital)\b"
)
_NAME_S = re.compile(r"\b[A-Z][a-z'’-]+(?:\s+(?:[A-Z]\.\s*)*[A-Z][a-z'’-]+)+\b")

_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
# Capitalized phrases (allowing "of", "the", "de"... inside), quoted titles, dotted code names.
_CAP = r"[A-Z0-9][\w'’&.-]*"
_ENTITY = re.compile(
    rf"“([^”]{{2,80}})”|\"([^\"]{{2,80}})\"|(`[^`]+`|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)|({_CAP}(?:\s+(?:(?:of|the|de|del|da|du|von|van|der|la|le|y|&)\s+)*{_CAP})*)"
)
# Capitalized words that start sentences or are grammar, not names.
_NOT_NAMES = frozenset(
    """a an the he she it its they them their his her this that these those there here in on at of for to by with
from as and or but if when while after before during since until what which who whom whose where why how is are
was were be been also however both one two first later its also many some most other such all each no not
between among whether""".split()
)


# Python keywords a question names: one followed by a word like "statement", or alone one not also an English word.
_KEYWORDS = frozenset(kw for kw in keyword.kwlist if kw.islower())
_KEYWORD_ALONE = frozenset({"yield", "lambda", "nonlocal", "del", "assert", "await", "async", "elif", "def"})
_STATEMENT_WORDS = frozenset(
    "statement statements clause clauses loop loops keyword keywords expression expressions block blocks".split()
)
OPENING_CHARS = 600  # a document's opening, where a module says what name it goes by (`_owners`)
# A code name (`bisect.insort`, `WeakValueDictionary`, `move_to_end`, `f()`): dotted, CamelCase, snake_case, a call.
_CODE_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+|[A-Z][a-z0-9]+[A-Z]\w*|[a-z][a-z0-9]*_\w+|\w+(?=\(\))")


# A docstring's signature line: SIGNED_NAME finds the documented name at a text's start, SIGNATURE_LINE a whole line.
SIGNED_NAME = re.compile(SIGNATURE_START + r"([A-Za-z_][\w.]*)")
SIGNATURE_LINE = re.compile(SIGNED_NAME.pattern + r"(?:\(.*\))?(?: -> .+)?$")


# A question that opens by naming the module it asks within ("With poplib, ...", "In the mailbox module, ...").
_MODULE_FIRST = re.compile(
    r"^(?i:with|in|using)\s+(?i:the\s+)?`?([a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)*)`?(?:\s+module)?\s*,"
)


def module_first(question: str) -> str:
    """The module a question opens by naming, before its first comma ("With poplib, why ..." → "poplib"), or ""."""
    m = _MODULE_FIRST.match(question.strip())
    return m.group(1) if m else ""


def keywords_named(question: str) -> list[str]:
    """The Python keywords (statements) the question asks about, in order."""
    found: list[str] = []
    words = re.findall(r"[A-Za-z]+", question)
    for kw, after in zip(words, [*words[1:], ""]):
        after = after.lower()
        if kw in _KEYWORDS and (after in _STATEMENT_WORDS or kw in _KEYWORD_ALONE) and kw not in found:
            found.append(kw)
    return found


def specific(title: str) -> str:
    """The specific part of a collection's title: "Python reference: with statement" → "with statement"."""
    return title.rsplit(": ", 1)[-1].strip()


def phrase_title(title: str, words: set[str]) -> bool:
    """Does the question write every word of the title, a phrase of two or more words and no code name, in lower
    case (`words`), not as a name ("Integer literals" for "a hexadecimal integer literal")?"""
    spec = specific(title)
    title_words = content_words(spec)
    return " " in spec and not _CODE_NAME.search(spec) and len(title_words) >= 2 and title_words <= words


def keyword_title(kw: str, title: str) -> float:
    """1 when the title is the keyword's statement ("with statement"), 0.5 when it holds it among other words."""
    words = re.findall(r"[a-z]+", specific(title).lower())
    if kw not in words:
        return 0.0
    return 1.0 if all(w == kw or w in _STATEMENT_WORDS for w in words) else 0.5


def _signature_pattern(name: str, owned: bool = False) -> str:
    """A line that documents the code name: a docstring's `def NAME(` / `class NAME` signature, or a reference
    topic's entry heading, the whole line (`str.strip([chars])`); `owned`: with the owner the name writes only."""
    name = name.removesuffix("()")
    last = name.rsplit(".", 1)[-1]
    owner = re.escape(name.rsplit(".", 1)[0].rsplit(".", 1)[-1]) if "." in name else r"\w+"
    owner = rf"(?:{owner}\.)" + ("" if owned and "." in name else "?")
    return rf"^(?:{SIGNATURE_START}{owner}{re.escape(last)}\b|{owner}{re.escape(last)}\([^\n]*\)$)"


_NEXT_SIGNATURE = re.compile(r"\n\n" + SIGNATURE_START + r"([\w.]+)")
_NEXT_ENTRY = re.compile(r"\n\n(?=\S)")  # a reference topic's next entry starts at the line's start
_SIGNATURE_AT = re.compile("^" + SIGNED_NAME.pattern, re.M)


def _section_end(text: str, start: int, end: int, name: str = "") -> int:
    """Where the documentation headed by text[start:end] ends: at the next signature line after a blank line that is
    not a method of the class `name` (`def Event.set`), or for a topic's entry, the next unindented paragraph."""
    if not SIGNED_NAME.match(text, start):
        nxt = _NEXT_ENTRY.search(text, end)
        return nxt.start() if nxt else len(text)
    for nxt in _NEXT_SIGNATURE.finditer(text, end):
        if not (name and nxt.group(1).startswith(name + ".")):
            return nxt.start()
    return len(text)


def _method_entries(text: str, name: str) -> list[tuple[int, int]]:
    """(start, end) of each reference entry of the method `Owner.NAME` indented under the entry of its class
    (`class dict(**kwargs)`, then `   popitem()`), up to the next line indented as far or less after a blank line."""
    name = name.removesuffix("()")
    if "." not in name:
        return []
    owner, last = name.rsplit(".", 1)
    owner = owner.rsplit(".", 1)[-1]
    out = []
    for cls in re.finditer(rf"^class {re.escape(owner)}\(", text, re.M):
        nxt = _NEXT_ENTRY.search(text, cls.end())
        end = nxt.start() if nxt else len(text)
        for m in re.compile(rf"^([ \t]+){re.escape(last)}\([^\n]*\)$", re.M).finditer(text, cls.start(), end):
            indent = len(m.group(1))
            stop = re.compile(rf"\n\n(?=[ \t]{{0,{indent}}}\S)").search(text, m.end(), end)
            out.append((m.start(), stop.start() if stop else end))
    return list(dict.fromkeys(out))  # a class may have several entry lines: each once


def own_sections(text: str, names: list[str], title: str | None = None) -> list[tuple[int, int]]:
    """(start, end) of each code name's own documentation, its methods' included, or its entry in a reference topic
    (`_method_entries`). With the document's `title`, a signature without the owner counts only in the owner's."""
    out = []
    for name in names:
        out += _method_entries(text, name)
        last = name.removesuffix("()").rsplit(".", 1)[-1]
        end = 0
        owned = title is not None and not _owners(text, title, name)
        for m in re.finditer(_signature_pattern(name, owned), text, re.M):
            if m.start() >= end:  # a method's signature (`def Event.set`) is inside its class's section already
                end = _section_end(text, m.start(), m.end(), last)
                out.append((m.start(), end))
    return out


def signed_sections(text: str) -> list[tuple[str, int, int]]:
    """(name, start, end) of each docstring in the document: its signature's last name part, and its span."""
    out = []
    for m in _SIGNATURE_AT.finditer(text):
        out.append((m.group(1).rsplit(".", 1)[-1], m.start(), _section_end(text, m.start(), m.end())))
    return out


def _owners(text: str, title: str, name: str) -> bool:
    """Is the document the one of the owner the dotted name writes (`os` of `os.walk`): titled after it, defining
    it, or naming it in its opening? Only there does a bare `def walk(` define `os.walk`. True without an owner."""
    name = name.removesuffix("()")
    if "." not in name:
        return True
    owner = name.rsplit(".", 1)[0]
    spec = specific(title)
    if spec == owner or spec.endswith("." + owner) or owner.endswith("." + spec):
        return True
    last = owner.rsplit(".", 1)[-1]
    if re.search(rf"^(?:class {re.escape(last)}\b|{re.escape(last)}\()", text, re.M):
        return True
    return re.search(rf"(?<![\w.]){re.escape(owner)}(?![\w])", text[:OPENING_CHARS]) is not None


# Openings that point at text not shown: a connective ("For instance,", "However,") or a pronoun ("This", "It").
_DANGLING = re.compile(
    r"^\W*(?:for\s+(?:instance|example)|however|also|moreover|furthermore|in\s+addition|additionally|thus|therefore|"
    r"hence|consequently|otherwise|instead|similarly|likewise|conversely|nevertheless|nonetheless|still|besides|"
    r"then|so|but|and|or|yet|in\s+(?:this|that|such|either|both)\s+\w+|as\s+(?:such|a\s+result)|"
    r"this|that|these|those|such|it|its|they|their|them|he|she|his|her|the\s+latter|the\s+former|"
    r"the\s+same|finally)\b",
    re.I,
)


# "then" among a sentence's first words tells of a step told before, unless it opens with its own condition or time.
_THEN = re.compile(
    r"^\W*(?!(?:if|when|whenever|once|after|before|unless|until|while|as\s+soon)\b)(?:[\w`'’.*()-]+\s+){1,3}then\b",
    re.I,
)


def stands_alone(sentence: str) -> bool:
    """Does the sentence read without the text before it: not opening with a connective or a pronoun that points back
    ("However, ...", "This ..."), nor telling of a step after one told before ("... are then combined")?"""
    text = sentence.strip()
    return not (_DANGLING.match(text) or _THEN.match(text))


def criterion_words(criterion: str) -> set[str]:
    """The criterion's content words and the words it is commonly discussed with (`lexical.RELATED`)."""
    return set().union(*criterion_groups(criterion))


def answer_type(question: str) -> str:
    """What kind of answer the question asks for (checked in this order)."""
    q = question.strip()
    if _YESNO.match(q):
        return YESNO
    return next((kind for kind, pattern in _KIND_Q if pattern.search(q)), OTHER)


def has_type(sentence: str, kind: str, exclude: str = "") -> bool:
    """Does the sentence carry a phrase of the asked-for type that `exclude` (the question) does not already hold?"""
    pattern = {DATE: _DATE_S, NUMBER: _NUMBER_S, PLACE: _PLACE_S, PERSON: _NAME_S}.get(kind)
    if pattern is None:
        return False
    if kind == NUMBER:
        sentence = _YEAR.sub("", sentence)  # years are dates, not counts
    asked = exclude.lower()
    return any(m.group(0).lower() not in asked for m in pattern.finditer(sentence))


def entities(text: str) -> list[str]:
    """Named things in the text, in order: quoted titles, code names and capitalized phrases."""
    found: list[str] = []
    for m in _ENTITY.finditer(text):
        name = next(g for g in m.groups() if g).strip().strip("`").strip(" .,;:")
        words = name.split()
        while words and words[0].lower() in _NOT_NAMES:
            words = words[1:]  # "The", "In", "He" at the start of a sentence
        while words and words[-1].lower() in _NOT_NAMES:
            words = words[:-1]
        name = " ".join(words)
        if len(name) < 2 or not content_words(name):
            continue
        if name.lower() not in (f.lower() for f in found):
            found.append(name)
    return found


def title_words(title: str) -> set[str]:
    """A document title's content words, its parenthetical left out ("Mayfair (magazine)" → mayfair)."""
    return content_words(re.sub(r"\([^)]*\)", " ", title))


def title_match(name: str, title: str) -> float:
    """How well a document's title names this thing: 1 the same name, 0.5 one holds at least half the other's words."""
    if _DOTTED.fullmatch(name) and title.split():
        # A code name against a module's title ("json.dumps" ~ "...: json"; "asyncio.gather" ~ "...: asyncio.tasks").
        module, parts = title.split()[-1].lower(), name.lower().split(".")
        if module in (name.lower(), ".".join(parts[:-1])):
            return 1.0
        if module.split(".")[0] == parts[0]:
            return 0.5
    a, b = content_words(name), title_words(title)
    if not a or not b:
        return 0.0
    if a == b:
        return 1.0
    if (a <= b or b <= a) and min(len(a), len(b)) / max(len(a), len(b)) >= 0.5:
        return 0.5
    return 0.0


@dataclass
class Ask:
    """A question, ready to score sentences against."""

    text: str
    words: set[str]
    kind: str
    names: list[str]
    weights: dict[str, float] = field(default_factory=dict)
    keywords: list[str] = field(default_factory=list)  # Python statements it asks about
    code: list[str] = field(default_factory=list)  # code names it writes
    tokens: set[str] = field(default_factory=set)  # its identifier-like words, lower case (module names)
    within: str = ""  # the module it opens by naming ("With poplib, ...")

    @classmethod
    def of(cls, question: str, extra: str = "") -> Ask:
        return cls(
            question,
            content_words(question) | content_words(extra),
            answer_type(question),
            entities(question),
            keywords=keywords_named(question),
            code=list(dict.fromkeys(m.group(0) for m in _CODE_NAME.finditer(question))),
            tokens={t.lower() for t in re.findall(r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*", question)},
            within=module_first(question),
        )

    def rest(self, covered: set[str]) -> Ask:
        """The question less the words `covered` (what a bridge sentence already answers); same type and weights."""
        return Ask(self.text, self.words - covered, self.kind, self.names, self.weights, self.keywords, self.code)

    def weigh(self, passages: list[str]) -> None:
        """Weight each question word by its rarity among the retrieved passages (smoothed idf)."""
        n = len(passages)
        sets = [content_words(p) for p in passages]
        self.weights = {w: math.log(1 + (n + 1) / (1 + sum(w in s for s in sets))) for w in self.words}

    def weight(self, word: str) -> float:
        return self.weights.get(word, 1.0)

    def coverage(self, words: set[str]) -> float:
        """Weighted share of the question's words present."""
        total = sum(self.weight(w) for w in self.words)
        return sum(self.weight(w) for w in self.words & words) / total if total else 0.0

    def titled(self, title: str, names: list[str] | None = None) -> float:
        """How well the document's title names something the question names (or one of `names`): 0, 0.5 or 1. Also
        a statement it asks about, a module it writes as a word (half: "copy" may be English) or opens by naming."""
        best = max((title_match(n, title) for n in (self.names if names is None else names)), default=0.0)
        if names is None and title:
            best = max(best, *(keyword_title(kw, title) for kw in self.keywords), 0.0)
            spec = specific(title).lower()
            written = spec in self.tokens or spec.split(".")[0] in self.tokens  # a module it writes as a word
            if written and re.fullmatch(r"[a-z_][\w]*(?:\.[a-z_]\w*)*", spec):
                best = max(best, 0.5)
            # the module the question opens by naming (and its submodules), or a topic whose title it says
            if self.within and (spec + ".").startswith(self.within + ".") or phrase_title(title, self.lower_words):
                best = 1.0
        return best

    @cached_property
    def lower_words(self) -> set[str]:
        """The content words the question writes in lower case (not as names): what `phrase_title` compares."""
        return content_words(" ".join(re.findall(r"\b[a-z][\w'-]*", self.text)))

    def in_name(self, sentence: str) -> set[str]:
        """The question's words that the name a sentence's opening signature line documents holds ("split a URL" ~
        `def urlsplit(url, ...)`): a function's name says what it does as much as its docstring."""
        m = SIGNED_NAME.match(sentence.lstrip())
        if not m:
            return set()
        name = m.group(1).rsplit(".", 1)[-1].lower()
        raw = {w for w in re.findall(r"[a-z]+", self.text.lower()) if len(w) >= 3 and w in name}
        return content_words(" ".join(raw)) & self.words

    def score(self, sentence: str, title: str = "", *, first: bool = False, titled: float | None = None) -> float:
        """How well `sentence` (of a document titled `title`, naming what the question names by `titled`, from the
        title when not given) answers the question; about 0..2."""
        words = content_words(sentence) | self.in_name(sentence)
        context = content_words(title) - words
        score = self.coverage(words) + 0.5 * self.coverage(context)
        if titled is None:
            titled = self.titled(title) if title else 0.0
        score += TITLED * titled
        if has_type(sentence, self.kind, self.text):  # never for a yes/no question or another
            score += TYPED
        if first:
            score += FIRST
        return score

    def new_names(self, sentence: str) -> list[str]:
        """Named things the sentence mentions that the question does not: candidate bridges."""
        return [n for n in entities(sentence) if not (content_words(n) <= self.words)]
