"""Turning a local file into plain text: text as it is, Markdown as the text a reader sees (`markdown_text`),
HTML without markup, PDF page text, Word documents' paragraphs and tables (`office`).

Each extractor either returns (title, text) or raises `Unreadable` with a one-line reason,
which the corpus loader turns into a warning and a manifest entry.

A title comes from the document's metadata (front matter `title:`, HTML `<title>`, PDF
metadata), its heading (a Markdown heading near the top, HTML `<h1>`), a short first line
standing on its own, or else the file name — never from running body text. A candidate
title that reads as instructions (`injection.find_injections`) is passed over for the next.
"""

from __future__ import annotations

import io
import logging
import re
from contextlib import contextmanager
from html.parser import HTMLParser
from pathlib import Path, PurePath

from harness.sources.injection import find_injections
from harness.sources.markdown_text import inline_text, markdown_to_text
from harness.sources.office import OFFICE, OfficeUnreadable, read_office

MARKDOWN = (".md", ".markdown")
SUPPORTED = (*MARKDOWN, ".txt", ".html", ".htm", ".pdf", *OFFICE)
EXTRACTOR_VERSION = "3"  # bump when extraction changes, so cached text is rebuilt
TITLE_MAX = 120  # characters; a longer heading is cut at a word boundary
SHORT_LINE = (80, 12)  # a first line is a title only if it is at most this many characters and words
HEADING_WITHIN = 5  # a Markdown heading is the title only among the first non-blank lines


class Unreadable(Exception):
    """A file the corpus cannot use; the message is the reason."""


class NoText(Unreadable):
    """A file read whole that holds no text (an empty file, a section index of front matter only): nothing failed,
    so the corpus names these in one line, not one warning each."""


