"""Turning a local file into plain text: Markdown and text as they are, HTML without markup, PDF page text.

Each extractor either returns (title, text) or raises `Unreadable` with a one-line reason,
which the corpus loader turns into a warning and a manifest entry.
"""

from __future__ import annotations

import io
import logging
import re
from contextlib import contextmanager
from html.parser import HTMLParser
from pathlib import Path

SUPPORTED = (".md", ".markdown", ".txt", ".html", ".htm", ".pdf")
EXTRACTOR_VERSION = "1"  # bump when extraction changes, so cached text is rebuilt


class Unreadable(Exception):
    """A file the corpus cannot use; the message is the reason."""


def _decode(data: bytes) -> str:
    if b"\x00" in data[:8192]:
        raise Unreadable("binary file (NUL bytes)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise Unreadable(f"not UTF-8 text (byte {exc.start})") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _title_from_lines(text: str, fallback: str) -> str:
    for line in text.splitlines():
        line = line.strip()
        if line:
            return re.sub(r"^#+\s*", "", line)[:200]
    return fallback


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
        self._skip = 0
        self._in_title = False

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag == "title":
            self._in_title = True
        if tag in self._SKIP:
            self._skip += 1
        elif tag in self._BLOCK:
            self.parts.append("\n\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        if tag in self._SKIP and self._skip:
            self._skip -= 1
        elif tag in self._BLOCK:
            self.parts.append("\n\n")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        if not self._skip:
            self.parts.append(data)


def html_to_text(html: str) -> tuple[str, str]:
    parser = _HTMLText()
    parser.feed(html)
    parser.close()
    raw = "".join(parser.parts)
    lines = [" ".join(line.split()) for line in raw.split("\n")]
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip() + "\n"
    return " ".join(parser.title.split()), text


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


def _pdf_text(data: bytes) -> str:
    try:
        from pypdf import PdfReader

        with _pypdf_quiet():
            reader = PdfReader(io.BytesIO(data), strict=False)
            pages = [page.extract_text() or "" for page in reader.pages]
    except Exception as exc:  # pypdf raises many types for damaged files
        raise Unreadable(f"corrupt or unreadable PDF ({type(exc).__name__})") from None
    text = "\n\n".join(p.strip() for p in pages if p.strip())
    if not text:
        raise Unreadable("PDF has no extractable text")
    return text + "\n"


def extract(path: Path, data: bytes) -> tuple[str, str]:
    """(title, text) of a local file, or raise Unreadable."""
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED:
        raise Unreadable(f"unsupported file type '{suffix or path.name}'")
    if suffix == ".pdf":
        text = _pdf_text(data)
        return _title_from_lines(text, path.stem), text
    text = _decode(data)
    if suffix in (".html", ".htm"):
        title, text = html_to_text(text)
        if not text.strip():
            raise Unreadable("HTML page has no text")
        return title or _title_from_lines(text, path.stem), text
    if not text.strip():
        raise Unreadable("empty file")
    return _title_from_lines(text, path.stem), text
