"""Judging one sentence: `classify`, with the facts it reads (`_Facts`) and where it sits (`Setting`)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from harness.contract.injection import (
    AGENT_ORDER,
    ORDER_TO_ANSWERER,
    OUTPUT_FORMAT,
    OVERRIDE,
    PROMOTION,
    UNRELATED_REQUEST,
    InjectionReason,
)
from harness.sources.injection.patterns import (
    _AGENT_GATE,
    _AGENT_RE,
    _AI_ORDER,
    _ANAPHORA,
    _ANSWER_LEAD,
    _ANSWER_VERB_START,
    _ANSWERING,
    _AUDIENCE_ANYWHERE,
    _AUDIENCE_GERUND,
    _CLAUSE,
    _CODE_MARK,
    _FORM_UNITS,
    _IN_LANG,
    _INDIRECT,
    _LABEL,
    _LANG_QUESTION,
    _LANG_WORDS,
    _LINK,
    _LIST_MARKER,
    _ME_REQUEST,
    _MODAL,
    _NOT_TOPIC,
    _NTH,
    _ONLY,
    _OUT_NOUNS,
    _OUT_STEMS,
    _OVERRIDE_GATE,
    _OVERRIDE_RE,
    _PROMO,
    _PROMOTING,
    _QA_LABEL,
    _QUOTED,
    _SOFT,
    _THE_ANSWER_OBJECT,
    _THE_OUT_OBJECT,
    _THE_OUT_PLACE,
    _THE_OUT_SUBJECT,
    _TLDS,
    _TO_AUDIENCE,
    _TRANSFORM,
    _TRANSLATE,
    _UNIT_POS,
    _WEAK_NOUNS,
    _WORDS,
    _YOU_QUESTION,
    _YOU_TO,
    _YOUR_OWN,
    _YOUR_STRONG,
    _YOUR_WEAK,
    _first_word,
    _imperative,
    _is_request,
    _topic_words,
)
from harness.sources.tokens import (
    tokenize,
)


class _Facts:
    """What a sentence contains, each fact computed on first use: most sentences need only a few,
    and a cheap word test stands before every costly pattern."""

    def __init__(self, s: str):
        self.s = s
        self.low = s.lower()
        self.words = set(_WORDS.findall(self.low))
        self._memo: dict[str, bool] = {}

    def _get(self, key: str, compute) -> bool:
        if key not in self._memo:
            self._memo[key] = bool(compute())
        return self._memo[key]

    @property
    def answer_words(self) -> bool:
        return self._get("answer_words", lambda: any(w in self.low for w in _OUT_STEMS))

    @property
    def strong(self) -> bool:
        return self._get(
            "strong", lambda: self.answer_words and (_YOUR_STRONG.search(self.s) or _ANSWERING.search(self.s))
        )

    @property
    def weak(self) -> bool:
        return self._get("weak", lambda: "your" in self.words and _YOUR_WEAK.search(self.s))

    @property
    def out_place(self) -> bool:
        return self._get("out_place", lambda: self.answer_words and _THE_OUT_PLACE.search(self.s))

    @property
    def form(self) -> bool:
        return self._get(
            "form",
            lambda: (
                _FORM_UNITS.search(self.s) or _UNIT_POS.search(self.s) or (self.language and _IN_LANG.search(self.s))
            ),
        )

    @property
    def transform(self) -> bool:
        return self._get("transform", lambda: _TRANSFORM.search(self.s) or _NTH.search(self.s))

    @property
    def link(self) -> bool:
        low = self.low
        return self._get(
            "link",
            lambda: (
                ("http" in low or "www." in low or "@" in low or any(t in low for t in _TLDS)) and _LINK.search(self.s)
            ),
        )

    @property
    def language(self) -> bool:
        return self._get("language", lambda: not self.words.isdisjoint(_LANG_WORDS))

    @property
    def code(self) -> bool:
        return self._get("code", lambda: _CODE_MARK.search(self.s))


class DocumentWords:
    """A document's words, counted once, on first use (most documents hold no sentence that needs them)."""

    def __init__(self, text: str):
        self.text = text
        self._topic: Counter[str] | None = None
        self._words: Counter[str] | None = None

    def topic_elsewhere(self, sentence: str, words: set[str]) -> set[str]:
        """Those of the topic `words` the document uses outside `sentence`."""
        if self._topic is None:
            self._topic = Counter(w for w in tokenize(self.text) if w not in _NOT_TOPIC)
        own = Counter(w for w in tokenize(sentence) if w not in _NOT_TOPIC)
        return {w for w in words if self._topic[w] > own[w]}

    def uses_elsewhere(self, sentence: str, words: set[str], times: int) -> bool:
        """Does the document use any of `words` at least `times` times outside `sentence`?"""
        if self._words is None:
            self._words = Counter(_WORDS.findall(self.text.lower()))
        own = Counter(_WORDS.findall(sentence.lower()))
        return any(self._words[w] - own[w] >= times for w in words)