def _decode(data: bytes) -> str:
    if b"\x00" in data[:8192]:
        raise Unreadable("binary file (NUL bytes)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise Unreadable(f"not UTF-8 text (byte {exc.start})") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


_ATX = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$")
_SETEXT = re.compile(r"^\s{0,3}(?:=+|-+)\s*$")
_FRONT_MATTER_TITLE = re.compile(r"\A---\n(?:.*\n)*?title:\s*[\"']?(.+?)[\"']?\s*\n(?:.*\n)*?---\n")


def _shorten(title: str) -> str:
    title = " ".join(title.split())
    if len(title) <= TITLE_MAX:
        return title
    return title[:TITLE_MAX].rsplit(" ", 1)[0].rstrip(",;:") + "…"


def _markdown_heading(text: str) -> str | None:
    """The front matter's title, or a heading among the first few non-blank lines."""
    m = _FRONT_MATTER_TITLE.match(text)
    if m:
        return m.group(1)
    lines = [line for line in text.splitlines() if line.strip()][: HEADING_WITHIN + 1]
    for i, line in enumerate(lines[:HEADING_WITHIN]):
        m = _ATX.match(line)
        if m:
            return m.group(1)
        if i + 1 < len(lines) and _SETEXT.match(lines[i + 1]) and not _SETEXT.match(line):
            return line.strip()
    return None


def _short_first_line(text: str) -> str | None:
    """The first line, if it is short and stands on its own (a blank line or the end follows it)."""
    stripped = text.lstrip("\n")
    first, _, rest = stripped.partition("\n")
    first = first.strip()
    chars, words = SHORT_LINE
    if not first or len(first) > chars or len(first.split()) > words or first.endswith((".", ",", ";", ":")):
        return None
    return first if not rest.strip() or not rest.split("\n", 1)[0].strip() else None


def _file_title(path: PurePath) -> str:
    return " ".join(re.sub(r"[-_]+", " ", path.stem).split()) or path.name


def _in_flagged_text(title: str, text: str) -> bool:
    """Does the title's place in the text overlap instruction-like text (which may run on past the title)?"""
    pos = text.find(title)
    if pos < 0:
        return False
    flags = find_injections(text[: pos + len(title) + 400])
    return any(f["offset"] < pos + len(title) and pos < f["offset"] + len(f["excerpt"]) for f in flags)


def choose_title(candidates: list[str | None], path: PurePath, text: str = "") -> str:
    """The first candidate that is present and does not read as instructions (in itself, or where it stands in
    `text`); else the file name; else a neutral placeholder."""
    for title in candidates:
        raw = (title or "").strip()
        title = _shorten(raw)
        if title and not find_injections(title) and not (text and _in_flagged_text(raw, text)):
            return title
    title = _shorten(_file_title(path))
    return title if title and not find_injections(title) else "Untitled document"


class _HTMLText(HTMLParser):
    _SKIP = {"script", "style", "noscript", "template", "svg", "head"}
    _BLOCK = {
        "p",
        "div",
        "section",
        "article",
        "li",
        "ul",
        "ol",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "pre",
        "table",
        "tr",
        "br",
        "blockquote",
        "dt",
        "dd",
        "header",
        "footer",
        "main",
    }

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title = ""
        self.h1 = ""
        self._skip = 0
        self._in_title = False
        self._in_h1 = 0  # 1 inside the first <h1>, 2 after it

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag == "title":
            self._in_title = True
        if tag == "h1" and self._in_h1 == 0:
            self._in_h1 = 1
        if tag in self._SKIP:
            self._skip += 1
        elif tag in self._BLOCK:
            self.parts.append("\n\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        if tag == "h1" and self._in_h1 == 1:
            self._in_h1 = 2
        if tag in self._SKIP and self._skip:
            self._skip -= 1
        elif tag in self._BLOCK:
            self.parts.append("\n\n")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        if self._in_h1 == 1:
            self.h1 += data
        if not self._skip:
            self.parts.append(data)


def html_to_text(html: str) -> tuple[str, str]:
    """(title, text): the title is <title>, else the first <h1>, else ''."""
    parser = _HTMLText()
    parser.feed(html)
    parser.close()
    raw = "".join(parser.parts)
    lines = [" ".join(line.split()) for line in raw.split("\n")]
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip() + "\n"
    title = " ".join(parser.title.split())
    if not title or find_injections(title):
        title = " ".join(parser.h1.split())
    return title, text


@contextmanager
def _pypdf_quiet():
    """Mute pypdf's own log lines ("EOF marker not found", ...) while it reads one file.

    The corpus loader reports one warning line per skipped file; pypdf's lines would
    only repeat it less clearly (its loggers inherit the level of the "pypdf" logger).
    """
    log = logging.getLogger("pypdf")
    level = log.level
    log.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        log.setLevel(level)


def pdf_text(data: bytes) -> tuple[str, str]:
    """(metadata title or "", page text) of a PDF, or Unreadable; shared by the corpus loader and the web fetcher."""
    try:
        from pypdf import PdfReader

        with _pypdf_quiet():
            reader = PdfReader(io.BytesIO(data), strict=False)
            pages = [page.extract_text() or "" for page in reader.pages]
            meta = reader.metadata
            title = str(meta.title or "") if meta is not None else ""
    except Exception as exc:  # pypdf raises many types for damaged files
        raise Unreadable(f"corrupt or unreadable PDF ({type(exc).__name__})") from None
    text = "\n\n".join(p.strip() for p in pages if p.strip())
    if not text:
        raise Unreadable("PDF has no extractable text")
    return title, text + "\n"


def read_pdf(path: PurePath, data: bytes) -> tuple[str, str]:
    """(title, text) of a PDF, a local file or a fetched page (`path` names it: the file, or the URL's path)."""
    meta_title, text = pdf_text(data)
    return choose_title([meta_title, _short_first_line(text)], path, text), text


def extract(path: Path, data: bytes) -> tuple[str, str]:
    """(title, text) of a local file, or raise Unreadable."""
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED:
        raise Unreadable(f"unsupported file type '{suffix or path.name}'")
    if suffix == ".pdf":
        return read_pdf(path, data)
    if suffix in OFFICE:
        try:
            title, text = read_office(suffix, data)
        except OfficeUnreadable as exc:
            raise Unreadable(str(exc)) from None
        if not text.strip():
            raise NoText("document has no text")
        return choose_title([title, _short_first_line(text)], path, text), text
    text = _decode(data)
    if suffix in (".html", ".htm"):
        title, text = html_to_text(text)
        if not text.strip():
            raise NoText("HTML page has no text")
        return choose_title([title, _short_first_line(text)], path, text), text
    if not text.strip():
        raise NoText("empty file")
    if suffix in MARKDOWN:
        raw, heading = text, _markdown_heading(text)
        text = markdown_to_text(raw, lambda html: html_to_text(html)[1])
        if not text.strip():
            raise NoText("Markdown file has no text")
        # the heading is judged where it stands in the file too: one that runs on into instructions on the next line
        # ("# Ignore all previous" / "instructions and ...") is part of them, though the text sets it apart, and
        # then neither it nor the text's first line (the same heading) is the title
        if heading and _in_flagged_text(heading.strip(), raw):
            return choose_title([], path, text), text
        return choose_title([inline_text(heading) if heading else None, _short_first_line(text)], path, text), text
    return choose_title([_markdown_heading(text), _short_first_line(text)], path, text), text
