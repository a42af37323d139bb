"""The answer check's rule on words alone: what a research question asks for (`ask_of`: its subject and the
kinds of answer it wants, `Ask`), and whether cited quotes give it (`judge`). `evidence/answers.py` applies it to a
run's cited evidence and describes the rule in full; this module is the rule itself, with no run in sight."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from harness.contract.quotes import normalize_ws
from harness.contract.statuses import ANSWERED, NOT_ANSWERED, PARTLY, AnswerVerdict
from harness.evidence.lexical import content_words, coverage, criterion_groups
from harness.sources.tokens import tokenize

SUBJECT_SHARE = 0.5  # of the question's topic words (other than names) the cited quotes must hold together
QUOTE_SHARE = 0.66  # of those words one quote must hold to be about the subject (2 of 2, 2 of 3, 3 of 4)
WORDS_ENOUGH = 4  # topic words that are enough in a long question, whatever its share
WORDS_WITH_NAMES = 3  # a question with names: its other topic words count from this many on
HEADING_WORDS = 12  # a whole line of its source this short, with no full stop and no code, is a heading
# What a reason says when the cited quotes miss a thing the question names: its subject, a name it asks about, a
# comparison's side (`checks.gap_wants_new_source` reads them).
UNNAMED = "do not name"
ON_SIDE = "a statement on"
LACK = "lack"  # before the kinds of answer the cited quotes do not give

# The offline Planner's wrapper around a subject ("What do the sources say about X?"): it asks for statements.
_WRAPPER = re.compile(
    r"^\s*(?:what do(?:es)? the (?:sources|documents?) say (?:about|on)|find what the sources say about)\s+", re.I
)
_COMPARE = re.compile(r"\b(?:differ\w*|difference\w*|compare\w*|comparison|versus|vs\.?|contrast\w*)\b", re.I)
_BETWEEN = re.compile(r"\bbetween\s+(.+?)\s+and\s+(.+?)(?=\s+(?:in|on|for|regarding|when|with)\b|[?,.;]|$)", re.I)
_SIDES = re.compile(
    r"^\s*(?:how|why|where|in what ways?)\s+(?:do|does|did)\s+(.+?)\s+and\s+(.+?)\s+(?:differ|compare|contrast)", re.I
)
_HOW_TO = re.compile(
    r"\bhow (?:do|can|could|should|would|must|may) (?:i|you|we|one|they)\b|\bhow to\b|\bwhat (?:is|are) the steps?\b|\bsteps? to\b",
    re.I,
)
_DEFINE = re.compile(
    r"^\s*(?:what|who)\s+(?:is|are|was|were)\b|\bwhat does .+ (?:mean|stand for|do)\b|\bdefin(?:e|ition)\b|\bmeaning of\b",
    re.I,
)
_DEFINE_FRAME = re.compile(
    r"^\s*(?:what|who)\s+(?:is|are|was|were|does|do)\b|\b(?:mean|stand for|do)\s*\?\s*$|\bdefin(?:e|ition)\b|\bmeaning of\b",
    re.I,
)
_WHY = re.compile(r"^\s*why\b|\bfor what reason\b", re.I)
_NUMBER_ASKED = re.compile(
    r"\bhow (?:many|much|large|big|long|old|often|far|high|tall|fast|small|deep|wide|heavy|low)\b"
    r"|\bwhat (?:percentage|proportion|share|size|number|amount|fraction|rate)\b"
    r"|\bwhat (?:is|are|was|were) the (?:number|size|amount|cost|price|rate|percentage|height|length|depth|limit|default)\b",
    re.I,
)
_WHEN = r"(?:^\s*|[,;]\s*(?:and\s+)?)when\b"
_MODALS = r"(?:should|would|do|can|could|must|might|may)"
# "When should I use X?": a recommendation, or a circumstance of the reader's ("if you ..."), not a time.
_ADVICE_ASKED = re.compile(_WHEN + rf"\s+{_MODALS}\s+(?:i|you|we|one)\b|" + _WHEN + r"\s+is it\b|\bwhen to\b", re.I)
# "When is a PoolTimeout raised?", "When does the hook run?": a circumstance, or a time.
_CIRCUMSTANCE_ASKED = re.compile(_WHEN + rf"\s+(?:is|are|does|will|{_MODALS})\b", re.I)
_DATE_ASKED = re.compile(
    _WHEN + rf"(?!\s+(?:is|are|does|will|to|{_MODALS})\b)"
    r"|\b(?:what|which)\s+(?:[\w.-]+\s+){0,2}?(?:year|date|month|day|version|release)s?\b|\bsince when\b",
    re.I,
)
# "When taking a lock, why must ...?", "If I ..., how do I ...?": a condition set before the question, not what it
# asks for; the kinds of answer are read from what follows it.
_LEADING_CONDITION = re.compile(r"^\s*(?:when|if|once|while|after|before)\b[^,?:;]*[,:;]\s*(?=\S)", re.I)
_NAME_ASKED = re.compile(
    r"^\s*who\b|[,;]\s*(?:and\s+)?who\b|\b(?:which|what) (?:person|people|company|companies|organi[sz]ation|author|team|country|city|module|function|class|library|package|tool|command)\b",
    re.I,
)

_DEFINES = re.compile(
    r"\b(?:is|are|was|were|means?|meant|refers? to|stands? for|denotes?|represents?|describes?|returns?|provides?|"
    r"lets?|allows?|enables?|is called|are called|consists? of|contains?|holds?|creates?|makes?)\b",
    re.I,
)
CODE_TOKEN = re.compile(
    r"`[^`]+`|\b[A-Za-z_]\w*\([^)]*\)|\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b|\b[a-z]+_[a-z0-9_]+\b|(?:^|\s)--?[A-Za-z][\w-]*"
    r"|\b\w+=\S+|\b[\w.-]+/[\w./-]+|(?:^|\s)\$\s+\w|\b[a-z]+[A-Z]\w*\b|\b[A-Z][a-z]+[A-Z]\w*\b|\b[a-z_]+!(?=[\s(])"
)
_INSTRUCTION = re.compile(
    r"(?:^|[.;:]\s+|,\s+|\bthen\s+|\bfirst,?\s+|\bto [^,.]{1,60},\s+)"
    r"(?:use|call|run|pass|set|add|install|type|enter|press|click|select|choose|configure|specify|import|create|write|"
    r"open|put|place|invoke|execute|define|apply|enable|disable|replace|remove|wrap|await|return|raise|catch|print)\b"
    r"|\byou(?:'ll|’ll| will)? (?:can|could|may|should|must|need|have to)\s+(?:to\s+)?(?:also\s+|instead\s+|simply\s+|then\s+)?\w+"
    r"|\bby (?:using|passing|calling|setting|adding|running|specifying|writing|importing|creating|defining)\b",
    re.I,
)
_REASON = re.compile(
    r"\b(?:because|since|so that|due to|in order to|to avoid|to prevent|to ensure|as a result|therefore|thus|hence|"
    r"the reason|otherwise|which means|so as to)\b",
    re.I,
)
_NUMBER_WORDS = (
    r"zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundreds?|"
    r"thousands?|millions?|billions?|dozens?|twice|half|double|triple|percent|per cent"
)
_NUMBER = re.compile(rf"\d|\b(?:{_NUMBER_WORDS})\b", re.I)
_DATE = re.compile(
    r"\b(?:1[5-9]\d\d|20\d\d)\b|\b(?:January|February|March|April|June|July|August|September|October|November|"
    r"December)\b|\bMay\s+\d|\d\s+May\b|\b[vV]?\d+\.\d+(?:\.\d+)*\b"
)
_PROPER = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][\w'’-]+")
_NAME_IN_QUESTION = re.compile(
    r"`[^`]+`|\b[A-Z][\w.-]*/[\w.-]*\w|\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))?|\b[a-z]+_[a-z0-9_]+\b|\b[A-Z][a-z]*[A-Z]\w*\b"
)
SENTENCE_END = re.compile(r"[.!?;:)\]\"'”’]\s*$")


def _names(text: str) -> list[tuple[str, str]]:
    """The names a question gives, each as (as written, the word a quote must hold): code names (`x`, a.b,
    snake_case, CamelCase: a dotted name's last part) and capitalized words past the first (proper names)."""
    found: list[tuple[str, str]] = []
    for m in _NAME_IN_QUESTION.finditer(text):
        code = m.group(0).strip("`").removesuffix("()")
        found.append((m.group(0), code if "/" in code else code.rsplit(".", 1)[-1]))
    words = re.findall(r"[\w'’-]+", _NAME_IN_QUESTION.sub(" ", text))
    for i, w in enumerate(words):
        if i and w[:1].isupper() and w != "I" and w.lower() not in _CAPITALIZED_SCAFFOLD:
            found.append((w, w[:-2] if w.endswith(("'s", "’s")) else w))
    out: list[tuple[str, str]] = []
    for written, name in found:
        if name and name.lower() not in (o.lower() for _, o in out):
            out.append((written, name))
    return out


_CAPITALIZED_SCAFFOLD = frozenset(
    {"what", "how", "which", "who", "why", "when", "where", "compare", "is", "are", "do", "does"}
)
# Words that frame a question without naming its topic ("only one specific test": the topic is the test).
_FRAME = content_words(
    "only one specific particular certain exactly them they thing things way ways get need want also my your our its own"
    " rather than instead worth through plain"
)


def _has_name(name: str, text: str) -> bool:
    """`name` is in `text`: every word of it, as the one tokenizer stems it ("taskgroups" names TaskGroup); a name
    the tokenizer drops ("None", a stopword) as a whole word."""
    stems = set(tokenize(name))
    if "/" in name and re.search(r"\d", name):  # "HTTP/2": its number is part of it
        return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text, re.I) is not None
    if not stems:
        return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text) is not None
    return stems <= set(tokenize(text))


