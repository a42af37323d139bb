"""arXiv through its own client (the `arxiv` package), reading the Atom feed of its query API.

Every arXiv paper is open access: its PDF (`Result.pdf_url`) is the full text, fetched like any page; the abstract
stands in when the PDF cannot be read. No key. `--search-url` (or `search.providers.arxiv.url`) moves the API's
base, e.g. http://127.0.0.1:PORT/api for a local stand-in (the client then asks `{url}/query?…`).
"""

from __future__ import annotations

import threading
from typing import Any

from harness.contract.search import ARXIV
from harness.contract.works import normalize_arxiv_id, normalize_doi, person
from harness.sources.search.base import Provider, ProviderInfo, WebHit

ABS_URL = "https://arxiv.org/abs/{}"
DELAY_SECONDS = 3.0  # arXiv's terms of use: no more than one request every three seconds


class ArxivSearch(Provider):
    info = ProviderInfo(ARXIV, module="arxiv", pip="'research-harness[papers]'")

    def __init__(self, settings):
        super().__init__(settings)
        self._client = None
        self._lock = threading.Lock()  # one request at a time, spaced by the client's delay, across branches

    def search(self, query: str, n: int) -> list[WebHit]:
        import arxiv

        with self._lock:
            if self._client is None:
                self._client = arxiv.Client(delay_seconds=DELAY_SECONDS, num_retries=1)
                if self.settings.url:
                    self._client.query_url_format = self.settings.url.rstrip("/") + "/query?{}"
            self._client.page_size = max(1, n)
            try:
                results = list(self._client.results(arxiv.Search(query=query, max_results=max(1, n))))
            except Exception as exc:  # arxiv.HTTPError, requests' errors, a malformed feed
                raise self.failed(exc) from None
        hits: list[WebHit] = []
        for result in results[:n]:
            arxiv_id = normalize_arxiv_id(result.get_short_id())
            if not arxiv_id:
                continue
            work: dict[str, Any] = {
                "arxiv_id": arxiv_id,
                "doi": normalize_doi(result.doi),
                "title": " ".join(result.title.split()),
                "authors": [person(a.name) for a in result.authors],
                "year": result.published.year if result.published else None,
                "venue": " ".join((result.journal_ref or "").split()) or None,
                "open_access": True,
                "license": None,
                "url": ABS_URL.format(arxiv_id),
                "retracted": False,
            }
            abstract = " ".join(result.summary.split())
            hits.append(
                WebHit(
                    ABS_URL.format(arxiv_id),
                    work["title"],
                    abstract[:300],
                    len(hits) + 1,
                    self.name,
                    query,
                    abstract or None,
                    work={k: v for k, v in work.items() if v is not None},
                    full_text_url=result.pdf_url,
                )
            )
        return hits
