"""ddgs: DuckDuckGo and friends through the `ddgs` metasearch library. Free and keyless, so it is the default;
it scrapes public result pages, so it is rate-limited and has no endpoint to point elsewhere."""

from __future__ import annotations

from harness.contract.search import DDGS
from harness.sources.search.base import Provider, ProviderInfo, WebHit


class DdgsSearch(Provider):
    info = ProviderInfo(DDGS, module="ddgs", pip="'research-harness[web]'", takes_url=False)

    def search(self, query: str, n: int) -> list[WebHit]:
        from ddgs import DDGS as Client

        try:
            rows = list(Client().text(query, max_results=n) or [])
        except Exception as exc:  # the library raises its own exceptions for rate limits and timeouts
            raise self.failed(exc) from None
        return self.hits(query, [(r.get("href", ""), r.get("title", ""), r.get("body", ""), None) for r in rows], n)