@dataclass(frozen=True)
class Finding:
    """A cited quote, and where it stands: its source's title and the heading (or signature line) above it in the
    source. The subject may be named in either (a quote under "asyncio.TaskGroup" need not repeat the name); the
    kind of answer must be in the quote itself."""

    quote: str
    context: str = ""

    @property
    def text(self) -> str:
        return f"{self.context} {self.quote}"


@dataclass(frozen=True)
class Requirement:
    """One kind of answer the question asks for: its label (said in a reason), the test a quote must pass, and
    whether that quote must itself be about the subject (a criterion's quote need not: it is the side's card)."""

    label: str
    test: object = field(compare=False)  # (quote) -> bool
    on_subject: bool = True
    focused: bool = False


@dataclass(frozen=True)
class Ask:
    """What a research question asks: its subject (names, topic words) and the kinds of answer it wants."""

    question_id: str
    names: tuple[str, ...]
    words: frozenset[str]
    requirements: tuple[Requirement, ...]
    text: str = ""  # the question as asked (the offline Planner's wrapper left out), for the judge of meaning

    @property
    def words_count(self) -> bool:
        """Its topic words are part of the subject: always without names; with names, when there are three or
        more (with fewer, the names carry the subject: "When was asyncio.TaskGroup added?")."""
        return bool(self.words) and (not self.names or len(self.words) >= WORDS_WITH_NAMES)

    def holds_words(self, text: str, share: float) -> bool:
        """`text` holds `share` of the topic words, or WORDS_ENOUGH of them in a long question."""
        have = len(set(self.words) & content_words(text))
        return have >= min(math.ceil(len(self.words) * share - 1e-9), WORDS_ENOUGH)

    def about(self, f: Finding) -> bool:
        """`f` is about the subject: its quote or context holds a name the question gives, or most of its topic
        words when they count (two of two, two of three, three of four, then four)."""
        if not self.names and not self.words_count:
            return True
        if any(_has_name(n, f.text) for n in self.names):
            return True
        return self.words_count and self.holds_words(f.text, QUOTE_SHARE)

    def on_focus(self, f: Finding) -> bool:
        """`f` holds the question's focus: half its topic words (four are enough), whatever names it holds: a
        step for "how do I bump the version" is a step about bumping the version, not any step under the name."""
        if not self.words:
            return True
        have = content_words(f.text)
        held = sum(any(_same_word(w, h) for h in have) for w in self.words)
        return held >= min(math.ceil(len(self.words) * SUBJECT_SHARE - 1e-9), WORDS_ENOUGH)

    def met(self, req: Requirement, f: Finding) -> bool:
        quote = answering_part(f.quote)
        return (
            bool(quote)
            and bool(req.test(quote))  # type: ignore[operator]
            and (not req.on_subject or self.about(f))
            and (not req.focused or self.on_focus(f))
        )


