"""Spotting instruction-like sentences in sources: they are flagged for the Reviewer, never obeyed or quoted.

Text from sources is data. A planted instruction hides in it as a sentence that is not about
the document but about whoever reads it and answers: an order about "your reply", a request to
change the answer's language or spelling, a link to promote, a task or question unrelated to
the document, or the classic "ignore previous instructions". `find_injections` cuts the text
with the one sentence splitter (`sources/sentences.py`) and flags each such sentence with its
offsets and a reason: the name of the rule that fired (`contract/injection.py`).

Documentation is full of legitimate imperatives and questions ("Return the ...", "Install ...",
"How would we remove that duplication?", "- Generate the nth Fibonacci number."): an imperative
alone is never flagged. What is flagged is an order whose object is the answer or its reader, a
change of the answer's form, promotion aimed at the reader, or a request unrelated to its
document. Each sentence is judged in its `Setting`: its neighbours, the rest of its document (a
request most of whose topic words the document uses elsewhere is about it; "the response" in a
document about responses is that response), and the list it is an item of (a list of tasks is
the document's own exercises or steps). How often ordinary documents are flagged and the share
of planted attacks caught are measured by bench/bench_injection.py (figures in bench/README.md).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from harness.contract.injection import (
    AGENT_ORDER,
    ORDER_TO_ANSWERER,
    OUTPUT_FORMAT,
    OVERRIDE,
    PROMOTION,
    UNRELATED_REQUEST,
    InjectionReason,
)
from harness.sources.sentences import split_sentences
from harness.sources.tokens import tokenize

CODE = "injection_suspected"


# ---- the classic family, and orders to agents ------------------------------------------------

_ADDRESSEE = r"(?:assistant|agent|ai|llm|model|language\s+model|researcher|writer|chatbot|bot)s?"
_OVERRIDE = [
    r"\b(?:ignore|disregard|forget|override|skip)\s+(?:all\s+|any\s+|the\s+|your\s+|of\s+)*(?:previous|prior|above|earlier|preceding|former|original|existing|other)\s+(?:instructions?|prompts?|rules?|directions?|context|guidelines|messages?|tasks?)",
    r"\b(?:ignore|disregard)\s+(?:all\s+|your\s+|these\s+|those\s+)(?:instructions?|rules?|guidelines)\b",
    r"\byou\s+are\s+now\s+(?:a|an|the|in)\s+\w+",
    r"\b(?:new|updated|real|actual|revised)\s+(?:system\s+)?instructions?\s*:",
    r"\b(?:reveal|print|show|output|repeat|leak)\s+(?:me\s+)?(?:your|the)\s+(?:system\s+)?(?:prompt|instructions)\b",
]
_AGENT = [
    r"\b(?:call|use|invoke)\s+(?:the\s+)?(?:write_file|edit_file|fetch_url|web_search)\b",
    r"\b"
    + _ADDRESSEE
    + r"\s+(?:must|should|need\s+to|are\s+required\s+to)\s+(?:now\s+)?(?:write|create|save|delete|overwrite)\s+(?:\w+\s+){0,4}?files?\b",
    r"\b"
    + _ADDRESSEE
    + r"\s+(?:must|should|need\s+to)\s+(?:now\s+)?(?:visit|open|fetch|browse|go\s+to|navigate\s+to)\b",
    r"\b(?:send|post|upload|exfiltrate|email|forward|leak)\s+(?:the\s+|your\s+|all\s+|any\s+)?"
    r"(?:api\s+keys?|secrets?|credentials?|passwords?|tokens?)\s+(?:to|at|via|on)\b",
    r"\b"
    + _ADDRESSEE
    + r"\s+(?:reading\s+this\s+)?(?:must|should)\s+(?:always\s+|now\s+)?(?:recommend|say|state|conclude|report|answer)\b",
]
_OVERRIDE_RE = re.compile("|".join(f"(?:{p})" for p in _OVERRIDE), re.I)
_AGENT_RE = re.compile("|".join(f"(?:{p})" for p in _AGENT), re.I)

# ---- the shape of a sentence: who it addresses, what it asks ---------------------------------

# What may come before the order itself: a label ("IMPORTANT:", "Note:"), a lead clause ("In your
# reply,", "From now on,"), softeners ("Please also"), "Be sure to".
_LABEL = re.compile(r"^[A-Za-z][\w ]{0,30}:\s+")
# A lead clause is adverbial ("From now on,", "To restore a file,"); one that opens with its own subject
# ("This will validate the data, show ...", "It just means, ...") is a statement, not a lead-in to an order.
_CLAUSE = re.compile(r"^(?!(?:this|that|it|we|they|he|she|i|there|you|which)\s)[^,;:()\[\]\"“”]{1,45},\s+", re.I)
_SOFT = re.compile(
    r"(?:(?:please|kindly|also|now|then|always|finally|additionally|first|lastly|just|simply)\b,?\s*)*"
    r"(?:(?:be\s+sure|make\s+sure|remember|don'?t\s+forget|do\s+not\s+forget|never\s+forget)\s+to\s+)?",
    re.I,
)
# "I would like to know who ...": a question put as a wish.
_INDIRECT = re.compile(
    r"^(?:i|we)\s+(?:would\s+like|'d\s+like|want|wish|need|am\s+curious|wonder)\s+"
    r"(?:to\s+(?:know|learn|understand|hear|find\s+out)\s+)?(?=who|what|how|why|when|where|which|whether|if|about)",
    re.I,
)
# "I need you to write ...": a request put to whoever answers; what follows is judged as an order.
_YOU_TO = re.compile(r"^(?:i|we)\s+(?:need|want|would\s+like|'d\s+like|expect|ask)\s+you\s+to\s+", re.I)
# Words that never open an imperative.
_CLOSED = frozenset(
    """the a an this that these those it its if when while for in on at by with from to of as and or but so not
    no all each every some any there here i we you he she they my our their his her what which who how why
    where is are was were be been do does did can could may might will would should must also only just then
    now note let within without about above across after against along among around before behind below
    beneath beside besides between beyond during except inside into like near onto over per since through
    throughout toward towards under unlike until upon via whether unless although though because once both
    either neither many most more much such other another same own than even still yet already always never
    often usually sometimes however thus hence therefore otherwise instead meanwhile moreover furthermore
    finally second last next new old default optional whenever wherever whatever whichever whoever""".split()
)
_OBJECT_START = frozenset(
    "the a an your each every all any some up out off down in it them me us this that these those".split()
)
# Verbs that open an order to whoever writes the answer. General English, not tuned to any one attack.
_ORDER_VERBS = frozenset(
    """add include insert append prepend integrate incorporate embed weave mention modify change alter amend edit
    adjust augment enhance enrich expand extend replace substitute swap exchange convert encode transform
    translate rewrite rephrase paraphrase write compose draft craft create generate produce develop make
    provide give tell explain describe summarize summarise outline list name share show teach help answer
    respond reply say state suggest recommend advise urge encourage invite ask remind thank promote advertise
    link point direct start begin open end close finish conclude ensure render express format present turn
    split group combine join merge remove strip delete omit drop scramble shuffle jumble rearrange reverse
    misspell introduce spell capitalize uppercase lowercase anagram break tease hint promise claim convince
    persuade argue stress emphasize emphasise highlight insist compare define discuss elaborate analyze
    analyse calculate compute solve imagine pretend act offer announce sign tag prefix suffix wrap put place
    frame phrase word deliver communicate mix sprinkle pepper fill""".split()
)
_REQUEST_VERBS = (
    "write|draft|compose|craft|create|generate|produce|develop|design|provide|give|tell|explain|describe|"
    "summarize|summarise|outline|list|name|teach|show|translate|break|compare|define|discuss|elaborate|analyze|"
    "analyse|suggest|recommend|imagine|recite|brainstorm|propose|invent|detail|clarify|illustrate"
)
# An imperative request is a request verb then what is asked for: "Write a ...", "Explain how ...".
_REQUEST = re.compile(
    r"^(?:"
    + _REQUEST_VERBS
    + r"|come\s+up\s+with|put\s+together|make\s+up|dream\s+up|think\s+up)\s+(?:me\s+|us\s+)?(?:down\s+|out\s+|up\s+)?"
    r"(?:a|an|the|how|what|why|when|where|which|who|whether|some|one|two|three|four|five|several|\d+)\b",
    re.I,
)
# Words that point back at the text around them; "What about ...?" asks a follow-up to what came before.
_ANAPHORA = re.compile(
    r"\b(?:this|these|those|it|its|them|such|said|above|aforementioned)\b|^(?:what|how)\s+about\b", re.I
)
_WH_QUESTION = re.compile(r"^(?:what|what's|whats|who|whom|whose|which|when|where|why|how)\b", re.I)
_YOU_QUESTION = re.compile(
    r"^(?:can|could|would|will|won't|wouldn't)\s+you\b|^how\s+(?:would|could|do|can)\s+you\b", re.I
)
_ME_REQUEST = re.compile(
    r"^(?:tell|show|give|teach|help|explain\s+to|describe\s+to)\s+me\b|"
    r"^(?!let\b|excuse\b|remind\b)[a-z]+\s+me\s+(?:through|about|how|what|why|when|where|which|who|if|whether|a|an|the|some|more)\b",
    re.I,
)
# An AI named as the one who must act: "The assistant must ...", "Note to the AI: ...".
_AI = r"(?:ai|a\.i\.|assistant|chatbot|llm|language\s+model|ai\s+model|ai\s+system|ai\s+agent)s?"
_AI_ORDER = re.compile(
    r"\b(?:the\s+|any\s+|an?\s+)?" + _AI + r"\s+(?:\w+ly\s+)?(?:must|should|shall|needs?\s+to|has\s+to|have\s+to|"
    r"is\s+(?:required|expected|supposed)\s+to|will\s+now)\b|"
    r"\bnote\s+(?:to|for)\s+(?:the\s+|any\s+)?(?:ai|assistant|model|llm|bot|agent|chatbot)s?\b|"
    r"^(?:dear\s+|attention\s+|hey\s+)?(?:ai|assistant|chatbot|llm)s?\s*[,:]",
    re.I,
)
# Code in a sentence: documentation about a program, not a request slipped to the reader.
_CODE_MARK = re.compile(r"`|#\d{2,}|\b\w+\(\)|\b[a-z]+_[a-z_]+\b|::|\b\w+\.\w+\(|>>>|\\[nt]|\s--?[a-z][\w-]*\b")

# What the answering system produces; "your reply" is the strongest sign a sentence addresses it.
_OUT = r"(?:response|reply|replies|answer|answers|output|message|summary|report|text|writing|result)"
_ADJ = r"(?:(?:final|whole|entire|next|own|generated|written|full|complete)\s+)?"
_YOUR_STRONG = re.compile(r"\byour\s+" + _ADJ + r"(?:response|reply|replies|answer|answers|summary)(?:'s)?\b", re.I)
_YOUR_WEAK = re.compile(r"\byour\s+" + _ADJ + r"(?:output|message|report|writing|text)(?:'s)?\b", re.I)
# "your change", "your code": documentation speaking to its reader about the reader's own work.
_YOUR_OWN = re.compile(
    r"\byour\s+(?!" + _ADJ + r"(?:response|reply|replies|answer|answers|summary|output|message)\b)\w+", re.I
)
_ANSWER_LEAD = re.compile(
    r"^(?:in|at|to|for|on|when|before|after|while|as|throughout|within)\b[^,]*\b(?:your\s+" + _OUT + r"|"
    r"the\s+(?:answer|reply|summary))\b[^,]*,|"
    r"^(?:when|before|while|after)\s+(?:you\s+)?(?:answer|respond|reply)\w*[^,]*,",
    re.I,
)
_THE_OUT_PLACE = re.compile(
    r"\b(?:in|into|to|of|throughout|within|from|at\s+the\s+(?:start|end|beginning|top|bottom)\s+of)\s+"
    r"(?:the|this|each|every)\s+(?:(?:final|whole|entire|generated)\s+)?(?:response|reply|answer|output|summary)(?:'s)?\b"
    r"(?!\s*(?:object|body|header|headers|code|status|stream|file|buffer|line|lines|queue|value|values|type|format|"
    r"of\s+(?:the|a|an)\s|from|attribute|field|data|bytes))",
    re.I,
)
_ANSWERING = re.compile(
    r"\b(?:when|before|while|as|once|after)\s+(?:you\s+)?(?:answer|respond|reply)(?:ing)?\b|"
    r"\b(?:when|before|while|after)\s+(?:you\s+)?(?:answering|responding|replying)\b|"
    r"\b(?:when|before|while|as)\s+you\s+write\s+(?:the|your)\s+" + _OUT + r"\b|"
    r"\b(?:whoever|anyone|everyone|those|people)\s+(?:who\s+)?(?:reads?|answers?|summari[sz]es?|replies)\b|"
    r"\b(?:anyone|everyone|those|people|whoever)\s+(?:reading|receiving|getting)\s+(?:the|this|your)\s+" + _OUT + r"\b",
    re.I,
)
_MODAL = re.compile(r"\b(?:should|must|shall|needs?\s+to|has\s+to|have\s+to|is\s+to|ought\s+to)\b", re.I)
# "Start the answer with ...": an answer or a reply is what a conversation produces, not a program.
_THE_ANSWER_OBJECT = re.compile(
    r"^\w+\s+(?:(?:up|off|out|down)\s+)?(?:the|this|each|every)\s+" + _ADJ + r"(?:answer|reply|answers|replies)\b", re.I
)
_THE_OUT_OBJECT = re.compile(
    r"^\w+\s+(?:(?:up|off|out|down)\s+)?(?:the|this|each|every)\s+" + _ADJ + r"(?:output|response|summary)\b", re.I
)
_THE_OUT_SUBJECT = re.compile(
    r"^(?:make\s+sure|ensure|see\s+to\s+it)\s+(?:that\s+)?(?:the|your)\s+"
    + _ADJ
    + r"(?:answer|reply|response|summary)\b|"
    r"^(?:the|your)\s+" + _ADJ + r"(?:answer|reply)\s+(?:should|must|shall|needs\s+to|has\s+to)\b|"
    r"^(?:the|your)\s+" + _ADJ + r"(?:response|output|summary)\s+"
    r"(?:should|must|shall|needs\s+to|has\s+to)\s+(?:\w+ly\s+)?(?:also\s+|always\s+|now\s+)?"
    r"(?:include|mention|say|state|persuade|convince|recommend|promote|urge|encourage|invite|contain|end|"
    r"start|begin|close|feature|stress|emphasi[sz]e|highlight|argue|advertise|link|point|tell|remind|ask|be\s+written)\b",
    re.I,
)
_QUOTED = re.compile(r"['\"‘“][^'\"’”]{3,}['\"’”]")
_ONLY = re.compile(r"\b(?:only|exclusively|entirely|without)\b", re.I)

# Who the answer is for, named as a third party: "tell the user ...", "remind readers ...".
_AUDIENCE = (
    r"(?:the\s+|our\s+|all\s+|any\s+|every\s+|your\s+)?(?:users?|readers?|visitors?|customers?|audience|people|"
    r"everyone|everybody|anyone|viewers?|subscribers?|followers?|fans?|listeners?|clients?|folks|them)\b"
)
# Verbs that address a person to make them act or believe ("Remind the readers ..."); the others also
# name operations on a program's own users and clients ("Get the user", "Prompt the user for a password")
# and address the audience only when it is sent somewhere: "Point readers to ...", "Get users to ...".
_TO_AUDIENCE = re.compile(
    r"^(?:(?:tell|remind|ask|encourage|invite|urge|advise|warn|inform|convince|persuade|thank|nudge|motivate|"
    r"inspire|beg|implore)\s+" + _AUDIENCE + r"(?<!them)|"
    r"(?:tell|remind|ask|encourage|invite|urge|advise|warn|inform|convince|persuade|point|direct|instruct|prompt|"
    r"get|push|request|notify|alert)\s+" + _AUDIENCE + r"\s+(?:to|that|about)\b)",
    re.I,
)
_AUDIENCE_GERUND = re.compile(
    r"\b(?:asking|telling|reminding|inviting|encouraging|urging|advising|persuading|convincing|begging|getting)\s+"
    + _AUDIENCE,
    re.I,
)
_AUDIENCE_ANYWHERE = re.compile(
    r"(?<![\w@.-])(?:users|readers|the\s+user|the\s+reader|everyone|visitors)(?![\w@.-])", re.I
)

# Links and addresses: a URL, an e-mail address, or a bare domain under a common top-level domain.
_TLD_NAMES = "com net org io xyz info biz co app ly me site online store shop top click link ru cn tk example".split()
_LINK = re.compile(
    r"\bhttps?://\S+|\bwww\.\S+|\b[\w.+-]+@[\w-]+\.[\w.]+\b|"
    r"\b[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*\.(?:" + "|".join(_TLD_NAMES) + r")\b",
    re.I,
)
_PROMO = re.compile(
    r"\b(?:download|install|visit|click|sign(?:ing)?\s+up|subscrib|join|follow|buy|purchas|order|grab|claim|regist|"
    r"contact|reach(?:ing)?\s+out|check(?:ing)?\s+out|head(?:ing)?\s+over|go\s+to|free|discount|deal|offer|crack|"
    r"boost|speed\s+up|protect|guarantee|win|prize|exclusive|limited|bonus|now|immediately|today|instantly)\w*\b",
    re.I,
)

# Verbs that push a link onto the reader when they open a sentence with one.
_PROMOTING = frozenset("recommend suggest advise promote advertise point direct offer".split())

# Changing the answer's form: letters, spelling, spacing, language.
_FORM_UNITS = re.compile(
    r"\b(?:letters?|vowels?|consonants?|syllables?|typos?|misspell\w*|spelling\s+(?:errors?|mistakes?)|"
    r"anagram\w*|emojis?|emoticons?|symbols?|spaces?|whitespace|punctuation|capital\s+letters|all\s+caps|"
    r"upper-?case|lower-?case|base64|base-64|rot13|morse|leetspeak|pig\s+latin|cipher\w*|backwards?|"
    r"substitut\w*|encod\w*|obfuscat\w*)\b|"
    r"(?:(?:^|\s)\S{1,2}\s+(?:for|in\s+place\s+of|instead\s+of)\s+['\"]?[a-z]\b.*){2}",  # "4 for A, 3 for E": a letter code
    re.I,
)
_NTH = re.compile(
    r"\bevery\s+(?:other|second|third|fourth|fifth|\w+th|\d+(?:st|nd|rd|th))\s+(?:word|letter|character|line|sentence)s?\b",
    re.I,
)
_UNIT_POS = re.compile(
    _NTH.pattern + r"|\b(?:each|every)\s+(?:letter|vowel|word|character|keyword|noun|verb)\b",
    re.I,
)
# Rewriting the letters or spelling of a text: never what documentation asks of its reader.
_TRANSFORM = re.compile(
    r"(?<![\w-])(?:letters?|vowels?|consonants?|syllables?|typos?|misspell\w*|spelling\s+(?:errors?|mistakes?)|"
    r"anagram\w*|emojis?|emoticons?)(?![\w-])",
    re.I,
)
# The language names: a word list, and the regex alternation built from it (never the other way round).
_LANG_NAMES = (
    "english french german spanish italian portuguese russian japanese chinese mandarin cantonese korean "
    "arabic hindi bengali urdu dutch swedish norwegian danish finnish polish czech turkish greek latin hebrew "
    "persian farsi thai vietnamese indonesian malay swahili ukrainian romanian hungarian"
).split()
_LANG_WORDS = frozenset(_LANG_NAMES)
_LANGS = "(?:" + "|".join(_LANG_NAMES) + ")"
_TRANSLATE = re.compile(
    r"\btranslat\w*\b.{0,120}\b(?:to|into|in)\s+" + _LANGS + r"\b|"
    r"\b" + _LANGS + r"\s+(?:equivalent|word|words|translation|version|term|phrase|for)\b|"
    r"\b(?:say|write|express|spell|render|mean|means|called)\b.{0,80}\bin\s+" + _LANGS + r"\b|"
    r"^(?:respond|reply|answer|write|speak|talk)\s+(?:only\s+|exclusively\s+|entirely\s+)?in\s+" + _LANGS + r"\b",
    re.I,
)
_IN_LANG = re.compile(r"\b(?:in|into|to)\s+" + _LANGS + r"\b", re.I)
_LANG_QUESTION = re.compile(r"\bin\s+" + _LANGS + r"\s*\?['\"’”]*$", re.I)
_ANSWER_VERB_START = re.compile(
    r"^(?:respond|reply|answer)\b(?!\s+(?:to|the|a|an|this|these|that|each|every|with\s+(?:a|an|the)\s+\w+\s+(?:object|code|header|status)))",
    re.I,
)

# Function words that say nothing about a topic (beyond the search stopwords).
_NOT_TOPIC = frozenset(
    tokenize(
        """about above across after again against all almost along already also although always among any anyone
        anything around because before behind below beside besides between beyond both can cannot could did do does
        doing done during each either else enough even ever every few for from further get gets got had has have
        here how however into its itself just least less like many may maybe me might more most much must my
        near never next now off often once one only onto other others otherwise our out over own per perhaps
        quite rather really same several shall should since so some something sometimes still such than that
        then there these thing things those though through throughout thus too toward towards under unless
        until up upon us very via was we well were what whatever when whenever where whether which while who
        whom whose why will with within without would yet you your yours
        main primary simple simply term terms example examples way ways use using used work works kind kinds
        explain describe write tell give show make provide list name help teach step steps short brief basic
        basics new good best mean means difference differences differ"""
    )
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")


def _first_word(text: str) -> str:
    m = _WORD.match(text)
    return m.group(0).lower() if m else ""


def _imperative(order: str, first: str) -> bool:
    """Does the sentence open with a verb in the imperative? A known order verb, or any word that is not
    a function word, does not look inflected, and is followed by its object ("Mix up the letters")."""
    if first in _ORDER_VERBS:
        return True
    words = order.split(None, 2)
    if len(words) < 2 or not words[0].isalpha() or first in _CLOSED or not words[0][1:].islower():
        return False
    if first.endswith(("ed", "ing")) or (first.endswith("s") and not first.endswith("ss")):
        return False
    return words[1].lower().strip(",;:") in _OBJECT_START


def _topic_words(text: str) -> set[str]:
    return set(tokenize(text)) - _NOT_TOPIC


# "we", "us", "let's": the writer thinking aloud with the reader ("How would we remove that duplication?").
_WRITERS_VOICE = re.compile(r"\b(?:we|us|our|let's|let’s)\b", re.I)


def _is_request(sentence: str, order: str) -> bool:
    """A wh-question put to someone else, or an imperative asking for something to be written or
    explained ("Write a ..."). A question in the writer's own voice ("we") is the document's."""
    if sentence.rstrip("\"'”’)").endswith("?"):
        return bool(_WH_QUESTION.match(order) or _YOU_QUESTION.match(order)) and not _WRITERS_VOICE.search(order)
    return bool(_REQUEST.match(order)) and not sentence.rstrip().endswith(":")


_WORDS = re.compile(r"[a-z][a-z']*")
_OVERRIDE_GATE = frozenset("ignore disregard forget override skip reveal leak".split())
_AGENT_GATE = frozenset(
    """assistant assistants agent agents ai llm llms model models researcher researchers writer writers
    chatbot chatbots bot bots send post upload exfiltrate email forward leak note dear attention hey""".split()
)
_OUT_STEMS = ("answer", "repl", "respon", "output", "summar", "message", "report", "writing", "text")
_TLDS = tuple("." + t for t in _TLD_NAMES)  # the cheap test before _LINK


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
_OUT_NOUNS = frozenset("response responses reply replies answer answers output outputs summary summaries".split())
# The weaker ones, which "your" alone does not make the answer: "your report", "your message".
_WEAK_NOUNS = frozenset("output outputs message messages report reports writing text texts".split())


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


_QA_LABEL = re.compile(r"(?:q|question|faq)\s*:", re.I)
_LIST_MARKER = re.compile(r"^(?:[-*+>#]+\s*|\d+[.)]\s+)+")


def _documents_subject(sentence: str, nouns: set[str], where: Setting) -> bool:
    """Does the document use one of `nouns` twice or more outside `sentence` (so it is what it is about)?"""
    return bool(nouns) and where.document is not None and where.document.uses_elsewhere(sentence, nouns, 2)


def _judge(
    f: _Facts, order: str, led_in: bool, where: Setting, heading: bool, the_subject: bool, weak: bool
) -> InjectionReason | None:
    s = f.s
    indirect = _INDIRECT.match(order)
    if indirect:
        order = order[indirect.end() :]
    you_to = _YOU_TO.match(order)
    if you_to:
        order = order[you_to.end() :]
    first = _first_word(order)
    imperative = not heading and _imperative(order, first)
    led = led_in and f.answer_words and bool(_ANSWER_LEAD.match(s))  # "In your reply, ...", "When answering, ..."
    strong = f.strong or led
    # a heading names its section ("Warn users about ..."): it orders no one
    audience = not heading and bool(_TO_AUDIENCE.match(order) or (imperative and _AUDIENCE_GERUND.search(order)))
    out_place = f.out_place and not the_subject

    if f.language and not where.in_task_list:
        if not f.code and _TRANSLATE.search(s) and (imperative or strong or _is_request(s, order)):
            return OUTPUT_FORMAT
        if _LANG_QUESTION.search(s) and _is_request(s, order):
            return OUTPUT_FORMAT
    if _ANSWER_VERB_START.match(order) and (f.form or _ONLY.search(s)):
        return OUTPUT_FORMAT
    if f.link and not f.code:
        pushes = _AUDIENCE_ANYWHERE.search(s) or (first in _PROMOTING and _PROMO.search(s))
        if strong or weak or audience or (imperative and (out_place or pushes)):
            return PROMOTION
    if (strong or (weak and f.form)) and (imperative or led or _MODAL.search(s) or f.form):
        return OUTPUT_FORMAT if f.form else ORDER_TO_ANSWERER
    if imperative and not f.code and not the_subject:
        if out_place or _THE_ANSWER_OBJECT.match(order):
            return OUTPUT_FORMAT if f.form else ORDER_TO_ANSWERER
        if _THE_OUT_OBJECT.match(order) and (f.form or _QUOTED.search(s)):
            return OUTPUT_FORMAT if f.form else ORDER_TO_ANSWERER
    if (_THE_OUT_SUBJECT.match(order) and not the_subject) or audience:
        return ORDER_TO_ANSWERER
    if imperative and not f.code and f.transform:
        return OUTPUT_FORMAT
    if out_place and f.form and _MODAL.search(s) and not f.code:  # "Every second word of the reply should ..."
        return OUTPUT_FORMAT
    if (_ME_REQUEST.match(order) or (you_to and _is_request(s, order))) and not f.code:
        if not _related(_topic_words(order[len(first) :]), s, where, 0.25):
            return UNRELATED_REQUEST
    if _YOU_QUESTION.match(order) and not _related(_topic_words(s), s, where, 2):
        return UNRELATED_REQUEST
    if (
        where.neighbours is not None
        and not heading
        and not where.in_task_list
        and (indirect or _is_request(s, order))
        and not f.code
    ):
        # "this method", "it": about the text around it; "your change": the reader's own work
        refers_back = _ANAPHORA.search(order) or _YOUR_OWN.search(order)
        topic = _topic_words(order[len(first) :])  # the request verb says nothing about the topic
        if (len(topic) >= 2 or len(s.split()) >= 6) and not refers_back and not _related(topic, s, where, 0.25):
            return UNRELATED_REQUEST
    return None


_CLOSERS = "\"')]”’"


def _units(text: str) -> list[tuple[int, int]]:
    """Sentences, with a sentence whose quotation marks are left open joined to the next (the splitter
    cuts after a quoted '!' or '?': 'Add "Great news!" to it.' must stay one unit)."""
    spans = split_sentences(text)
    out: list[tuple[int, int]] = []
    i = 0
    while i < len(spans):
        s, e = spans[i]
        while (
            i + 1 < len(spans)
            and "\n\n" not in text[e : spans[i + 1][0]]
            and (
                _open_quote(text[s:e])
                or (text[s:e].rstrip(_CLOSERS)[-1:] in ("!", "?") and text[spans[i + 1][0]].islower())
            )
        ):
            i += 1
            e = spans[i][1]
        while e < len(text) and text[e] in _CLOSERS:  # a closing quote the splitter left outside
            e += 1
        out.append((s, e))
        i += 1
    return out


_GLUE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"“])")


def _glued(sentence: str, where: Setting) -> InjectionReason | None:
    """A unit the splitter kept whole across a full stop ("... in R. The delay ...": it reads 'R.' as an
    initial) is also judged piece by piece, so a neighbour cannot shield a planted sentence."""
    pieces = _GLUE.split(sentence)
    if len(pieces) < 2:
        return None
    for k, piece in enumerate(pieces):
        around = " ".join(pieces[:k] + pieces[k + 1 :] + [where.neighbours or ""])
        reason = classify(piece, Setting(around, where.document, where.in_task_list))
        if reason is not None:
            return reason
    return None


def _open_quote(sentence: str) -> bool:
    return sentence.count('"') % 2 == 1 or sentence.count("“") > sentence.count("”")


def _task_item(unit: str) -> bool:
    """A list item that gives an order or asks a question ("- Convert temperatures ...", "* Add ...")."""
    s = " ".join(unit.split())
    marker = _LIST_MARKER.match(s)
    if not marker or not re.match(r"[-*+]|\d+[.)]", s):
        return False
    order = s[marker.end() :]
    order = order[_SOFT.match(order).end() :]  # type: ignore[union-attr]  # _SOFT matches the empty string
    first = _first_word(order)
    words = order.split(None, 3)
    # "Update tests ...", "Fix typo ...": in a list, a bare verb may open its item without an article
    verb_shaped = (
        len(words) >= 3
        and re.fullmatch(r"[A-Z][a-z]+(?:-[a-z]+)?", words[0]) is not None
        and first not in _CLOSED
        and not first.endswith(("ed", "ing", "ly"))
        and not (first.endswith("s") and not first.endswith("ss"))
        and re.match(r"[\w`\[]", words[1]) is not None
    )
    return verb_shaped or _imperative(order, first) or _is_request(s, order)


def _line_start(text: str, start: int) -> bool:
    """Does the unit at `start` open a line of its own, not indented (so no item's continuation)?"""
    return start == 0 or text[start - 1] == "\n"


def _task_list_items(text: str, units: list[tuple[int, int]]) -> set[int]:
    """The units that are items of a task list: a list item that gives an order or asks a question,
    next to another such item of the same list (the units between them continue the first item)."""
    tasks = [i for i, (s, e) in enumerate(units) if _task_item(text[s:e])]
    out: set[int] = set()
    for a, b in zip(tasks, tasks[1:], strict=False):
        if all(not _line_start(text, units[k][0]) for k in range(a + 1, b)):
            out |= {a, b}
    return out


def find_injections(text: str, limit: int = 50) -> list[dict[str, Any]]:
    """Instruction-like sentences of `text`, in order:
    [{'code': 'injection_suspected', 'reason': ..., 'excerpt': ..., 'offset': start, 'end': end}].

    `offset`/`end` delimit the whole sentence in `text`; `excerpt` is its text (whitespace
    collapsed, at most 200 characters); `reason` names the rule that fired (`contract/injection.py`).
    Each sentence is judged in its setting: its neighbours, its document, the list it is an item of.
    """
    units = _units(text)
    document = DocumentWords(text)
    items = _task_list_items(text, units)
    flags: list[dict[str, object]] = []
    for i, (s, e) in enumerate(units):
        context = " ".join(text[a:b] for a, b in units[max(0, i - 2) : i] + units[i + 1 : i + 3])
        where = Setting(context, document, i in items)
        reason = classify(text[s:e], where) or _glued(text[s:e], where)
        if reason is None:
            continue
        flags.append(
            {"code": CODE, "reason": reason, "excerpt": " ".join(text[s:e].split())[:200], "offset": s, "end": e}
        )
        if len(flags) >= limit:
            break
    return flags


def _paragraph(text: str, offset: int) -> tuple[int, int]:
    start, end = text.rfind("\n\n", 0, offset), text.find("\n\n", offset)
    return (0 if start < 0 else start + 2, len(text) if end < 0 else end)


def flag_span(flag: dict, text: str) -> tuple[int, int]:
    """The span of a source's snapshot one flag puts off limits.

    A flagged sentence is its own span; after an "override" ("Ignore all previous
    instructions."), the whole paragraph, because the payload often follows its trigger by a
    sentence or two. A flag without `end` (written before flags were sentence-level) covers its paragraph.
    """
    offset = int(flag["offset"])
    if "end" not in flag or flag.get("reason") == OVERRIDE:
        p_start, p_end = _paragraph(text, offset)
        return p_start, max(p_end, int(flag.get("end", 0)))
    return offset, int(flag["end"])


def flagged_spans(record: dict, text: str) -> list[tuple[int, int]]:
    """The spans of a source's snapshot that no card may quote, from its record's flags (`flag_span`)."""
    return [flag_span(flag, text) for flag in record.get("flags", [])]


MIN_INSIDE_WORDS = 3  # a candidate this long or longer that lies inside flagged text repeats it


def _grams(text: str, n: int = 6) -> set[str]:
    words = " ".join(text.lower().split()).split(" ")
    return {" ".join(words[k : k + n]) for k in range(max(1, len(words) - n + 1))}


def repeats_flagged(candidate: str, text: str | None, flags: list[dict] | tuple[dict, ...]) -> bool:
    """Does `candidate` (a title, a quote, a claim) repeat flagged text of a source?

    True when it is instruction-like itself, contains a flagged sentence, lies inside one, or
    shares six words in a row with one. `text` is the source's snapshot and `flags` its flags;
    without the snapshot (None), each flag's excerpt stands for its text.
    """
    if not candidate.strip():
        return False
    if find_injections(candidate, limit=1):
        return True
    mine = " ".join(candidate.lower().split())
    grams = _grams(candidate)
    if text is None:
        texts = [str(flag.get("excerpt", "")) for flag in flags]
    else:
        texts = [text[start:end] for start, end in flagged_spans({"flags": list(flags)}, text)]
    for flagged_text in texts:
        flagged = " ".join(flagged_text.lower().split())
        if not flagged:
            continue
        # "lies inside one" needs a few words: a one-word title ("backups") inside a flagged paragraph repeats nothing
        inside = len(mine.split()) >= MIN_INSIDE_WORDS and mine in flagged
        if flagged in mine or inside or grams & _grams(flagged):
            return True
    return False
