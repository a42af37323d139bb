"""OpenAlex through its own client (`pyalex`): works matching the query, with their open-access location.

A work's full text is its best open-access location's PDF (`best_oa_location.pdf_url`), fetched like any page;
its abstract (rebuilt by pyalex from OpenAlex's inverted index) stands in otherwise. `is_retracted` is kept. No key
is needed; research.yaml's `search.providers.openalex` may name a contact email (the polite pool, sent as `From`)
and the variable of an API key (`key_env`). The client's configuration is global to the process, so each search
sets it under one lock. pyalex 0.21 builds its request URLs on api.openalex.org whatever `config.openalex_url`
says (it reads that only for n-grams), so `--search-url` moves them with a `Works` whose `url` is rebased there.
"""

from __future__ import annotations

import threading
from urllib.parse import urlsplit, urlunsplit

from harness.contract.search import OPENALEX
from harness.contract.works import normalize_arxiv_id, normalize_doi, person
from harness.sources.search.base import Provider, ProviderInfo, WebHit

DEFAULT_URL = "https://api.openalex.org"
_CONFIG_LOCK = threading.Lock()  # pyalex.config is one dict for the whole process


def _works(pyalex, base: str | None):
    """pyalex's `Works` endpoint, its requests sent to `base` when one is configured."""
    if not base:
        return pyalex.Works()
    root = urlsplit(base.rstrip("/"))

    class Works(pyalex.Works):  # the class name is the endpoint's path to pyalex
        @property
        def url(self):
            own = urlsplit(super().url)
            return urlunsplit((root.scheme, root.netloc, root.path + own.path, own.query, ""))

    return Works()


class OpenAlexSearch(Provider):
    info = ProviderInfo(
        OPENALEX, module="pyalex", pip="'research-harness[papers]'", key_env=("OPENALEX_API_KEY",), key_optional=True
    )

    def search(self, query: str, n: int) -> list[WebHit]:
        import pyalex

        with _CONFIG_LOCK:
            pyalex.config.openalex_url = (self.settings.url or DEFAULT_URL).rstrip("/")
            pyalex.config.email = self.options.get("email")
            pyalex.config.api_key = self.api_key
            pyalex.config.max_retries = 0
            try:
                works = _works(pyalex, self.settings.url).search(query).get(per_page=max(1, min(n, 200)))
            except Exception as exc:  # requests' errors, a non-JSON answer, an API error
                raise self.failed(exc) from None
        hits: list[WebHit] = []
        for w in works[:n]:
            hit = self._hit(w, query, len(hits) + 1)
            if hit is not None:
                hits.append(hit)
        return hits

    def _hit(self, w, query: str, rank: int) -> WebHit | None:
        doi = normalize_doi(w.get("doi"))
        best = w.get("best_oa_location") or {}
        primary = w.get("primary_location") or {}
        landing = (f"https://doi.org/{doi}" if doi else None) or primary.get("landing_page_url") or w.get("id")
        if not landing:
            return None
        try:
            abstract = " ".join((w["abstract"] or "").split())
        except (KeyError, TypeError, AttributeError):
            abstract = ""
        oa = w.get("open_access") or {}
        venue = ((primary.get("source") or {}).get("display_name")) or None
        arxiv = None
        for loc in w.get("locations") or []:
            page = loc.get("landing_page_url") or ""
            if "arxiv.org/abs/" in page:
                arxiv = normalize_arxiv_id(page)
        title = " ".join((w.get("display_name") or w.get("title") or "").split())
        work = {
            "doi": doi,
            "arxiv_id": arxiv,
            "openalex_id": w.get("id"),
            "title": title,
            "authors": [
                person((a.get("author") or {}).get("display_name") or "")
                for a in w.get("authorships") or []
                if (a.get("author") or {}).get("display_name")
            ],
            "year": w.get("publication_year"),
            "venue": venue,
            "open_access": bool(oa.get("is_oa")),
            "oa_status": oa.get("oa_status"),
            "license": best.get("license"),
            "url": landing,
            "retracted": bool(w.get("is_retracted")),
        }
        return WebHit(
            landing,
            title,
            abstract[:300],
            rank,
            self.name,
            query,
            abstract or None,
            work={k: v for k, v in work.items() if v is not None},
            full_text_url=best.get("pdf_url") or None,
        )