def _same_word(a: str, b: str) -> bool:
    """Two stems of one word: equal, or one the other's start, four letters or more ("fail" and "failur")."""
    short, long_ = sorted((a, b), key=len)
    return a == b or (len(short) >= 4 and long_.startswith(short))


def _criterion_test(criterion: str, side: str | None = None):
    """A quote on the criterion (half its words, each or a word it is commonly discussed with: "error handling"
    is spoken of as exceptions, `lexical.RELATED`), and on the side when one is named."""
    groups = criterion_groups(criterion)

    def test(quote: str) -> bool:
        words = content_words(quote)
        on_it = bool(groups) and sum(bool(g & words) for g in groups) / len(groups) >= SUBJECT_SHARE
        return on_it and (
            side is None
            or _has_name(side, quote)
            or coverage(content_words(side), content_words(quote)) >= SUBJECT_SHARE
        )

    return test


def _new_number(question: str):
    asked = set(re.findall(r"\d+(?:\.\d+)*", question))
    return lambda q: bool(
        _NUMBER.search(re.sub(r"\d+(?:\.\d+)*", lambda m: "" if m.group(0) in asked else m.group(0), q))
    )


def _new_name(question: str):
    asked = {w.lower() for w in re.findall(r"[\w'’-]+", question)}
    return lambda q: any(m.group(0).lower() not in asked for m in _PROPER.finditer(q)) or bool(CODE_TOKEN.search(q))