class Setting:
    """Where a sentence sits in its document: what the rules that judge a sentence by its
    surroundings read. Each part is optional; without it, its rule is not applied.

    - `neighbours`: the two sentences on either side;
    - `document`: the whole document;
    - `in_task_list`: the sentence is an item of a list whose adjacent items are orders too
      (exercises, the steps of a procedure, a change log): the document's own tasks.
    """

    def __init__(
        self, neighbours: str | None = None, document: DocumentWords | None = None, in_task_list: bool = False
    ):
        self.neighbours = neighbours if neighbours and neighbours.strip() else None
        self.document = document
        self.in_task_list = in_task_list


# The nouns the answering system's product goes by, with their plurals.


def _related(words: set[str], sentence: str, where: Setting, neighbours_needed: float) -> bool:
    """Is a request about what its document is about? It shares enough topic words with its
    neighbours (`neighbours_needed`: a share of its words, or a count when 1 or more), or most
    of its topic words occur elsewhere in the document."""
    if where.neighbours is None:
        return False  # a sentence alone (a title, a quote, a snippet): nothing to relate it to
    if neighbours_needed < 1 and not words:
        return True  # a request with no topic word of its own asks nothing unrelated
    shared = len(words & _topic_words(where.neighbours))
    if shared >= (neighbours_needed if neighbours_needed >= 1 else neighbours_needed * len(words)):
        return True
    if where.document is not None and words:
        return 2 * len(where.document.topic_elsewhere(sentence, words)) > len(words)
    return False


def classify(sentence: str, context: str | Setting | None = None) -> InjectionReason | None:
    """The reason (a rule name, `contract/injection.py`) this sentence is instruction-like, or None.

    `context` is where the sentence sits (`Setting`; a string stands for its neighbours): a
    request is unrelated when it shares (almost) no topic word with its neighbours nor with the
    rest of its document. Without context that rule is not applied.
    """
    where = context if isinstance(context, Setting) else Setting(neighbours=context)
    s = " ".join(sentence.split())
    if len(s) < 12:
        return None
    facts = _Facts(s)
    gate = facts.words
    if (
        not gate.isdisjoint(_OVERRIDE_GATE)
        or "instruction" in facts.low
        or "prompt" in facts.low
        or "you are now" in facts.low
    ) and _OVERRIDE_RE.search(s):
        return OVERRIDE
    if not gate.isdisjoint(_AGENT_GATE) or "_file" in facts.low or "web_search" in facts.low or "a.i." in facts.low:
        if _AGENT_RE.search(s) or _AI_ORDER.search(s):
            return AGENT_ORDER
    heading = bool(re.match(r"#{1,6}\s|.*\s(?:={3,}|-{3,})(?:\s|$)", s))
    # The order is the sentence after a label and softeners; when a lead clause comes first ("From
    # now on, ..."), the part after it is judged as well.
    body = _LIST_MARKER.sub("", s)  # a leading quote is kept: a title
    label = _LABEL.match(body)
    if label and _QA_LABEL.match(label.group(0)):  # "Q: ...": the document's own question and answer
        return None
    body = body[label.end() :] if label else body
    orders = [body[_SOFT.match(body).end() :]]  # type: ignore[union-attr]  # _SOFT matches the empty string
    clause = _CLAUSE.match(body)
    if clause:
        orders.append(body[clause.end() :][_SOFT.match(body[clause.end() :]).end() :])  # type: ignore[union-attr]
    # "the response", "the reply": when the document itself is about responses or replies (an HTTP
    # response, a protocol's reply), an order about "the response" is about that, not about the answer
    # being written. "your reply" is never the document's subject.
    # Likewise "your report", "your message": in a document about reports or messages, the reader's own.
    the_subject = _documents_subject(s, facts.words & _OUT_NOUNS, where)
    weak = facts.weak and not _documents_subject(s, facts.words & _WEAK_NOUNS, where)
    for order in orders:
        reason = _judge(facts, order, order is not orders[0], where, heading, the_subject, weak)
        if reason:
            return reason
    return None


def _documents_subject(sentence: str, nouns: set[str], where: Setting) -> bool:
    """Does the document use one of `nouns` twice or more outside `sentence` (so it is what it is about)?"""
    return bool(nouns) and where.document is not None and where.document.uses_elsewhere(sentence, nouns, 2)


@dataclass(frozen=True)
class _Order:
    """One reading of a sentence's order, with what every rule of `_judge` asks of it, worked out once."""

    text: str  # the order, after an indirect lead ("Please note that ...") and "I want you to"
    first: str  # its first word, lower-cased
    indirect: bool
    you_to: bool  # it was put as "I need you to ..."
    imperative: bool
    led: bool  # "In your reply, ...", "When answering, ..."
    strong: bool  # it is about the answer being written, for sure
    audience: bool  # it addresses the report's readers
    out_place: bool  # it names a place in the answer ("at the end of the response")


