"""Semantic Scholar through its own client (`semanticscholar`): its Academic Graph paper search.

A paper's full text is its open-access PDF (`openAccessPdf.url`), fetched like any page; its abstract stands in
otherwise. The key is optional (SEMANTIC_SCHOLAR_API_KEY, or the variable `search.providers.semanticscholar.key_env`
names): without one the shared public rate limit applies. Only the first page of results is read (the client's
iterator would fetch more). Semantic Scholar reports no retractions.
"""

from __future__ import annotations

from harness.contract.search import SEMANTIC_SCHOLAR
from harness.contract.works import normalize_arxiv_id, normalize_doi, person
from harness.sources.search.base import SEARCH_TIMEOUT, Provider, ProviderInfo, WebHit

FIELDS = [
    "title",
    "abstract",
    "year",
    "venue",
    "journal",
    "authors",
    "externalIds",
    "isOpenAccess",
    "openAccessPdf",
    "url",
]
MAX_LIMIT = 100  # the API's limit per request


class SemanticScholarSearch(Provider):
    info = ProviderInfo(
        SEMANTIC_SCHOLAR,
        module="semanticscholar",
        pip="'research-harness[papers]'",
        key_env=("SEMANTIC_SCHOLAR_API_KEY",),
        key_optional=True,
    )

    def search(self, query: str, n: int) -> list[WebHit]:
        from semanticscholar import SemanticScholar

        client = SemanticScholar(
            timeout=int(SEARCH_TIMEOUT), api_key=self.api_key, api_url=self.settings.url or None, retry=False
        )
        try:
            papers = client.search_paper(query, limit=max(1, min(n, MAX_LIMIT)), fields=FIELDS).items
        except Exception as exc:  # the client's own exceptions, httpx's, a malformed answer
            raise self.failed(exc) from None
        hits: list[WebHit] = []
        for paper in papers[:n]:
            hit = self._hit(paper.raw_data, query, len(hits) + 1)
            if hit is not None:
                hits.append(hit)
        return hits

    def _hit(self, data: dict, query: str, rank: int) -> WebHit | None:
        ids = data.get("externalIds") or {}
        doi, arxiv = normalize_doi(ids.get("DOI")), normalize_arxiv_id(ids.get("ArXiv"))
        url = (f"https://doi.org/{doi}" if doi else None) or data.get("url")
        if not url:
            return None
        pdf = data.get("openAccessPdf") or {}
        title = " ".join((data.get("title") or "").split())
        abstract = " ".join((data.get("abstract") or "").split())
        venue = (data.get("journal") or {}).get("name") or data.get("venue") or None
        work = {
            "doi": doi,
            "arxiv_id": arxiv,
            "title": title,
            "authors": [person(a["name"]) for a in data.get("authors") or [] if a.get("name")],
            "year": data.get("year"),
            "venue": venue,
            "open_access": bool(data.get("isOpenAccess")),
            "license": pdf.get("license") or None,
            "url": url,
            "retracted": False,
        }
        return WebHit(
            url,
            title,
            abstract[:300],
            rank,
            self.name,
            query,
            abstract or None,
            work={k: v for k, v in work.items() if v is not None},
            full_text_url=pdf.get("url") or None,
        )