def _sides(text: str, names: list[str]) -> list[str]:
    if len(names) >= 2:
        return names
    for pattern in (_BETWEEN, _SIDES):
        m = pattern.search(text)
        if m:
            return [m.group(1).strip(), m.group(2).strip()]
    return names


def _procedure(names: list[str]):
    """A step, command or setting, naming a code name the question does not give (or a click): an instruction to
    the reader ("use", "run", "you can set", "you'll need", "can be enabled with"), a command, option or setting
    named as such ("the `add` command", "the `--check` flag"), a sentence opening with a command, or a command line
    alone. A code name inside a sentence about something else ("... installs the dependencies under
    `build-system.requires`") is not a step, nor is an instruction without one ("You can also disable the
    timeout behavior completely")."""
    given = {n.lower() for n in names}

    def new_code(text: str) -> bool:
        codes = (m.group(0).strip().strip("`").removesuffix("()").rsplit(".", 1)[-1] for m in CODE_TOKEN.finditer(text))
        return any(c.lower() not in given for c in codes)

    def test(q: str) -> bool:
        if not (new_code(q) or _UI_STEP.search(q)):
            return False  # "You can also disable the timeout behavior completely": says it can be done, not how
        if _INSTRUCTION.search(q) or _PASSIVE_STEP.search(q):
            return True
        if any(new_code(m.group(0)) for m in _COMMAND_NAMED.finditer(q)):
            return True
        return any(
            (_CODE_OPENS.match(s) and new_code(s.split()[0]))
            or (not SENTENCE_END.search(s) and len(s.split()) <= HEADING_WORDS and new_code(s))
            for s in _sentences(q)
        )

    return test


_UI_STEP = re.compile(r"\b(?:click|double-click|right-click|press|tap|tick|untick|drag)\b", re.I)
_COMMAND_WORDS = (
    r"(?:sub)?commands?|options?|flags?|settings?|switch(?:es)?|arguments?|parameters?|keywords?|keys?|fields?|"
    r"directives?|pragmas?|hooks?|variables?|sections?|modes?|rules?|entr(?:y|ies)"
)
_COMMAND_NAMED = re.compile(
    rf"(?:`[^`]+`|(?<!\S)--?[A-Za-z][\w-]*)\s+(?:{_COMMAND_WORDS})\b|\b(?:{_COMMAND_WORDS})\s+(?:`[^`]+`|--?[A-Za-z][\w-]*)",
    re.I,
)
_CODE_OPENS = re.compile(r"^\s*(?:`[^`]+`|\$\s+\w|--?[A-Za-z])")
_PASSIVE_STEP = re.compile(
    r"\b(?:can|may|should|must|is|are) be (?:\w+ly\s+)?(?:\w+ed|\w+en|set|run|put|built|turned (?:on|off))"
    r"\s+(?:with|by|via|using|through)\b",
    re.I,
)
# A sentence that answers nothing whatever its words: a question (rhetorical, or the asker's own in a FAQ), a
# pointer elsewhere ("See Using plugins for ..."), the asker's voice ("I don't want ..."), a plan of the page.
_NOT_AN_ANSWER = re.compile(
    r"\?[\s\"'”’)]*$|^\s*(?:see|refer to|read more|for more(?: information| details)?\b|more (?:on|about) this)\b"
    r"|^\s*i(?:'m|’m|'ve|’ve| am| do| don't| don’t| want| would| need| have| can| get| tried)\b"
    r"|^\s*(?:let's|let’s|we(?:'ll|’ll| will| are going to)|next,? we|in this (?:section|guide|tutorial|chapter|page|document),? we)\b"
    r"|^\s*this (?:section|guide|tutorial|chapter|page|document) (?:describes|explains|shows|covers|walks)\b",
    re.I,
)
_SENTENCE = re.compile(r"(?<=[.!?])[\"'”’)\]]*\s+(?=[\"'“‘(\[`]*[A-Z`$-])")


