"""How the offline Writer writes a claim's statement as report sentences: each sentence cited, a docstring's
signature line read as prose that names what it documents."""

from __future__ import annotations

from harness.contract.citations import format_citation
from harness.contract.quotes import normalize_ws
from harness.engines.offline.ranking import SIGNED_NAME
from harness.sources.sentences import split_sentences


def bare(statement: str) -> str:
    """A statement without its final full stop, so a citation can go before it."""
    s = normalize_ws(statement)
    return s[:-1] if s.endswith((".", ";")) else s


_CLOSE = {"(": ")", "[": "]", "{": "}"}


def _balanced(text: str, i: int) -> int:
    """Where the bracketed or plain token starting at text[i] ends: at the first space outside brackets."""
    stack: list[str] = []
    while i < len(text) and (stack or text[i] != " "):
        if text[i] in _CLOSE:
            stack.append(_CLOSE[text[i]])
        elif stack and text[i] == stack[-1]:
            stack.pop()
        i += 1
    return i if not stack else -1


def unsigned(text: str) -> str:
    """A docstring's sentence quoted with its signature line ("def b64encode(s, altchars=None) Encode the...") as
    prose that names what it documents ("`b64encode(s, altchars=None)`: Encode the..."); any other text as it is.
    A class keeps its keyword ("`class CancelledError(BaseException)`: ..."): without it, the names in brackets,
    its bases, read as a call's arguments, and which class it derives from is often the answer."""
    m = SIGNED_NAME.match(text)
    if not m:
        return text
    end = _balanced(text, m.start(1))  # the name and its argument list
    rest = text[end:].lstrip() if end > 0 else ""
    if rest.startswith("-> "):
        after = _balanced(rest, 3)  # a return annotation, left out
        rest = rest[after:].lstrip() if after > 0 else ""
    name = text[m.start() if text.startswith("class ") else m.start(1) : end]
    return f"`{name}`: {rest}" if rest else text


def cite(statement: str, claim_id: str) -> str:
    """The statement with its citation after each of its sentences (a quote may hold a sentence and its
    antecedent: each one states a fact, so each one cites)."""
    text = unsigned(normalize_ws(statement))
    parts = [text[a:b] for a, b in split_sentences(text)] or [text]
    return " ".join(f"{bare(p)} {format_citation([claim_id])}." for p in parts)
