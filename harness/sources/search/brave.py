"""Brave Search through its Web Search API (`GET {url}/web/search`, key in the `X-Subscription-Token` header).

Brave publishes no Python client of its own, so this is plain httpx. The key is read from BRAVE_API_KEY (the
name Brave's own tools use), or BRAVE_SEARCH_API_KEY (LangChain's).
"""

from __future__ import annotations

from harness.contract.search import BRAVE
from harness.sources.search.base import SEARCH_TIMEOUT, Provider, ProviderInfo, WebHit

BRAVE_API = "https://api.search.brave.com/res/v1"
MAX_COUNT = 20  # the API's limit on results per request


class BraveSearch(Provider):
    info = ProviderInfo(
        BRAVE, module="httpx", pip="'research-harness[web]'", key_env=("BRAVE_API_KEY", "BRAVE_SEARCH_API_KEY")
    )

    def search(self, query: str, n: int) -> list[WebHit]:
        import httpx

        endpoint = (self.settings.url or BRAVE_API).rstrip("/") + "/web/search"
        headers = {"Accept": "application/json", "X-Subscription-Token": self.api_key or ""}
        try:
            resp = httpx.get(
                endpoint, params={"q": query, "count": min(n, MAX_COUNT)}, headers=headers, timeout=SEARCH_TIMEOUT
            )
            resp.raise_for_status()
            rows = (resp.json().get("web") or {}).get("results") or []
        except (httpx.HTTPError, ValueError, AttributeError) as exc:
            raise self.failed(exc) from None
        return self.hits(
            query, [(r.get("url", ""), r.get("title", ""), r.get("description", ""), None) for r in rows], n
        )
