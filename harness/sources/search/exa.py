"""Exa through its own client (`exa-py`), asking for each result's page text.

Exa returns the page's text with the result; that text may stand as the snapshot without fetching the page,
and the source record then says so (`text_from: provider`). Key: EXA_API_KEY.
"""

from __future__ import annotations

from harness.contract.search import EXA
from harness.sources.search.base import SEARCH_TIMEOUT, Provider, ProviderInfo, WebHit

EXA_API = "https://api.exa.ai"
TEXT_CHARS = 100_000  # of each page's text Exa is asked for
SNIPPET_CHARS = 300  # of the text shown as the snippet when Exa sends no highlights


class ExaSearch(Provider):
    info = ProviderInfo(EXA, module="exa_py", pip="'research-harness[exa]'", key_env=("EXA_API_KEY",))

    def search(self, query: str, n: int) -> list[WebHit]:
        from exa_py import Exa

        client = Exa(api_key=self.api_key, base_url=(self.settings.url or EXA_API).rstrip("/"))
        try:
            answer = client.search(
                query, num_results=n, contents={"text": {"max_characters": TEXT_CHARS}}, timeout=SEARCH_TIMEOUT
            )
        except Exception as exc:  # the client raises ValueError for a non-200 answer, its own timeout error
            raise self.failed(exc) from None
        rows = []
        for r in answer.results:
            text = getattr(r, "text", None) or ""
            snippet = " ".join(getattr(r, "highlights", None) or []) or " ".join(text[:SNIPPET_CHARS].split())
            rows.append((r.url, r.title or "", snippet, text))
        return self.hits(query, rows, n)
