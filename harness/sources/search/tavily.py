"""Tavily through its own client (`tavily-python`), asking for each result's raw page text.

Tavily returns the page's text with the result (`raw_content`); that text may stand as the snapshot without
fetching the page, and the source record then says so (`text_from: provider`). Key: TAVILY_API_KEY.
"""

from __future__ import annotations

from harness.contract.search import TAVILY
from harness.sources.search.base import SEARCH_TIMEOUT, Provider, ProviderInfo, WebHit

MAX_RESULTS = 20  # the API's limit per request


class TavilySearch(Provider):
    info = ProviderInfo(TAVILY, module="tavily", pip="'research-harness[tavily]'", key_env=("TAVILY_API_KEY",))

    def search(self, query: str, n: int) -> list[WebHit]:
        from tavily import TavilyClient

        client = TavilyClient(api_key=self.api_key, api_base_url=self.settings.url)
        try:
            answer = client.search(
                query, max_results=min(n, MAX_RESULTS), include_raw_content="text", timeout=SEARCH_TIMEOUT
            )
            rows = answer.get("results") or []
        except Exception as exc:  # the client raises its own errors (bad key, usage limit, timeout)
            raise self.failed(exc) from None
        return self.hits(
            query, [(r.get("url", ""), r.get("title", ""), r.get("content", ""), r.get("raw_content")) for r in rows], n
        )
