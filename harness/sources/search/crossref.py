"""Crossref through its own client (`habanero`): works matching the query, with their metadata as registered.

Crossref holds metadata, not papers: a work's full text is a PDF link it lists under an open license
(`link` with content type application/pdf, beside a `license` entry), fetched like any page; its abstract (JATS,
when the publisher deposited one) stands in otherwise. A work Crossref marks as retracted (`updated-by` or
`update-to` of type `retraction`) is flagged. No key; research.yaml's `search.providers.crossref.email` joins the
polite pool (`mailto`).
"""

from __future__ import annotations

import re
from html import unescape

from harness.contract.search import CROSSREF
from harness.contract.works import normalize_doi
from harness.sources.search.base import SEARCH_TIMEOUT, Provider, ProviderInfo, WebHit

DEFAULT_URL = "https://api.crossref.org"
RETRACTION = "retraction"
_TAGS = re.compile(r"<[^>]+>")


def _first(values) -> str | None:
    return next((" ".join(str(v).split()) for v in values or [] if v), None)


def _abstract(jats: str | None) -> str:
    """Crossref's JATS abstract as plain text (its `Abstract` heading dropped)."""
    text = " ".join(unescape(_TAGS.sub(" ", jats or "")).split())
    return re.sub(r"^Abstract\s+", "", text)


def retracted(item: dict) -> bool:
    """Does Crossref say this work is retracted (an update of type `retraction` pointing at or from it)?"""
    updates = (item.get("updated-by") or []) + (item.get("update-to") or [])
    return any((u.get("type") or "").lower() == RETRACTION for u in updates)


class CrossrefSearch(Provider):
    info = ProviderInfo(CROSSREF, module="habanero", pip="'research-harness[papers]'")

    def search(self, query: str, n: int) -> list[WebHit]:
        from habanero import Crossref

        client = Crossref(
            base_url=(self.settings.url or DEFAULT_URL).rstrip("/"),
            mailto=self.options.get("email"),
            timeout=int(SEARCH_TIMEOUT),
        )
        try:
            answer = client.works(query=query, limit=max(1, min(n, 100)))
            items = (answer.get("message") or {}).get("items") or []
        except Exception as exc:  # habanero's RequestError, transport errors, a malformed answer
            raise self.failed(exc) from None
        hits: list[WebHit] = []
        for item in items:
            doi = normalize_doi(item.get("DOI"))
            if not doi:
                continue
            hits.append(self._hit(item, doi, query, len(hits) + 1))
            if len(hits) >= n:
                break
        return hits

    def _hit(self, item: dict, doi: str, query: str, rank: int) -> WebHit:
        licenses = [lic.get("URL") for lic in item.get("license") or [] if lic.get("URL")]
        pdf = next(
            (
                link.get("URL")
                for link in item.get("link") or []
                if link.get("URL") and (link.get("content-type") or "").lower() == "application/pdf"
            ),
            None,
        )
        issued = ((item.get("issued") or item.get("published") or {}).get("date-parts") or [[None]])[0]
        authors = []
        for a in item.get("author") or []:
            if a.get("family"):
                authors.append({"family": a["family"], **({"given": a["given"]} if a.get("given") else {})})
            elif a.get("name"):
                authors.append({"literal": a["name"]})
        title = _first(item.get("title")) or ""
        abstract = _abstract(item.get("abstract"))
        url = f"https://doi.org/{doi}"
        work = {
            "doi": doi,
            "title": title,
            "authors": authors,
            "year": issued[0] if issued and isinstance(issued[0], int) else None,
            "venue": _first(item.get("container-title")),
            "open_access": bool(licenses and pdf),
            "license": licenses[0] if licenses else None,
            "url": url,
            "retracted": retracted(item),
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
            full_text_url=pdf if licenses else None,
        )
