"""Web search providers behind one interface: a query in, ranked `WebHit`s out.

One module per provider (ddgs, tavily, exa, brave, searxng, gemini; the literature services arxiv, openalex,
crossref, semanticscholar and pubmed, whose hits carry a paper's `work`), each using the provider's own
client library where a well-kept one exists and httpx otherwise. `preflight` names, in one line and
before any work, what a configured provider still lacks (its package, its key, its endpoint);
`make_provider` builds it (several at once as one `Combined` provider: `--search arxiv,openalex`). A hit is never evidence: `WebTools.fetch_url` registers the page.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from harness.contract.search import SEARCH_PROVIDERS, SearchProviderName
from harness.errors import UsageError, module_installed
from harness.sources.search.arxiv import ArxivSearch
from harness.sources.search.base import Provider, ProviderInfo, SearchFailed, SearchProvider, SearchSettings, WebHit
from harness.sources.search.brave import BraveSearch
from harness.sources.search.combined import Combined
from harness.sources.search.crossref import CrossrefSearch
from harness.sources.search.ddgs import DdgsSearch
from harness.sources.search.exa import ExaSearch
from harness.sources.search.gemini import GeminiSearch
from harness.sources.search.openalex import OpenAlexSearch
from harness.sources.search.pubmed import PubMedSearch
from harness.sources.search.searxng import SearxngSearch
from harness.sources.search.semanticscholar import SemanticScholarSearch
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

PROVIDERS: dict[SearchProviderName, type[Provider]] = {
    cls.info.name: cls
    for cls in (
        DdgsSearch,
        TavilySearch,
        ExaSearch,
        BraveSearch,
        SearxngSearch,
        GeminiSearch,
        ArxivSearch,
        OpenAlexSearch,
        CrossrefSearch,
        SemanticScholarSearch,
        PubMedSearch,
    )
}
assert tuple(PROVIDERS) == SEARCH_PROVIDERS, "one provider class per name in harness/contract/search.py"


def preflight(settings: SearchSettings) -> None:
    """UsageError (one line, naming the flag or variable) when a provider cannot work: unknown, named twice, its
    package missing, its key unset, its endpoint missing or malformed."""
    if len(set(settings.names)) != len(settings.names):
        raise UsageError(f"--search {','.join(settings.names)}: a provider is named twice")
    if settings.also and settings.url is not None:
        raise UsageError("--search-url: several providers are searched; set each one's url in search.providers")
    for name in settings.names:
        _preflight_one(settings.only(name) if name in PROVIDERS else SearchSettings(name))


def _preflight_one(settings: SearchSettings) -> None:
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
    key_env = settings.options.get(info.name, {}).get("key_env")
    if key_env and info.key(key_env) is None:
        raise UsageError(f"research.yaml search.providers.{info.name}.key_env: {key_env} is not set")
    if info.key_env and not info.key_optional and info.key() is None:
        raise UsageError(f"--search {info.name}: set {' or '.join(info.key_env)} (the provider's API key)")


def make_provider(settings: SearchSettings) -> SearchProvider:
    """The configured provider, after its preflight."""
    preflight(settings)
    if settings.also:
        return Combined([PROVIDERS[name](settings.only(name)) for name in settings.names])
    return PROVIDERS[settings.provider](settings.only(settings.provider))
