"""`web_search` and `fetch_url` for one run: what the Researcher's web tools do below the model.

A fetched page becomes evidence only through `SourceRegistry.register`, which assigns the id, dedups
and flags instruction-like text; its record carries the page's web provenance (`web_provenance`).
Search snippets are screened for instruction-like text the same way before anyone sees them.

The search itself is a provider's (`sources/search/`: ddgs unless the run configures another). A page
fetched from a result it returned is registered with the result's query, provider and rank; when the
provider sent the page's text with the result (Tavily, Exa), that text is the snapshot, no request is
made, and the provenance says `text_from: provider`.

`search_and_fetch` (the llm Researcher's `web_search`) fetches the top results itself, in parallel (each
host still limited to `per_host` requests at a time by the downloader), and registers every readable page:
each result comes back as the source it became or the one-line reason it did not. A page is downloaded once
per run however many branches or parallel calls ask for it (one lock per URL; later asks reuse the page,
its hops checked again against the asker's policy), and the page cache spares the next run the download.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import httpx

from harness.contract.formats import now_iso, sha256_bytes, sha256_text
from harness.contract.search import FROM_PAGE, FROM_PROVIDER
from harness.errors import HarnessError, UsageError
from harness.sources.injection import find_injections
from harness.sources.registry import SourceRegistry
from harness.sources.search import SearchProvider, SearchSettings, WebHit, make_provider
from harness.sources.search.combined import Combined
from harness.sources.urls import normalize_url
from harness.sources.web.addresses import AddressGuard, Resolver, system_resolver
from harness.sources.web.cache import DEFAULT_TTL, Page, PageCache
from harness.sources.web.download import Downloader, FetchLimits
from harness.sources.web.pages import page_text
from harness.sources.web.policy import WebPolicy, WebRefused
from harness.sources.web.robots import RobotsRules

SEARCH_PAGES = 5  # results one web_search fetches and registers (research.yaml fetch.search_pages)


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
    work: dict[str, Any] | None = None  # a paper's scholarly identity, as its source record holds it


@dataclass(frozen=True)
class SearchedResult:
    """One result of a fetching web_search: the source it became (`page`), or why it is not one (`reason`)."""

    rank: int  # the provider's
    url: str  # as the provider gave it
    page: FetchResult | None = None
    reason: str = ""  # one line: refused by policy or the private-address guard, robots, HTTP error, no text, ...


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
        search_pages: int = SEARCH_PAGES,
        open_web: bool = True,
    ):
        self.registry = registry
        # False: the run has no --web, only literature providers (the services then search those alone, as the
        # plan allows each question, and fetch only the papers they found: `contract/search.searchable`)
        self.open_web = open_web
        self.search_pages = max(1, int(search_pages))
        self.limits = FetchLimits(timeout, max_bytes, max_redirects, per_host)
        self.guard = AddressGuard(allow_private, resolver or system_resolver)
        self.cache = cache if cache is not None else PageCache(cache_ttl)
        self.downloader = Downloader(self.limits, self.guard, RobotsRules() if robots else None, transport)
        self._provider = search
        self._found: dict[str, WebHit] = {}  # normalized URL -> the search result that first named it
        self._found_lock = threading.Lock()
        self._pages: dict[str, Page] = {}  # normalized URL asked for -> the page this run fetched there
        self._url_locks: dict[str, threading.Lock] = {}  # one download of a URL at a time, however many ask

    @property
    def provider(self) -> SearchProvider:
        """The run's search provider (ddgs unless configured), built on first use."""
        if self._provider is None:
            self._provider = make_provider(SearchSettings())
        return self._provider

    @property
    def provider_names(self) -> tuple[str, ...]:
        """The names of the providers this run searches, in order."""
        return tuple(p.name for p in getattr(self.provider, "providers", [self.provider]))

    def provider_for(self, names: Sequence[str] | None = None) -> SearchProvider:
        """The run's providers named in `names` (None: all of them), searched as one."""
        if names is None:
            return self.provider
        parts = list(getattr(self.provider, "providers", [self.provider]))
        chosen = [p for p in parts if p.name in names]
        if not chosen:
            raise WebRefused(
                "web_search", f"this run searches {', '.join(self.provider_names)}, not {', '.join(names)}"
            )
        if len(chosen) == len(parts):
            return self.provider
        return chosen[0] if len(chosen) == 1 else Combined(chosen)

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

    def web_search(self, query: str, k: int, policy: WebPolicy, providers: Sequence[str] | None = None) -> list[dict]:
        """Up to k results [{'title', 'url', 'snippet', 'rank', 'provider', 'flags'}] on allowed domains; others
        are dropped, not shown. `flags` are the snippet's instruction-like sentences (`injection.find_injections`,
        offsets in the snippet); `rank` is the provider's own. The provider is asked for more than k because the
        allow-list usually filters many out. `providers`: which of the run's providers to ask (None: all)."""
        try:
            provider = self.provider_for(providers)  # built on first use: its client may be missing
        except UsageError as exc:
            raise WebRefused(f"web_search {query!r}", str(exc)) from None
        try:
            raw = provider.search(query, max(3 * k, 10))
        except ImportError:
            info = getattr(provider, "info", None)
            hint = f": pip install {info.pip}" if info else ""
            raise WebRefused(f"web_search {query!r}", f"the {provider.name} client is not installed{hint}") from None
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

    def _url_lock(self, key: str) -> threading.Lock:
        with self._found_lock:
            return self._url_locks.setdefault(key, threading.Lock())

    def fetch_page(self, url: str, policy: WebPolicy) -> Page:
        """The page at `url`: fetched earlier in this run, or from the cache when fresh (its hops checked again
        either way: the asker's policy may differ), else downloaded and extracted. Parallel asks for one URL wait
        for the first download rather than making their own."""
        policy.check(url)
        key = normalize_url(url)
        with self._url_lock(key):
            known = self._pages.get(key)
            if known is None:
                cached = self.cache.get(url)
                if cached is not None and (cached.robots_checked or self.downloader.robots is None):
                    known = cached
            if known is not None:
                for hop in known.hops:
                    policy.check(hop)
                    self.guard.check_url(hop)
                self._pages[key] = known
                return known
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
            self._pages[key] = page
            return page

    def fetch_url(
        self,
        url: str,
        policy: WebPolicy,
        question_id: str | None = None,
        *,
        search: dict[str, Any] | None = None,
        tool: str = "fetch_url",
    ) -> FetchResult:
        """Fetch one allowed page (or take it from the cache), extract its readable text, register it; with the
        search result that named it as provenance (`search`, or the result this run's web_search returned for the
        URL), and that result's own text as the snapshot when its provider sent the page's text."""
        hit = self.found(url)
        if search is None and hit is not None:
            search = {"query": hit.query, "provider": hit.provider, "rank": hit.rank}
        if hit is not None and hit.work is not None:
            return self.fetch_paper(hit, policy, question_id, search=search, tool=tool)
        if hit is not None and hit.text and hit.text.strip():
            policy.check(url)  # no request is made, but the question's domain policy still decides
            page = provider_page(hit)
            return self.register_page(
                page,
                question_id=question_id,
                search=search,
                text_from=FROM_PROVIDER,
                tool=tool,
                official=policy.primary_domains,
            )
        page = self.fetch_page(url, policy)
        return self.register_page(
            page, question_id=question_id, search=search, tool=tool, official=policy.primary_domains
        )

    def fetch_paper(
        self,
        hit: WebHit,
        policy: WebPolicy,
        question_id: str | None = None,
        *,
        search: dict[str, Any] | None = None,
        tool: str = "fetch_url",
    ) -> FetchResult:
        """Register a literature result: its open-access full text (the PDF fetched by `fetch_page`, every guard
        applied) when it can be read, else the abstract its provider returned (`abstract_only`); a paper with
        neither is refused with both reasons."""
        policy.check(hit.url)
        assert hit.work is not None
        work = {**hit.work, "provider": hit.provider, "query": hit.query}
        why_not = "no open-access full text is listed"
        if hit.full_text_url:
            try:
                page = self.fetch_page(hit.full_text_url, policy)
                return self.register_page(
                    page,
                    question_id=question_id,
                    search=search,
                    tool=tool,
                    official=policy.primary_domains,
                    work={**work, "abstract_only": False},
                    title=hit.title,
                )
            except WebRefused as exc:
                why_not = f"its full text {hit.full_text_url} was not read ({exc.reason})"
        if not (hit.text and hit.text.strip()):
            raise WebRefused(hit.url, f"no abstract, and {why_not}")
        return self.register_page(
            provider_page(hit),
            question_id=question_id,
            search=search,
            text_from=FROM_PROVIDER,
            tool=tool,
            official=policy.primary_domains,
            work={**work, "abstract_only": True},
        )

    def search_and_fetch(
        self,
        query: str,
        k: int,
        policy: WebPolicy,
        question_id: str | None = None,
        providers: Sequence[str] | None = None,
    ) -> list[SearchedResult]:
        """`web_search`, then the top min(k, search_pages) allowed results fetched in parallel and registered, in
        rank order: each the source it became, or the one-line reason it did not (a refusal by policy, the
        private-address guard or robots.txt, an HTTP error, a timeout, no readable text). Only a failure of the
        search itself raises."""
        results = self.web_search(query, max(1, min(int(k), self.search_pages)), policy, providers)

        def fetch(result: dict[str, Any]) -> SearchedResult:
            search = {"query": query, "provider": result["provider"], "rank": result["rank"]}
            try:
                page = self.fetch_url(result["url"], policy, question_id, search=search, tool="web_search")
            except WebRefused as exc:
                where = "" if normalize_url(exc.url) == normalize_url(result["url"]) else f" (at {exc.url})"
                return SearchedResult(result["rank"], result["url"], reason=exc.reason + where)
            return SearchedResult(result["rank"], result["url"], page=page)

        if not results:
            return []
        with ThreadPoolExecutor(max_workers=len(results), thread_name_prefix="web-search") as pool:
            return list(pool.map(fetch, results))

    def register_page(
        self,
        page: Page,
        *,
        question_id: str | None = None,
        search: dict[str, Any] | None = None,
        text_from: str = FROM_PAGE,
        tool: str = "fetch_url",
        official: tuple[str, ...] = (),
        work: dict[str, Any] | None = None,
        title: str | None = None,
    ) -> FetchResult:
        """Register a page as a source, with its web provenance (and a paper's `work`, with the title its provider
        gave it rather than the PDF's own). `text_from="provider"` when the text is what a
        search provider returned for the page (Tavily raw content, Exa text) rather than the page itself;
        `official`: the domains the plan marks as primary (a page on one is registered as primary)."""
        final = normalize_url(page.final_url)
        reg = self.registry.register(
            text=page.text,
            title=title or page.title or final,
            url=final,
            tool=tool,
            query=(search or {}).get("query"),
            question_id=question_id,
            retrieved_at=page.fetched_at,
            web=web_provenance(page, search=search, text_from=text_from),
            official=official,
            work=work,
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
            (self.registry.record(reg.source_id) or {}).get("work"),
        )
