"""What every web search provider hands back, and how one is described to the preflight.

A provider only finds pages: it turns a query into ranked `WebHit`s. Nothing it returns is
evidence; a hit becomes a source only when `WebTools.fetch_url` registers it through the
`SourceRegistry` (with the hit's query, provider and rank as provenance).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import ClassVar, Protocol

from harness.contract.search import DEFAULT_SEARCH_PROVIDER, SearchProviderName
from harness.errors import HarnessError

SEARCH_TIMEOUT = 20.0  # seconds for one provider call


class SearchFailed(HarnessError):
    """The provider's call failed (HTTP error, timeout, malformed answer); the message names the provider."""


@dataclass(frozen=True)
class WebHit:
    """One search result, as found: not yet a source."""

    url: str
    title: str
    snippet: str
    rank: int  # 1-based position in the provider's answer
    provider: SearchProviderName
    query: str
    text: str | None = None  # the page's text, when the provider returns it (Tavily raw content, Exa text)
    # a literature provider's paper: its scholarly identity (the source record's `work`, without the provenance
    # the registration adds) and where its open-access full text is, if anywhere; `text` is then its abstract
    work: dict | None = None
    full_text_url: str | None = None


@dataclass(frozen=True)
class SearchSettings:
    """The run's choice of provider (`--search`, `search:` in research.yaml) and its endpoint override."""

    provider: SearchProviderName = DEFAULT_SEARCH_PROVIDER
    url: str | None = None  # `--search-url`: the provider's endpoint (required for searxng)
    model: str | None = None  # gemini: the model that runs the Google Search tool
    also: tuple[SearchProviderName, ...] = ()  # more providers searched beside `provider` (`--search arxiv,openalex`)
    # research.yaml `search.providers`: per provider {url, email, key_env}; `url` above is for `provider` alone
    options: dict[str, dict[str, str]] = field(default_factory=dict)

    @property
    def names(self) -> tuple[SearchProviderName, ...]:
        return (self.provider, *self.also)

    def only(self, name: SearchProviderName) -> SearchSettings:
        """The settings of one of the providers: its own endpoint (`options[name].url`, or `url` when it is the
        only provider), its own options."""
        own = self.options.get(name, {})
        url = own.get("url") or (self.url if not self.also else None)
        return SearchSettings(name, url, self.model, (), {name: own} if own else {})


class SearchProvider(Protocol):
    @property
    def name(self) -> str:
        """The provider's name (`SearchProviderName`), or several joined by commas (`Combined`)."""
        ...

    def search(self, query: str, n: int) -> list[WebHit]:
        """Up to n hits for `query`, best first; SearchFailed when the provider fails."""
        ...


@dataclass(frozen=True)
class ProviderInfo:
    """What a provider needs before any work: its package, its key and whether it needs an endpoint."""

    name: SearchProviderName
    module: str  # the Python package the provider's client imports
    pip: str  # what to install for it
    key_env: tuple[str, ...] = ()  # environment variables holding its API key, first one preferred
    needs_url: bool = False  # searxng: the user's own instance
    takes_url: bool = True  # ddgs has no endpoint to override
    key_optional: bool = False  # a key raises the provider's limits but is not needed (OpenAlex)
    notes: tuple[str, ...] = field(default_factory=tuple)

    def key(self, key_env: str | None = None) -> str | None:
        """The key from `key_env` (research.yaml names the variable, never the key) or the provider's own."""
        names = (key_env, *self.key_env) if key_env else self.key_env
        return next((os.environ[v] for v in names if os.environ.get(v)), None)


class Provider:
    """Shared by the provider classes: the settings, the key, and hits numbered from 1."""

    info: ClassVar[ProviderInfo]

    def __init__(self, settings: SearchSettings):
        self.settings = settings
        self.options = settings.options.get(self.info.name, {})  # research.yaml search.providers.<name>
        self.api_key = self.info.key(self.options.get("key_env"))

    @property
    def name(self) -> SearchProviderName:
        return self.info.name

    def search(self, query: str, n: int) -> list[WebHit]:
        """Up to n hits for `query`, best first (`SearchProvider`): each provider class its own."""
        raise NotImplementedError

    def hits(self, query: str, rows: list[tuple[str, str, str, str | None]], n: int) -> list[WebHit]:
        """(url, title, snippet, text) rows → WebHits ranked 1..n in the provider's order; rows without a URL are
        dropped."""
        out: list[WebHit] = []
        for url, title, snippet, text in rows:
            if not url:
                continue
            out.append(WebHit(url, title or "", snippet or "", len(out) + 1, self.name, query, text or None))
            if len(out) >= n:
                break
        return out

    def failed(self, exc: Exception) -> SearchFailed:
        return SearchFailed(f"{self.name} search failed ({type(exc).__name__}: {exc})")
