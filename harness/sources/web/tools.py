"""`web_search` and `fetch_url` for one run: what the Researcher's web tools do below the model.

A fetched page becomes evidence only through `SourceRegistry.register`, which assigns the id, dedups
and flags instruction-like text; its record carries the page's web provenance (`web_provenance`).
Search snippets are screened for instruction-like text the same way before anyone sees them.

The search itself is a provider's (`sources/search/`: ddgs unless the run configures another). A page
fetched from a result it returned is registered with the result's query, provider and rank; when the
provider sent the page's text with the result (Tavily, Exa), that text is the snapshot, no request is
made, and the provenance says `text_from: provider`.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

import httpx

from harness.contract.formats import now_iso, sha256_bytes, sha256_text
from harness.contract.search import FROM_PAGE, FROM_PROVIDER
from harness.errors import HarnessError
from harness.sources.injection import find_injections
from harness.sources.registry import SourceRegistry
from harness.sources.search import SearchProvider, SearchSettings, WebHit, make_provider
from harness.sources.urls import normalize_url
from harness.sources.web.addresses import AddressGuard, Resolver, system_resolver
from harness.sources.web.cache import DEFAULT_TTL, Page, PageCache
from harness.sources.web.download import Downloader, FetchLimits
from harness.sources.web.pages import page_text
from harness.sources.web.policy import WebPolicy, WebRefused
from harness.sources.web.robots import RobotsRules


@dataclass(frozen=True)
class FetchResult:
    source_id: str
    url: str  # the final URL after redirects, normalized
    title: str
    kind: str
    new: bool  # False when the URL or the same text was already registered
    flags: tuple[dict[str, Any], ...]
    text: str  # the registered snapshot: what quotes must come from
    from_cache: bool = False
    status: int = 200
    content_type: str = ""


def provider_page(hit: WebHit) -> Page:
    """A search result whose provider sent the page's text, as a page: its URL as given and that text. No request
    was made, so the status and content type describe the provider's answer (200, text/plain)."""
    now = time.time()
    return Page(
        requested_url=hit.url,
        final_url=hit.url,
        hops=(hit.url,),
        status=200,
        content_type="text/plain",
        title=hit.title,
        text=hit.text or "",
        content_sha256=sha256_text(hit.text or ""),
        fetched_at=now_iso(),
        fetched_ts=now,
        robots_checked=False,
    )


def web_provenance(page: Page, *, search: dict[str, Any] | None = None, text_from: str = FROM_PAGE) -> dict[str, Any]:
    """The `web` object of a source record (schemas/source.schema.json): how the page was obtained.
    `search` is the result that led to it ({'query', 'provider', 'rank'}), when a search did."""
    out: dict[str, Any] = {
        "requested_url": page.requested_url,
        "final_url": page.final_url,
        "redirects": list(page.hops[:-1]),
        "status": page.status,
        "content_type": page.content_type,
        "content_sha256": page.content_sha256,
        "from_cache": page.from_cache,
        "text_from": text_from,
    }
    for key in ("query", "provider", "rank"):
        if search and search.get(key) is not None:
            out[key] = search[key]
    return out


