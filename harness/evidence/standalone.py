"""Evidence stands alone: the one rule for what can never be a card's whole quote, for every engine.

A card is read without its document around it (in the claim table, the report, the viewer), so its quote must
state something. Never, as the whole quote (the reasons are the closed set `contract/cards.NotStandalone`):
- a question (every sentence of the quote asks);
- a heading or title (one short line standing on its own in the document, with no sentence end, or the title);
- narration about the document itself ("In the next section…", "Let's…", "Yup, …", "Now we'll…"): every sentence
  of the quote is narration (or a question);
- a sentence that opens with a reference it does not resolve ("This means…", "It also…", "These…"): the quote's
  first sentence points back at text before the quote. A quote that starts one sentence earlier, at what the
  reference points to, stands. "This module …" / "This function …" name the document's own subject, which the card's
  source names, and "It is … to …" is no reference.

The offline Researcher skips such candidates where it forms them (or quotes them with their antecedent); the
`record_evidence` service refuses them with `refusal`, which says how to succeed.
"""

from __future__ import annotations

import re

from harness.contract.cards import HEADING, NARRATION, QUESTION, UNRESOLVED_REFERENCE, NotStandalone
from harness.sources.sentences import split_sentences

HEADING_WORDS = 12  # a line this short, standing alone without a sentence end, is a heading

_CLOSERS = "\"'”’)]*_`"  # what may follow a sentence's end mark
_LIST_MARK = re.compile(r"^(?:[-*+•]\s|\d{1,3}[.)]\s)")
_UNDERLINE = re.compile(r"\s*([=\-*~^#+])\1{2,}\s*")  # a heading's underline (reST, Markdown setext)
_CODE_LIKE = re.compile(r"[(){}\[\]=|;]|>>>|::")

# Words that point back at something said before the sentence: a pronoun or a demonstrative.
_REFERENCE = re.compile(
    r"^\W*(?:this|that|these|those|it|its|they|their|them|he|she|his|her|him|such|the\s+(?:latter|former))\b", re.I
)
# ... except where the reference is the document's own subject ("This module provides ...": the card names its
# source), or an empty "it" ("It is an error to ...", "It is recommended that ...").
_OWN_SUBJECT = re.compile(
    r"^\W*(?:this|these)\s+(?:module|package|library|class|function|method|api|command|tool|program|document|page|"
    r"site|project|product|company|organi[sz]ation|policy|report|specification|standard|pep)s?\b",
    re.I,
)
_EMPTY_IT = re.compile(
    r"^\W*it(?:\s+(?:is|was|can\s+be|may\s+be|might\s+be|should\s+be|must\s+be|would\s+be|has\s+been)|['’]s)\s+(?:not\s+)?"
    r"(?:(?:also|often|usually|generally|always|sometimes|now|still)\s+)?"
    r"(?:possible|impossible|necessary|unnecessary|recommended|advisable|important|common|usual|safe|unsafe|easy|"
    r"hard|difficult|better|best|convenient|useful|legal|illegal|valid|invalid|allowed|permitted|guaranteed|likely|"
    r"unlikely|true|false|worth|up\s+to|an?\s+(?:error|good\s+idea|bad\s+idea|mistake))\b"
    r"|^\W*it\s+(?:follows|seems|appears|turns\s+out|happens)\b",
    re.I,
)
# The document talking about itself, to its reader: its structure, its next step, its tutorial voice.
_NARRATION = re.compile(
    r"^\W*(?:"
    r"let['’]?s|let\s+us|yup|yep|okay|ok|alright|all\s+right|great|hooray|oops|phew|whew|"
    r"(?:now|next|first|then|finally|so),?\s+(?:we(?:['’](?:ll|re|ve|d))?|let['’]?s|let\s+us|you['’]ll|i['’]ll)|"
    r"(?:we|i)(?:['’]ll|['’]re\s+going\s+to|\s+will|\s+are\s+going\s+to|['’]ve\s+(?:seen|covered|learned|discussed))|"
    r"(?:in|over|throughout|for)\s+(?:the|this)\s+(?:(?:next|previous|following|last|coming|preceding|upcoming|rest\s+of\s+the)\s+)?"
    r"(?:section|chapter|part|tutorial|lesson|guide|book|page|example|listing|step|article|post)s?\b|"
    r"in\s+(?:chapter|section|listing|part)\s+\d|"
    r"(?:the|this)\s+(?:next|following|previous|preceding)\s+(?:section|chapter|part|lesson|example|listing|step)s?\b|"
    r"this\s+(?:chapter|section|tutorial|lesson|guide|book|part|article|post)\s+"
    r"(?:covers|explains|describes|shows|introduces|discusses|presents|walks|will|is\s+about|looks)|"
    r"as\s+(?:you|we)\s+(?:can\s+see|saw|see|discussed|mentioned|learned|will\s+see|did|noted)|"
    r"you['’]ll\s+(?:see|learn|notice|find|recall)|you\s+(?:may|might)\s+(?:recall|remember)|"
    r"here['’]?s\s+(?:how|what|an?\s+example|the)|here\s+(?:we|is\s+an?\s+example|are\s+some\s+examples)|"
    r"for\s+now|at\s+this\s+point|so\s+far"
    r")(?![\w’'-])",
    re.I,
)


