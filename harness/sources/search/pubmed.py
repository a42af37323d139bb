"""PubMed through NCBI's E-utilities (httpx): `esearch` finds the PMIDs for a query, `efetch` their records (XML).

PubMed holds citations and abstracts, not papers: every PubMed source is its abstract (`abstract_only`), with the
article's DOI, PMID, authors, year and journal. A record whose publication types include "Retracted Publication" is
flagged as retracted. No key is needed; research.yaml's `search.providers.pubmed` may name a contact email (sent as
`email` with `tool=research-harness`, as NCBI asks) and the variable of an API key (`key_env`, default NCBI_API_KEY).
`url` moves the E-utilities base (default https://eutils.ncbi.nlm.nih.gov/entrez/eutils).
"""

from __future__ import annotations

from xml.etree import ElementTree

from harness.contract.search import PUBMED
from harness.contract.works import normalize_doi
from harness.sources.search.base import SEARCH_TIMEOUT, Provider, ProviderInfo, WebHit

DEFAULT_URL = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils"
TOOL = "research-harness"
RETRACTED_TYPE = "Retracted Publication"
MAX_RESULTS = 100


def _text(elem) -> str:
    return " ".join("".join(elem.itertext()).split()) if elem is not None else ""


class PubMedSearch(Provider):
    info = ProviderInfo(
        PUBMED, module="httpx", pip="'research-harness[web]'", key_env=("NCBI_API_KEY",), key_optional=True
    )

    def search(self, query: str, n: int) -> list[WebHit]:
        import httpx

        base = (self.settings.url or DEFAULT_URL).rstrip("/")
        common = {"tool": TOOL}
        if self.options.get("email"):
            common["email"] = self.options["email"]
        if self.api_key:
            common["api_key"] = self.api_key
        try:
            found = httpx.get(
                f"{base}/esearch.fcgi",
                params={
                    "db": "pubmed",
                    "term": query,
                    "retmax": max(1, min(n, MAX_RESULTS)),
                    "retmode": "json",
                    **common,
                },
                timeout=SEARCH_TIMEOUT,
            )
            found.raise_for_status()
            ids = (found.json().get("esearchresult") or {}).get("idlist") or []
            if not ids:
                return []
            records = httpx.get(
                f"{base}/efetch.fcgi",
                params={"db": "pubmed", "id": ",".join(ids[:n]), "retmode": "xml", **common},
                timeout=SEARCH_TIMEOUT,
            )
            records.raise_for_status()
            root = ElementTree.fromstring(records.content)
        except (httpx.HTTPError, ValueError, AttributeError, ElementTree.ParseError) as exc:
            raise self.failed(exc) from None
        by_pmid = {_text(a.find("MedlineCitation/PMID")): a for a in root.iter("PubmedArticle")}
        hits: list[WebHit] = []
        for pmid in ids[:n]:  # in esearch's order: its relevance ranking
            article = by_pmid.get(pmid)
            if article is not None:
                hits.append(self._hit(article, pmid, query, len(hits) + 1))
        return hits

    def _hit(self, article, pmid: str, query: str, rank: int) -> WebHit:
        cite = article.find("MedlineCitation/Article")
        title = _text(cite.find("ArticleTitle")) if cite is not None else ""
        abstract = " ".join(_text(p) for p in article.iterfind("MedlineCitation/Article/Abstract/AbstractText"))
        authors = []
        for a in article.iterfind("MedlineCitation/Article/AuthorList/Author"):
            family, given, collective = (
                _text(a.find("LastName")),
                _text(a.find("ForeName")),
                _text(a.find("CollectiveName")),
            )
            if family:
                authors.append({"family": family, **({"given": given} if given else {})})
            elif collective:
                authors.append({"literal": collective})
        year = _text(article.find("MedlineCitation/Article/Journal/JournalIssue/PubDate/Year"))
        doi = next(
            (
                normalize_doi(_text(i))
                for i in article.iterfind("PubmedData/ArticleIdList/ArticleId")
                if i.get("IdType") == "doi"
            ),
            None,
        )
        types = {_text(t) for t in article.iterfind("MedlineCitation/Article/PublicationTypeList/PublicationType")}
        url = f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/"
        work = {
            "doi": doi,
            "pmid": pmid,
            "title": title,
            "authors": authors,
            "year": int(year) if year.isdigit() else None,
            "venue": _text(article.find("MedlineCitation/Article/Journal/Title")) or None,
            "open_access": False,
            "url": url,
            "retracted": RETRACTED_TYPE in types,
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
        )