def _sentences(quote: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(normalize_ws(quote)) if s.strip()]


def answering_part(quote: str) -> str:
    """The quote less its sentences that answer nothing whatever they hold (`_NOT_AN_ANSWER`): a question, a
    pointer elsewhere, the asker's voice, the page's plan."""
    return " ".join(s for s in _sentences(quote) if not _NOT_AN_ANSWER.search(s))


# "X is available", "X are enabled": a state of the subject, not what it is.
_STATE = re.compile(
    r"\b(?:is|are|was|were)\s+(?:not\s+|only\s+|also\s+|now\s+|still\s+|always\s+|never\s+)?(?:available|enabled|"
    r"disabled|supported|unsupported|installed|present|shown|displayed|listed|allowed|ignored|skipped|selected|found|"
    r"missing|required|optional|needed|possible|deprecated|given|specified|included|excluded|omitted|applied|"
    r"recommended|done|true|false|set|configured|important|useful|helpful|good|bad|fine|ok|okay)\b",
    re.I,
)


def _definition(names: list[str], words: frozenset[str]):
    """A definition: a sentence that says what the subject is or does ("is", "means", "refers to", "lets"...), the
    defining verb after a topic word of the question (after a name, for a question without topic words): the
    subject is the sentence's subject (in "Note this behavior is different from optional groups", it is not), and
    not only a state ("are available")."""

    def test(q: str) -> bool:
        for sentence in _sentences(q):
            for m in _DEFINES.finditer(sentence):
                if _STATE.match(sentence, m.start()):
                    continue
                before = sentence[: m.start()]
                if words:  # "What are hooks in MkDocs?": the subject is hooks, not MkDocs
                    if any(_same_word(w, h) for w in words for h in content_words(before)):
                        return True
                elif not names or any(_has_name(n, before) for n in names):
                    return True
        return False

    return test


def _reason(q: str) -> bool:
    return bool(_REASON.search(q))


_ADVICE = re.compile(
    r"\b(?:if|when|whenever|unless|once|as long as) you\b|\b(?:should|recommend\w*|prefer\w*|better|best|useful|"
    r"convenient|suitable|appropriate|ideal|instead of|rather than|avoid\w*|needed|necessary|required|makes? sense)\b"
    r"|(?:^|[.;:]\s+)(?:use|set|choose|pick|enable|disable|add|run|install|prefer)\b[^.;]*\b(?:when|if|unless|for)\b"
    r"|(?:^|[.;:,]\s+|\band\s+)(?:use|choose|pick|prefer)\s+[^.;]{1,60}?\s+to\s+\w+",
    re.I,
)
_CIRCUMSTANCE = re.compile(
    r"\b(?:if|when|whenever|unless|once|until|before|after|while|as soon as|each time|every time|as long as)\b", re.I
)


def _advice(q: str) -> bool:
    """A recommendation ("should", "prefer", "is needed", "use X when ..."), or the reader's circumstance ("if
    you ..."): "the option is forced to false if site_url is empty" describes the tool, it advises nothing."""
    return bool(_ADVICE.search(q))


def _circumstance(question: str):
    """A circumstance ("if", "when", "once", "before"...) or a date or version the question does not give."""
    dated = _dated(question)
    return lambda q: bool(_CIRCUMSTANCE.search(q)) or dated(q)


def _dated(question: str):
    """A year, a month or a version number the question does not already give."""
    asked = set(re.findall(r"\d+(?:\.\d+)*", question))
    return lambda q: any(m.group(0).lstrip("vV") not in asked for m in _DATE.finditer(q))


def _statement(q: str) -> bool:
    return bool(_DEFINES.search(q)) or len(q.split()) >= 6