def _asks(sentence: str) -> bool:
    return sentence.rstrip().rstrip(_CLOSERS).endswith("?")


def _ends(sentence: str) -> bool:
    return sentence.rstrip().rstrip(_CLOSERS).endswith((".", "!", "?", ":", ";", "…"))


def is_heading(text: str, start: int, end: int, title: str = "") -> bool:
    """One short line with no sentence end that is the document's title, or a paragraph of its own (a blank line or
    the text's start before it; a blank line, an underline or the text's end after it). A docstring's summary line
    under its signature is no heading, though it may lack a full stop."""
    quote = text[start:end].strip()
    if title and quote and " ".join(quote.lower().split()) == " ".join(title.lower().split()):
        return True  # the title, however it is spelled ("Dancing in the Dark (Rihanna song)", "Box<T>")
    if not quote or "\n" in quote or _ends(quote) or _LIST_MARK.match(quote) or _CODE_LIKE.search(quote):
        return False
    line_start = text.rfind("\n", 0, start) + 1
    line_end = len(text) if (nl := text.find("\n", end)) < 0 else nl
    if text[line_start:start].strip(" \t#") or text[end:line_end].strip():
        return False  # part of a line
    above = text[:line_start].rstrip(" \t")
    below = text[line_end + 1 :].split("\n", 1)[0].strip()
    alone_above = not above.strip() or above.endswith("\n\n")
    alone_below = not below or bool(_UNDERLINE.fullmatch(below))
    return alone_above and alone_below and len(quote.split()) <= HEADING_WORDS


def references_back(sentence: str) -> bool:
    """Does the sentence open with a reference to something said before it ("This means …", "It also …")?"""
    return bool(_REFERENCE.match(sentence)) and not _OWN_SUBJECT.match(sentence) and not _EMPTY_IT.match(sentence)


def is_narration(sentence: str) -> bool:
    """Is the sentence the document talking about itself ("In the next section …", "Let's …", "Yup, …")?"""
    return bool(_NARRATION.match(sentence))


def not_standalone(text: str, start: int, end: int, title: str = "") -> NotStandalone | None:
    """Why the quote text[start:end] of a source (titled `title`) cannot be a card's whole quote, or None when it
    stands alone. Judged in its source: a heading is known by standing on a line of its own."""
    spans = split_sentences(text, start, end)
    if not spans:
        return None
    sentences = [text[s:e] for s, e in spans]
    if all(_asks(s) for s in sentences):
        return QUESTION
    if is_heading(text, start, end, title):
        return HEADING
    if all(_asks(s) or is_narration(s) for s in sentences):
        return NARRATION
    if references_back(sentences[0]):
        return UNRESOLVED_REFERENCE
    return None


_HOW = {
    QUESTION: "it is a question; quote the statement that answers it",
    HEADING: "it is a heading or title, which states nothing; quote the statement under it",
    NARRATION: 'it is the document talking about itself ("In the next section…", "Let\'s…"); quote the statement'
    " it leads to",
    UNRESOLVED_REFERENCE: "it opens with a reference ({opener}) to text before it; quote the statement with its"
    " antecedent: start at the sentence it points back to",
}


def refusal(reason: NotStandalone, quote: str) -> str:
    """The one-line message a refused quote gets: what is wrong, and how to succeed."""
    words = quote.split()
    opener = f'"{" ".join(words[:2])}…"' if words else '""'
    return f"quote refused ({reason}): {_HOW[reason].format(opener=opener)}"
