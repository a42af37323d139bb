"""The patterns and word lists the injection rules read, and the word-level tests built on them
(`_imperative`, `_is_request`): kept apart from the rules so each rule reads as logic, not regex."""

from __future__ import annotations

import re

from harness.sources.tokens import tokenize

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


_OUT_NOUNS = frozenset("response responses reply replies answer answers output outputs summary summaries".split())
# The weaker ones, which "your" alone does not make the answer: "your report", "your message".
_WEAK_NOUNS = frozenset("output outputs message messages report reports writing text texts".split())


_QA_LABEL = re.compile(r"(?:q|question|faq)\s*:", re.I)
_LIST_MARKER = re.compile(r"^(?:[-*+>#]+\s*|\d+[.)]\s+)+")
