"""SearXNG: a self-hosted metasearch instance, queried through its JSON API (`GET {url}/search?q=…&format=json`).

The instance must have the `json` format enabled (`search.formats` in its settings.yml); otherwise it answers
403, which is reported as such. It needs no key; its URL (`--search-url`) is required.
"""

from __future__ import annotations

from harness.contract.search import SEARXNG
from harness.sources.search.base import SEARCH_TIMEOUT, Provider, ProviderInfo, SearchFailed, WebHit


class SearxngSearch(Provider):
    info = ProviderInfo(SEARXNG, module="httpx", pip="'research-harness[web]'", needs_url=True)

    def search(self, query: str, n: int) -> list[WebHit]:
        import httpx

        assert self.settings.url is not None  # needs_url: the preflight refused a searxng without one
        endpoint = self.settings.url.rstrip("/") + "/search"
        try:
            resp = httpx.get(endpoint, params={"q": query, "format": "json"}, timeout=SEARCH_TIMEOUT)
            if resp.status_code == 403:
                raise SearchFailed(
                    f"searxng at {endpoint} refused the JSON format (HTTP 403): enable `json` in its search.formats"
                )
            resp.raise_for_status()
            rows = resp.json().get("results") or []
        except SearchFailed:
            raise
        except (httpx.HTTPError, ValueError, AttributeError) as exc:
            raise self.failed(exc) from None
        return self.hits(query, [(r.get("url", ""), r.get("title", ""), r.get("content", ""), None) for r in rows], n)