def _read_order(f: _Facts, order: str, led_in: bool, heading: bool, the_subject: bool) -> _Order:
    """Strip an order's indirect lead and "I want you to", and work out what the rules ask of the rest."""
    indirect = _INDIRECT.match(order)
    if indirect:
        order = order[indirect.end() :]
    you_to = _YOU_TO.match(order)
    if you_to:
        order = order[you_to.end() :]
    first = _first_word(order)
    imperative = not heading and _imperative(order, first)
    led = led_in and f.answer_words and bool(_ANSWER_LEAD.match(f.s))
    return _Order(
        text=order,
        first=first,
        indirect=bool(indirect),
        you_to=bool(you_to),
        imperative=imperative,
        led=led,
        strong=f.strong or led,
        # a heading names its section ("Warn users about ..."): it orders no one
        audience=not heading and bool(_TO_AUDIENCE.match(order) or (imperative and _AUDIENCE_GERUND.search(order))),
        out_place=f.out_place and not the_subject,
    )


def _judge(
    f: _Facts, order: str, led_in: bool, where: Setting, heading: bool, the_subject: bool, weak: bool
) -> InjectionReason | None:
    """The first rule that fires on one reading of the sentence: its form, an order about the answer, then a
    request unrelated to the document (the order matters: a rule earlier in the list names the reason)."""
    o = _read_order(f, order, led_in, heading, the_subject)
    return (
        _form_or_promotion(f, o, where, weak)
        or _order_about_answer(f, o, the_subject, weak)
        or _unrelated_request(f, o, where, heading)
    )


def _form_or_promotion(f: _Facts, o: _Order, where: Setting, weak: bool) -> InjectionReason | None:
    """A change of the answer's language or form, or a link pushed at the reader."""
    s, order = f.s, o.text
    if f.language and not where.in_task_list:
        if not f.code and _TRANSLATE.search(s) and (o.imperative or o.strong or _is_request(s, order)):
            return OUTPUT_FORMAT
        if _LANG_QUESTION.search(s) and _is_request(s, order):
            return OUTPUT_FORMAT
    if _ANSWER_VERB_START.match(order) and (f.form or _ONLY.search(s)):
        return OUTPUT_FORMAT
    if f.link and not f.code:
        pushes = _AUDIENCE_ANYWHERE.search(s) or (o.first in _PROMOTING and _PROMO.search(s))
        if o.strong or weak or o.audience or (o.imperative and (o.out_place or pushes)):
            return PROMOTION
    return None


def _order_about_answer(f: _Facts, o: _Order, the_subject: bool, weak: bool) -> InjectionReason | None:
    """An order whose object is the answer being written, or its reader."""
    s, order = f.s, o.text
    if (o.strong or (weak and f.form)) and (o.imperative or o.led or _MODAL.search(s) or f.form):
        return OUTPUT_FORMAT if f.form else ORDER_TO_ANSWERER
    if o.imperative and not f.code and not the_subject:
        if o.out_place or _THE_ANSWER_OBJECT.match(order):
            return OUTPUT_FORMAT if f.form else ORDER_TO_ANSWERER
        if _THE_OUT_OBJECT.match(order) and (f.form or _QUOTED.search(s)):
            return OUTPUT_FORMAT if f.form else ORDER_TO_ANSWERER
    if (_THE_OUT_SUBJECT.match(order) and not the_subject) or o.audience:
        return ORDER_TO_ANSWERER
    if o.imperative and not f.code and f.transform:
        return OUTPUT_FORMAT
    if o.out_place and f.form and _MODAL.search(s) and not f.code:  # "Every second word of the reply should ..."
        return OUTPUT_FORMAT
    return None


def _unrelated_request(f: _Facts, o: _Order, where: Setting, heading: bool) -> InjectionReason | None:
    """A request or question that shares (almost) no topic with its neighbours or its document."""
    s, order, first = f.s, o.text, o.first
    if (_ME_REQUEST.match(order) or (o.you_to and _is_request(s, order))) and not f.code:
        if not _related(_topic_words(order[len(first) :]), s, where, 0.25):
            return UNRELATED_REQUEST
    if _YOU_QUESTION.match(order) and not _related(_topic_words(s), s, where, 2):
        return UNRELATED_REQUEST
    if (
        where.neighbours is not None
        and not heading
        and not where.in_task_list
        and (o.indirect or _is_request(s, order))
        and not f.code
    ):
        # "this method", "it": about the text around it; "your change": the reader's own work
        refers_back = _ANAPHORA.search(order) or _YOUR_OWN.search(order)
        topic = _topic_words(order[len(first) :])  # the request verb says nothing about the topic
        if (len(topic) >= 2 or len(s.split()) >= 6) and not refers_back and not _related(topic, s, where, 0.25):
            return UNRELATED_REQUEST
    return None