def ask_of(question: dict, criteria: list[str] | None = None) -> Ask:
    """What `question` (a plan question) asks; `criteria` are the plan's, used when the question names none."""
    raw = question.get("text", "")
    text = _WRAPPER.sub("", raw)
    asked = _LEADING_CONDITION.sub("", text)  # what the question asks, its opening condition aside
    crit = list(question.get("criteria") or criteria or [])
    subject_text = text
    for phrase in [*crit, "with respect to", "in terms of"]:
        subject_text = re.sub(re.escape(phrase), " ", subject_text, flags=re.I)
    for asking in (_HOW_TO, _NUMBER_ASKED, _ADVICE_ASKED, _CIRCUMSTANCE_ASKED, _DATE_ASKED, _DEFINE_FRAME, _WHY):
        subject_text = asking.sub(" ", subject_text)
    named = _names(subject_text)
    names = [n for _, n in named]
    words = frozenset(content_words(subject_text) - content_words(" ".join(w for w, _ in named)) - _FRAME)
    reqs: list[Requirement] = []
    if _COMPARE.search(text) and len(sides := _sides(subject_text, names)) >= 2:
        for side in sides:
            if crit:
                reqs += [Requirement(f"{c} for {side}", _criterion_test(c, side), False) for c in crit]
            else:
                reqs.append(Requirement(f"{ON_SIDE} {side}", _criterion_test(side), False))
        return Ask(question["id"], tuple(names), words, tuple(reqs), normalize_ws(text).strip())
    reqs += [Requirement(c, _criterion_test(c), False) for c in crit]
    if _HOW_TO.search(asked):
        reqs.append(Requirement("a step, command or setting", _procedure(names), focused=True))
    elif _ADVICE_ASKED.search(asked):
        reqs.append(Requirement("a recommendation or circumstance", _advice, focused=True))
    elif _CIRCUMSTANCE_ASKED.search(asked):
        reqs.append(Requirement("a circumstance, date or version", _circumstance(raw), focused=True))
    elif _DEFINE.search(asked) and not _NUMBER_ASKED.search(asked):
        reqs.append(Requirement("a definition", _definition(names, words), focused=True))
    elif _WHY.search(asked):
        reqs.append(Requirement("a reason", _reason, focused=True))
    if _NUMBER_ASKED.search(asked):
        reqs.append(Requirement("a number", _new_number(raw)))
    if _DATE_ASKED.search(asked):
        reqs.append(Requirement("a date or version", _dated(raw)))
    if _NAME_ASKED.search(asked):
        reqs.append(Requirement("a name", _new_name(raw)))
    if not reqs:
        reqs.append(Requirement("a statement", _statement, focused=True))
    return Ask(question["id"], tuple(names), words, tuple(reqs), normalize_ws(text).strip())


@dataclass(frozen=True)
class QuestionVerdict:
    """One research question's answer verdict, with why, and the claims it was judged on."""

    question_id: str
    verdict: AnswerVerdict
    reason: str
    claims: tuple[str, ...] = ()
    met: tuple[str, ...] = ()


def judge(ask: Ask, findings: list[Finding], claims: tuple[str, ...] = ()) -> QuestionVerdict:
    """The verdict on `ask` from `findings`, the cited quotes (headings and titles already left out)."""
    qid = ask.question_id
    if not findings:
        return QuestionVerdict(qid, NOT_ANSWERED, "no finding is cited for it", claims)
    joined = " ".join(f.text for f in findings)
    missing_names = [n for n in ask.names if not _has_name(n, joined)]
    if ask.names and len(missing_names) == len(ask.names):
        return QuestionVerdict(
            qid, NOT_ANSWERED, f"the cited quotes {UNNAMED} its subject ({_and(missing_names)})", claims
        )
    if ask.words_count and not ask.holds_words(joined, SUBJECT_SHARE):
        what = ", ".join(sorted(ask.words))
        return QuestionVerdict(qid, NOT_ANSWERED, f"the cited quotes {UNNAMED} its subject (words: {what})", claims)
    met = tuple(r.label for r in ask.requirements if any(ask.met(r, f) for f in findings))
    unmet = [r.label for r in ask.requirements if r.label not in met]
    if not unmet and not missing_names:
        return QuestionVerdict(qid, ANSWERED, f"the cited quotes name its subject and give {_and(met)}", claims, met)
    gaps = ([f"{UNNAMED} {_and(missing_names)}"] if missing_names else []) + ([f"{LACK} {_or(unmet)}"] if unmet else [])
    if not met:
        return QuestionVerdict(qid, NOT_ANSWERED, f"the cited quotes name its subject but {' and '.join(gaps)}", claims)
    return QuestionVerdict(
        qid, PARTLY, f"the cited quotes give {_and(list(met))} but {' and '.join(gaps)}", claims, met
    )


def _or(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def _and(items: list[str] | tuple[str, ...]) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
