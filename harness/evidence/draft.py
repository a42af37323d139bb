"""Parsing a Markdown draft into sentences with their line numbers, sections and citations.

What counts as a *factual* sentence (one that must cite a claim): a sentence of a
paragraph, list item or table row, outside the Limitations section, that is not a
heading, not a question or a lead-in ending in ':', not wholly in italics (the Writer's
notes and transitions are written in italics), and has at least four words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from harness.contract.citations import Citation, parse_citations, split_leading_citations, strip_citations
from harness.sources.sentences import split_sentences

_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_LIST = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-{3,}")
_ITALIC = re.compile(r"^\s*(?:\*[^*].*\*|_[^_].*_)\s*[.!]?\s*$", re.S)
NON_FACT_SECTIONS = ("limitation", "method", "about this report", "sources", "evidence")


@dataclass(frozen=True)
class Sentence:
    line: int
    text: str  # as written, citations included
    section: str  # text of the nearest heading above ('' before any)
    citations: tuple[Citation, ...]
    factual: bool

    @property
    def claim_ids(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(k for c in self.citations for k in c.keys))

    @property
    def plain(self) -> str:
        """The sentence without its citation markers."""
        return re.sub(r"\s+([.,;:!?])", r"\1", " ".join(strip_citations(self.text).split()))


def non_factual_section(section: str) -> bool:
    """Limitations, Method, Sources, Evidence...: the heading starts with the marker (after any numbering)."""
    head = re.sub(r"^[\d.)\s]+", "", section.strip().lower())
    return head.startswith(NON_FACT_SECTIONS)


def _is_factual(text: str, section: str) -> bool:
    if non_factual_section(section):
        return False
    plain = " ".join(strip_citations(text).split())
    if not plain or plain.endswith((":", "?")) or _ITALIC.match(plain):
        return False
    return len(re.findall(r"[A-Za-z0-9]+", plain)) >= 4


def _blocks(lines: list[str]):
    """(first_line_number, text) of each paragraph, list item or table row; plus headings."""
    block: list[str] = []
    start = 0
    fence = False
    for n, raw in enumerate(lines, start=1):
        following = lines[n] if n < len(lines) else ""
        line = raw.rstrip("\n")
        if line.strip().startswith("```"):
            fence = not fence
            if block:
                yield start, "\n".join(block), None
                block = []
            continue
        if fence or line.strip().startswith("<!--"):
            continue
        heading = _HEADING.match(line)
        new_item = _LIST.match(line) or line.strip().startswith("|") or line.strip().startswith(">")
        if heading or not line.strip() or new_item:
            if block:
                yield start, "\n".join(block), None
                block = []
        if heading:
            yield n, heading.group(2).strip(), heading.group(2).strip()
            continue
        if not line.strip() or _TABLE_SEP.match(line):
            continue
        if line.strip().startswith("|"):
            if not _TABLE_SEP.match(following):  # a header row is not a sentence
                yield n, line.strip().strip("|"), None
            continue
        if not block:
            start = n
            line = _LIST.sub("", line, count=1).lstrip("> ")
        block.append(line)
    if block:
        yield start, "\n".join(block), None


def parse_draft(markdown: str) -> list[Sentence]:
    """Every sentence of the draft, in order."""
    out: list[Sentence] = []
    section = ""
    for first_line, text, heading in _blocks(markdown.splitlines()):
        if heading is not None:
            section = heading
            continue
        note = bool(_ITALIC.match(text))  # a whole paragraph in italics is the Writer's note
        pieces: list[tuple[int, str]] = []
        for s, e in split_sentences(text):
            piece = text[s:e]
            # A citation written after the full stop ("fact. [@C1]") belongs to the sentence before it.
            lead = split_leading_citations(piece)
            if lead and pieces:
                prev_line, prev = pieces[-1]
                pieces[-1] = (prev_line, prev + " " + lead[0])
                piece = lead[1]
                if not re.search(r"[A-Za-z0-9]", piece):
                    continue
            pieces.append((first_line + text.count("\n", 0, s), piece))
        for line, piece in pieces:
            cits = tuple(parse_citations(piece))
            out.append(Sentence(line, piece, section, cits, not note and _is_factual(piece, section)))
    return out


def sections(markdown: str) -> list[tuple[int, str]]:
    """(line, heading text) for every heading."""
    return [
        (n, m.group(2).strip()) for n, line in enumerate(markdown.splitlines(), start=1) if (m := _HEADING.match(line))
    ]