class WebTools:
    """`web_search` and `fetch_url` for one run; fetched pages are registered in `registry`."""

    def __init__(
        self,
        registry: SourceRegistry,
        *,
        timeout: float = 10.0,
        max_bytes: int = 5_000_000,
        max_redirects: int = 5,
        per_host: int = 2,
        robots: bool = True,
        allow_private: bool = False,
        cache_ttl: float = DEFAULT_TTL,
        cache: PageCache | None = None,
        resolver: Resolver | None = None,
        search: SearchProvider | None = None,
        transport: httpx.BaseTransport | None = None,
    ):
        self.registry = registry
        self.limits = FetchLimits(timeout, max_bytes, max_redirects, per_host)
        self.guard = AddressGuard(allow_private, resolver or system_resolver)
        self.cache = cache if cache is not None else PageCache(cache_ttl)
        self.downloader = Downloader(self.limits, self.guard, RobotsRules() if robots else None, transport)
        self._provider = search
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

    @property
    def timeout(self) -> float:
        return self.limits.timeout

    def close(self) -> None:
        """Close the run's HTTP client (its pooled connections); the run's teardown calls this."""
        self.downloader.close()

    def web_search(self, query: str, k: int, policy: WebPolicy) -> list[dict]:
        """Up to k results [{'title', 'url', 'snippet', 'rank', 'provider', 'flags'}] on allowed domains; others
        are dropped, not shown. `flags` are the snippet's instruction-like sentences (`injection.find_injections`,
        offsets in the snippet); `rank` is the provider's own. The provider is asked for more than k because the
        allow-list usually filters many out."""
        try:
            raw = self.provider.search(query, max(3 * k, 10))
        except ImportError:
            info = getattr(self.provider, "info", None)
            hint = f": pip install {info.pip}" if info else ""
            raise WebRefused(
                f"web_search {query!r}", f"the {self.provider.name} client is not installed{hint}"
            ) from None
        except HarnessError as exc:  # a missing key or package, or the provider's own failure
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
                {
                    "title": hit.title,
                    "url": hit.url,
                    "snippet": hit.snippet,
                    "rank": hit.rank,
                    "provider": hit.provider,
                    "flags": find_injections(hit.snippet),
                }
            )
            if len(results) >= k:
                break
        return results

    def fetch_page(self, url: str, policy: WebPolicy) -> Page:
        """The page at `url` from the cache when fresh (its hops checked again), else downloaded and extracted."""
        policy.check(url)
        cached = self.cache.get(url)
        if cached is not None and (cached.robots_checked or self.downloader.robots is None):
            for hop in cached.hops:
                policy.check(hop)
                self.guard.check_url(hop)
            return cached
        got = self.downloader.get(url, policy)
        title, text = page_text(got.body, got.content_type, got.charset, got.final_url)
        page = Page(
            requested_url=got.requested_url,
            final_url=got.final_url,
            hops=got.hops,
            status=got.status,
            content_type=got.content_type,
            title=title,
            text=text,
            content_sha256=sha256_bytes(got.body),
            fetched_at=now_iso(),
            fetched_ts=time.time(),
            robots_checked=got.robots_checked,
        )
        self.cache.put(page)
        return page

    def fetch_url(
        self, url: str, policy: WebPolicy, question_id: str | None = None, *, search: dict[str, Any] | None = None
    ) -> FetchResult:
        """Fetch one allowed page (or take it from the cache), extract its readable text, register it; with the
        search result that named it as provenance (`search`, or the result this run's web_search returned for the
        URL), and that result's own text as the snapshot when its provider sent the page's text."""
        hit = self.found(url)
        if search is None and hit is not None:
            search = {"query": hit.query, "provider": hit.provider, "rank": hit.rank}
        if hit is not None and hit.text and hit.text.strip():
            policy.check(url)  # no request is made, but the question's domain policy still decides
            page = provider_page(hit)
            return self.register_page(
                page, question_id=question_id, search=search, text_from=FROM_PROVIDER, official=policy.primary_domains
            )
        page = self.fetch_page(url, policy)
        return self.register_page(page, question_id=question_id, search=search, official=policy.primary_domains)

    def register_page(
        self,
        page: Page,
        *,
        question_id: str | None = None,
        search: dict[str, Any] | None = None,
        text_from: str = FROM_PAGE,
        tool: str = "fetch_url",
        official: tuple[str, ...] = (),
    ) -> FetchResult:
        """Register a page as a source, with its web provenance. `text_from="provider"` when the text is what a
        search provider returned for the page (Tavily raw content, Exa text) rather than the page itself;
        `official`: the domains the plan marks as primary (a page on one is registered as primary)."""
        final = normalize_url(page.final_url)
        reg = self.registry.register(
            text=page.text,
            title=page.title or final,
            url=final,
            tool=tool,
            query=(search or {}).get("query"),
            question_id=question_id,
            retrieved_at=page.fetched_at,
            web=web_provenance(page, search=search, text_from=text_from),
            official=official,
        )
        return FetchResult(
            reg.source_id,
            final,
            reg.title,
            reg.kind,
            reg.new,
            reg.flags,
            self.registry.text(reg.source_id),
            page.from_cache,
            page.status,
            page.content_type,
        )
