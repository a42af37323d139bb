"""The optional web tools: `web_search` and `fetch_url`, fenced in by the plan's domain policy.

Everything the web returns is untrusted, so the tools are deliberately narrow: only http(s),
only hosts the plan allows (checked again on every redirect hop, so an allowed page cannot
bounce us somewhere else), bounded size and time, and only text-like content. A fetched page
becomes evidence only through `SourceRegistry.register`, which assigns the id, dedups and
flags instruction-like text. Needs the `web` extra (ddgs, httpx, trafilatura).

The search itself is a provider's (`sources/search/`: ddgs by default); a page fetched from a
result it returned is registered with the result's query, provider and rank. When the provider
sent the page's text with the result (Tavily, Exa), that text is the snapshot, no request is made,
and the record says `text_from: provider`.
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

import httpx

from harness.contract.search import FROM_PAGE, FROM_PROVIDER
from harness.contract.version import __version__
from harness.errors import EXIT_USAGE, HarnessError
from harness.sources.registry import SourceRegistry
from harness.sources.search import SearchProvider, SearchSettings, WebHit, make_provider
from harness.sources.urls import domain_matches, host_of, normalize_url

_TEXT_TYPES = ("text/html", "application/xhtml+xml", "text/plain")
_REDIRECTS = (301, 302, 303, 307, 308)
_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)


class WebRefused(HarnessError):
    """A web request the harness will not make or whose answer it will not keep: one line, URL and reason."""

    exit_code = EXIT_USAGE

    def __init__(self, url: str, reason: str):
        self.url = url
        self.reason = reason
        super().__init__(f"{url}: {reason}")


@dataclass(frozen=True)
class WebPolicy:
    """Which hosts a question may touch: its allowed domains, or the open web when it lists none; subdomains of
    a listed domain count, and a blocked domain always wins. (Whether a question may use the web at all is its
    `allowed_sources`, checked before any search is spent.)"""

    allowed_domains: tuple[str, ...]
    blocked_domains: tuple[str, ...] = ()

    def check(self, url: str) -> str:
        """The normalized URL, or WebRefused saying why it may not be fetched."""
        scheme = urlsplit(url).scheme.lower()
        if scheme not in ("http", "https"):
            raise WebRefused(url, f"only http and https URLs may be fetched, not {scheme or 'a relative URL'}")
        host = host_of(url)
        if not host:
            raise WebRefused(url, "the URL has no host")
        if any(domain_matches(host, d) for d in self.blocked_domains):
            raise WebRefused(url, f"host {host} is on the blocked-domain list")
        if self.allowed_domains and not any(domain_matches(host, d) for d in self.allowed_domains):
            raise WebRefused(url, f"host {host} is not in the allowed domains ({', '.join(self.allowed_domains)})")
        return normalize_url(url)


@dataclass(frozen=True)
class FetchResult:
    source_id: str
    url: str  # the final URL after redirects, normalized
    title: str
    kind: str
    new: bool  # False when the URL or the same text was already registered
    flags: tuple[dict[str, Any], ...]
    text: str  # the registered snapshot: what quotes must come from


class WebTools:
    """`web_search` and `fetch_url` for one run; fetched pages are registered in `registry`."""

    def __init__(
        self,
        registry: SourceRegistry,
        *,
        timeout: float = 10.0,
        max_bytes: int = 2_000_000,
        max_redirects: int = 5,
        search: SearchProvider | None = None,
        transport: httpx.BaseTransport | None = None,
    ):
        self.registry = registry
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.max_redirects = max_redirects
        self._provider = search
        self.transport = transport
        self._found: dict[str, WebHit] = {}  # normalized URL -> the search result that first named it
        self._found_lock = threading.Lock()

    @property
    def provider(self) -> SearchProvider:
        """The run's search provider (ddgs unless configured), built on first use."""
        if self._provider is None:
            self._provider = make_provider(SearchSettings())
        return self._provider

    def found(self, url: str) -> WebHit | None:
        """The search result that first named `url` in this run, if any."""
        with self._found_lock:
            return self._found.get(normalize_url(url))

    def web_search(self, query: str, k: int, policy: WebPolicy) -> list[dict]:
        """Up to k results [{'title', 'url', 'snippet', 'rank', 'provider'}] on allowed domains; others are
        dropped, not shown. The provider is asked for more than k because the allow-list usually filters many out;
        `rank` stays the provider's own."""
        try:
            raw = self.provider.search(query, max(3 * k, 10))
        except ImportError:
            info = getattr(self.provider, "info", None)
            hint = f": pip install {info.pip}" if info else ""
            raise WebRefused(
                f"web_search {query!r}", f"the {self.provider.name} client is not installed{hint}"
            ) from None
        except HarnessError as exc:  # a missing package or key, or the provider's own failure
            raise WebRefused(f"web_search {query!r}", str(exc)) from None
        except Exception as exc:  # a search engine failure is a refusal, not a crash
            raise WebRefused(f"web_search {query!r}", f"the search failed ({type(exc).__name__}: {exc})") from None
        results: list[dict] = []
        seen: set[str] = set()
        for hit in raw:
            try:
                key = policy.check(hit.url)
            except WebRefused:
                continue
            if key in seen:
                continue
            seen.add(key)
            with self._found_lock:
                self._found.setdefault(key, hit)
            results.append(
                {"title": hit.title, "url": hit.url, "snippet": hit.snippet, "rank": hit.rank, "provider": hit.provider}
            )
            if len(results) >= k:
                break
        return results

    def fetch_url(self, url: str, policy: WebPolicy, question_id: str | None = None) -> FetchResult:
        """Fetch one allowed page, extract its readable text, and register it as a source (with the search result
        that named it, if one did; its provider's text, if it sent the page's)."""
        hit = self.found(url)
        if hit is not None and hit.text and hit.text.strip():
            final_url, text, title, text_from = policy.check(url), hit.text, hit.title, FROM_PROVIDER
        else:
            final_url, content_type, body, charset = self._download(url, policy)
            if content_type == "text/plain":
                text, title = _decode(body, charset), ""
            else:
                text, title = _html_to_text(body, charset, final_url)
            text_from = FROM_PAGE
        if not text.strip():
            raise WebRefused(final_url, "no readable text in the page")
        final = normalize_url(final_url)
        reg = self.registry.register(
            text=text,
            title=title or final,
            url=final,
            tool="fetch_url",
            query=hit.query if hit else None,
            question_id=question_id,
            found={"provider": hit.provider, "rank": hit.rank} if hit else None,
            text_from=text_from,
        )
        return FetchResult(
            reg.source_id, final, reg.title, reg.kind, reg.new, reg.flags, self.registry.text(reg.source_id)
        )

    def _download(self, url: str, policy: WebPolicy) -> tuple[str, str, bytes, str | None]:
        """(final URL, content type, body, charset), following redirects by hand so each hop is checked.

        We request the URL as given, not its normalized form: normalizing drops trailing
        slashes, and a server that redirects /docs to /docs/ would otherwise loop.
        """
        headers = {
            "User-Agent": f"research-harness/{__version__}",
            "Accept": "text/html,application/xhtml+xml,text/plain;q=0.9",
        }
        current = url
        with httpx.Client(
            follow_redirects=False, timeout=self.timeout, headers=headers, transport=self.transport
        ) as client:
            for _hop in range(self.max_redirects + 1):
                policy.check(current)
                try:
                    with client.stream("GET", current) as resp:
                        if resp.status_code in _REDIRECTS:
                            location = resp.headers.get("location")
                            if not location:
                                raise WebRefused(current, f"HTTP {resp.status_code} redirect without a Location")
                            current = urljoin(current, location)
                            continue
                        return current, *self._read(current, resp)
                except httpx.TimeoutException:
                    raise WebRefused(current, f"timed out after {self.timeout:g}s") from None
                except httpx.HTTPError as exc:
                    raise WebRefused(current, f"request failed ({type(exc).__name__}: {exc})") from None
        raise WebRefused(url, f"too many redirects (more than {self.max_redirects})")

    def _read(self, url: str, resp: httpx.Response) -> tuple[str, bytes, str | None]:
        """Check status and type before reading, then stream the body and stop past max_bytes or the deadline."""
        if resp.status_code >= 400:
            raise WebRefused(url, f"HTTP {resp.status_code} {resp.reason_phrase}".rstrip())
        if not 200 <= resp.status_code < 300:
            raise WebRefused(url, f"unexpected HTTP status {resp.status_code}")
        content_type = resp.headers.get("content-type", "").split(";")[0].strip().lower()
        if content_type not in _TEXT_TYPES:
            raise WebRefused(url, f"content type {content_type or '(none)'} is not one of {', '.join(_TEXT_TYPES)}")
        too_big = f"larger than the {self.max_bytes:,}-byte limit"
        declared = resp.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_bytes:
            raise WebRefused(url, f"the page is {int(declared):,} bytes, {too_big}")
        # httpx's timeout bounds each read; a server dripping bytes slowly also needs a total deadline.
        deadline = time.monotonic() + self.timeout
        chunks, size = [], 0
        for chunk in resp.iter_bytes():
            size += len(chunk)
            if size > self.max_bytes:
                raise WebRefused(url, f"the page is {too_big}")
            if time.monotonic() > deadline:
                raise WebRefused(url, f"timed out after {self.timeout:g}s while reading the page")
            chunks.append(chunk)
        return content_type, b"".join(chunks), resp.charset_encoding


def _decode(body: bytes, charset: str | None) -> str:
    try:
        return body.decode(charset or "utf-8", errors="replace")
    except LookupError:  # an unknown charset name in the header
        return body.decode("utf-8", errors="replace")


def _html_to_text(body: bytes, charset: str | None, url: str) -> tuple[str, str]:
    """Readable main text and title. Without a header charset, trafilatura sniffs the bytes itself."""
    import trafilatura

    doc: str | bytes = _decode(body, charset) if charset else body
    text = trafilatura.extract(doc, url=url, favor_precision=False, include_tables=True, include_comments=False) or ""
    meta = trafilatura.extract_metadata(doc, default_url=url)
    title = (meta.title if meta else None) or ""
    if not title:
        m = _TITLE.search(_decode(body, charset))
        title = " ".join(m.group(1).split()) if m else ""
    return text, title
