"""The text of one document as the offline Researcher quotes it, as pure functions of the text: which sentences are
prose a card can quote, where a card starts and ends, what a document is about (`_about`) or holds of another.
"""

from __future__ import annotations

import bisect
import re

from harness.engines.offline.ranking import SIGNATURE_LINE, signed_sections, stands_alone
from harness.evidence.standalone import is_heading
from harness.sources.sentences import split_sentences

MIN_CHARS, MAX_CHARS = 30, 500
LEAD_MAX = 2  # sentences before a sentence that does not stand alone that its card may quote with it
ABOUT_CHARS = 600  # a document's opening, and at most as much of the names it documents: what its meaning is judged on
SIGNATURE_MAX = 200  # characters of a signature line quoted with its docstring's first sentence
SIGNED_WORDS = 0.5  # share of words a docstring's first sentence needs (by its place it is prose: `Optional[X] is...`)
PARAGRAPH_MAX = 2 * MAX_CHARS  # characters an answer card may quote when it continues to its paragraph's end (`_rest`)
SECTION_OF = 0.75  # share of a document's paragraphs another holds that makes it a section of that one (`_one_copy`)
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
    """A sentence a report can quote: words, not code (at least `min_tokens` tokens, `words_share` of them words),
    not a heading over its underline, nor a list item (emphasis may open it: `*path* is ...`)."""
    stripped = sentence.strip()
    if "\n    " in sentence or "\n\t" in sentence or _CODE_START.match(stripped):
        return False
    if _UNDERLINE.search(sentence):
        return False  # a heading and its underline: a title
    opening = _EMPHASIS.sub("", stripped)
    if not re.match(r"[A-Za-z`\"“]", opening) or re.search(r"#\d", stripped):
        return False  # list markers, changelog entries, issue numbers
    if sentence.rstrip().endswith(":"):
        return False
    tokens = sentence.split()
    words = [t for t in tokens if re.fullmatch(r"[A-Za-z][A-Za-z'’-]*[,.;:!?)]*|\(?[A-Za-z][A-Za-z'’-]*", t)]
    return len(tokens) >= min_tokens and len(words) >= words_share * len(tokens)


def _opening_sentence(text: str, title: str = "") -> int:
    """Offset of the document's first prose sentence after its heading line(s): a heading read as text has lost its
    `#` and may read as prose ("Dancing in the Dark (Rihanna song)"), so headings are known by `is_heading`."""
    return next((s for s, e in split_sentences(text) if is_prose(text[s:e]) and not is_heading(text, s, e, title)), -1)


def _after_signature(text: str, s: int, e: int) -> int:
    """Where a sentence's prose starts: after a code line split with it (a signature line and its docstring's first)."""
    nl = text.find("\n", s, e)
    if nl < 0 or not _CODE_START.match(text[s:nl].strip()):
        return s
    rest = nl + 1
    while rest < e and text[rest].isspace():
        rest += 1
    return rest if rest < e else s


def _signed(text: str, s0: int, s: int) -> int:
    """Where the card of a docstring's first sentence starts: at its signature line, so the quote names what it
    documents; s for any other sentence, or a signature longer than SIGNATURE_MAX."""
    line = text[s0:s].strip()
    return s0 if s > s0 and SIGNATURE_LINE.match(line) and len(line) <= SIGNATURE_MAX and "\n" not in line else s


def _lead(text: str, spans: list[tuple[int, int]], s: int, e: int, flagged) -> int:
    """Where the card of the sentence at s..e starts: at s when it stands alone; else at the nearest of the LEAD_MAX
    sentences before it that stands alone (same paragraph, unflagged prose, 2 × MAX_CHARS in all); s if none."""
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
    """Where an answer card ends: at its paragraph's end (one point), while each next sentence is unflagged prose
    within PARAGRAPH_MAX; e when none. Before `until` (a docstring's end) a blank line does not end it."""
    end = e
    for ns, ne in spans[bisect.bisect_left(spans, (e, e)) :]:
        blank_line = "\n\n" in text[end:ns] and ns >= until
        if blank_line or ne - s > PARAGRAPH_MAX or any(ns < fe and fs < ne for fs, fe in flagged):
            break
        nxt = text[ns:ne].strip()
        if nxt.startswith("(") and nxt.endswith((")", ").", ".)")):
            nxt = nxt[1:].rstrip(".").rstrip(")") + "."  # a parenthesized aside is read as the sentence it holds
        # a quoted value is a word of the sentence that names it ("True values are 'y', 'yes', ... and '1'")
        if not is_prose(_QUOTED_VALUE.sub("value", nxt)):
            break
        end = ne
    return end


def _flat(text: str) -> str:
    return " ".join(text.split())


def _section_of(part: str, whole: str, flat: str = "") -> bool:
    """Are SECTION_OF of `part`'s paragraphs (over 40 characters) in `whole`? `flat`: `_flat(whole)`, if at hand."""
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


def _about(title: str, text: str) -> str:
    """What a document is about, as its meaning is judged (`semantic.closeness`): its title, its opening and its
    public documented names (a module's names say what it offers where its opening is generic), ABOUT_CHARS each."""
    about = f"{title}\n{text[:ABOUT_CHARS]}"
    names = dict.fromkeys(name for name, _, _ in signed_sections(text) if not name.startswith("_"))
    return f"{about}\n{' '.join(names)[:ABOUT_CHARS]}" if names else about


def _quotable(
    text: str, flagged: list[tuple[int, int]], sid: str, s0: int, e: int, seen: set
) -> tuple[int, int, bool] | None:
    """Where the sentence at s0..e starts (after a code line split with it), where its card starts, and whether it
    is a signed docstring's first sentence; None when taken already, too short or long, flagged, or not prose."""
    s = _after_signature(text, s0, e)
    lead = _signed(text, s0, s)
    if lead < s and any(lead < fe and fs < s for fs, fe in flagged):
        lead = s
    signed = lead < s  # a docstring's first sentence, quoted with its signature line
    if (sid, s) in seen or not (MIN_CHARS <= e - lead <= MAX_CHARS + SIGNATURE_MAX):
        return None
    if e - s > MAX_CHARS or any(s < fe and fs < e for fs, fe in flagged):
        return None
    # a docstring's summary line is prose by its place, however short ("Directory tree generator.")
    if not (is_prose(text[s:e]) or signed and is_prose(text[s:e], min_tokens=2, words_share=SIGNED_WORDS)):
        return None
    return s, lead, signed
