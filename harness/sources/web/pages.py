"""From the bytes a server sent to the (title, text) a snapshot keeps: HTML, PDF or plain text.

- HTML: page furniture stripped (`boilerplate`), the main text by trafilatura, furniture lines dropped;
  the title from the page's metadata, else its <title>.
- PDF: `sources/extract.read_pdf`, the same reader the local corpus uses.
- Plain text (and Markdown): as it is.

Bytes become text by the charset the server declared, else the page's own <meta charset>, else UTF-8,
else what `charset_normalizer` detects. A page that yields no readable text — empty, a page that needs
JavaScript ("Enable JavaScript."), a login or paywall, a few stray words — raises `WebRefused` with a
reason the model can act on: it is never registered as a source.
"""

from __future__ import annotations

import codecs
import re
from pathlib import PurePosixPath
from urllib.parse import urlsplit

from harness.sources.extract import Unreadable, read_pdf
from harness.sources.web.boilerplate import drop_boilerplate_lines, strip_chrome
from harness.sources.web.policy import WebRefused

HTML_TYPES = ("text/html", "application/xhtml+xml")
TEXT_TYPES = ("text/plain", "text/markdown")
PDF_TYPES = ("application/pdf",)
SNIFFED_TYPES = ("application/octet-stream",)  # many servers send PDFs so: kept only when the bytes are a PDF
ACCEPTED_TYPES = HTML_TYPES + TEXT_TYPES + PDF_TYPES + SNIFFED_TYPES
ACCEPT_HEADER = "text/html,application/xhtml+xml,application/pdf;q=0.9,text/plain;q=0.8,text/markdown;q=0.8"
EXTRACTOR_VERSION = "web-2"  # bump when extraction changes: it keys the page cache
MIN_WORDS = 8  # fewer readable words than this is not a page worth citing

_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
_NEEDS_JS = re.compile(
    r"\b(?:enable|turn on|activate|allow)\s+javascript\b|\bjavascript\s+(?:is\s+)?(?:required|disabled|needed)\b"
    r"|\brequires?\s+javascript\b|\bneed(?:s)?\s+(?:to\s+enable\s+)?javascript\b",
    re.IGNORECASE,
)
_LOGIN_WALL = re.compile(
    r"\b(?:sign|log)\s*in\s+to\s+(?:continue|read|view|see|access)\b|\bsubscribe\s+to\s+(?:read|continue|access)\b"
    r"|\bcreate\s+(?:a\s+free\s+|an\s+)account\s+to\b|\bmembers?\s+only\b|\bavailable\s+(?:only\s+)?to\s+subscribers\b"
    r"|\bplease\s+(?:log|sign)\s*in\b|\bsubscribers?\s+only\b",
    re.IGNORECASE,
)
SHORT_PAGE = 600  # characters: a page this short that asks for JavaScript or a login is only asking


def decode(body: bytes, declared: str | None, *, html: bool = False) -> str:
    """Text from bytes: the declared charset (or an HTML page's <meta charset>) when it decodes them, else
    UTF-8, else the charset `charset_normalizer` detects, else UTF-8 with replacement characters."""
    candidates = [declared]
    if html:
        m = _META_CHARSET.search(body[:4096])
        candidates.append(m.group(1).decode("ascii") if m else None)
    for name in candidates:
        if not name:
            continue
        try:
            codecs.lookup(name)
            return body.decode(name)
        except (LookupError, UnicodeDecodeError):
            continue
    try:
        return body.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    return _detected(body)


def _detected(body: bytes) -> str:
    """`charset_normalizer`'s best guess; between guesses it rates equally, windows-1252, which is what browsers
    assume for an undeclared Western page (cp1250 and cp1252 tie on French text, for instance)."""
    from charset_normalizer import from_bytes

    matches = list(from_bytes(body))
    if not matches:
        return body.decode("utf-8", errors="replace")
    best = matches[0]
    for m in matches:
        if (m.chaos, m.coherence) == (best.chaos, best.coherence) and "cp1252" in m.could_be_from_charset:
            return body.decode("cp1252")
    return str(best)


def page_text(body: bytes, content_type: str, charset: str | None, url: str) -> tuple[str, str]:
    """(title, text) of a fetched page, or WebRefused when it has no readable text."""
    if content_type in PDF_TYPES or body.startswith(b"%PDF-"):
        try:
            title, text = read_pdf(PurePosixPath(urlsplit(url).path or "/page.pdf"), body)
        except Unreadable as exc:
            raise WebRefused(url, f"the PDF has no readable text ({exc})") from None
        return title, text
    if content_type not in HTML_TYPES + TEXT_TYPES:
        raise WebRefused(url, f"content type {content_type} is not a PDF, HTML or text page")
    if content_type in HTML_TYPES:
        page = decode(body, charset, html=True)
        title, text = _html(page, url)
        _refuse_no_text(url, text, raw=page)
        return title, text
    text = decode(body, charset).replace("\r\n", "\n").replace("\r", "\n")
    _refuse_no_text(url, text, raw=text)
    return "", text


def _html(page: str, url: str) -> tuple[str, str]:
    """(title, main text): one parse; the title from og:title, <title> or the first <h1>, then the
    furniture stripped and the main text found by trafilatura (its metadata pass, which also hunts for
    dates, would cost more than the extraction itself)."""
    import trafilatura
    from lxml import etree
    from lxml import html as lxml_html

    try:
        root = lxml_html.document_fromstring(page)
    except (ValueError, etree.ParserError):
        return "", ""
    title = _title(root)
    text = trafilatura.extract(strip_chrome(root), url=url, include_tables=True, include_comments=False) or ""
    # one block per line in trafilatura's text (heading, paragraph, list item, table row): a blank line between
    # blocks, as in a corpus document, so the one sentence splitter never runs a heading into the text below it
    return title, "\n\n".join(line for line in drop_boilerplate_lines(text).splitlines() if line.strip())


def _title(root) -> str:
    for found in (
        root.xpath("//meta[@property='og:title']/@content"),
        root.xpath("//title//text()"),
        root.xpath("//h1//text()"),
    ):
        title = " ".join(" ".join(found).split())
        if title:
            return title
    return ""


def _visible_words(raw: str) -> str:
    """The page's words with markup, scripts and styles removed: what a reader without JavaScript sees."""
    raw = re.sub(r"(?is)<(script|style)\b.*?</\1>", " ", raw)
    return " ".join(re.sub(r"(?s)<[^>]+>", " ", raw).split())


def _refuse_no_text(url: str, text: str, *, raw: str) -> None:
    words = len(text.split())
    visible = _visible_words(raw)
    if len(text) < SHORT_PAGE:
        js = _NEEDS_JS.search(text) or (len(visible) < SHORT_PAGE and _NEEDS_JS.search(visible))
        if js:
            return _refuse(
                url, f"the page shows its text only with JavaScript ({js.group(0)!r}), which the harness does not run"
            )
        wall = _LOGIN_WALL.search(text) or (len(visible) < SHORT_PAGE and _LOGIN_WALL.search(visible))
        if wall:
            return _refuse(url, f"the page is behind a login or paywall ({wall.group(0)!r})")
    if words == 0:
        return _refuse(url, "no readable text in the page")
    if words < MIN_WORDS:
        return _refuse(url, f"too little readable text in the page ({words} words)")


def _refuse(url: str, reason: str) -> None:
    raise WebRefused(url, reason + "; it is not a source: try another result or page")
