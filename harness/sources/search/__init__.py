"""Web search providers behind one interface: a query in, ranked `WebHit`s out.

One module per provider (ddgs, tavily, exa, brave, searxng, gemini), each using the provider's own
client library where a well-kept one exists and httpx otherwise. `preflight` names, in one line and
before any work, what a configured provider still lacks (its package, its key, its endpoint);
`make_provider` builds it. A hit is never evidence: `WebTools.fetch_url` registers the page.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from harness.contract.search import SEARCH_PROVIDERS, SearchProviderName
from harness.errors import UsageError, module_installed
from harness.sources.search.base import ProviderInfo, SearchFailed, SearchProvider, SearchSettings, WebHit
from harness.sources.search.brave import BraveSearch
from harness.sources.search.ddgs import DdgsSearch
from harness.sources.search.exa import ExaSearch
from harness.sources.search.gemini import GeminiSearch
from harness.sources.search.searxng import SearxngSearch
from harness.sources.search.tavily import TavilySearch

__all__ = [
    "PROVIDERS",
    "ProviderInfo",
    "SearchFailed",
    "SearchProvider",
    "SearchSettings",
    "WebHit",
    "make_provider",
    "preflight",
]

PROVIDERS: dict[SearchProviderName, type] = {
    cls.info.name: cls for cls in (DdgsSearch, TavilySearch, ExaSearch, BraveSearch, SearxngSearch, GeminiSearch)
}
assert tuple(PROVIDERS) == SEARCH_PROVIDERS, "one provider class per name in harness/contract/search.py"


def preflight(settings: SearchSettings) -> None:
    """UsageError (one line, naming the flag or variable) when the provider cannot work: unknown, its package
    missing, its key unset, its endpoint missing or malformed."""
    if settings.provider not in PROVIDERS:
        raise UsageError(f"--search {settings.provider}: unknown provider (choose {', '.join(SEARCH_PROVIDERS)})")
    info: ProviderInfo = PROVIDERS[settings.provider].info
    if not module_installed(info.module):
        raise UsageError(f"--search {info.name}: its client is not installed: pip install {info.pip}")
    if settings.url is not None:
        if not info.takes_url:
            raise UsageError(f"--search-url: {info.name} has no endpoint to set (it is a library, not an API)")
        parts = urlsplit(settings.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise UsageError(f"--search-url {settings.url}: expected an http(s) URL such as http://127.0.0.1:8888")
    elif info.needs_url:
        raise UsageError(
            f"--search {info.name}: needs --search-url (or search.url in research.yaml), e.g. http://127.0.0.1:8888"
        )
    if info.key_env and info.key() is None:
        raise UsageError(f"--search {info.name}: set {' or '.join(info.key_env)} (the provider's API key)")


def make_provider(settings: SearchSettings) -> SearchProvider:
    """The configured provider, after its preflight."""
    preflight(settings)
    return PROVIDERS[settings.provider](settings)
