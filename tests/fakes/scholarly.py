"""A local literature on 127.0.0.1: stand-ins for arXiv's query API (Atom), OpenAlex's `/works` and Crossref's
`/works` (JSON), answering the way the real services do, and the open-access PDFs they name.

`literature()` is a `LocalSite` (fakes/sites.py) with every API under its own prefix (`/arxiv/query`,
`/openalex/works`, `/crossref/works`, `/s2/graph/v1/paper/search`), so each provider's client is pointed at `site.url("/arxiv")` etc. The papers:

- ELECTION: on arXiv (its PDF served here) and in OpenAlex (under a journal DOI, with an arXiv location and the
  same PDF as its best open-access copy): one paper found by two providers;
- TIMEOUTS: in OpenAlex and Crossref, closed access, an abstract only;
- RETRACTED: in OpenAlex (`is_retracted`) and Crossref (an `updated-by` retraction notice).

Semantic Scholar lists ELECTION (its arXiv id and PDF) and TIMEOUTS (no open-access copy). Every API lists its
papers for any query, and records the queries and headers it was sent.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from xml.sax.saxutils import escape

from fakes.documents import minimal_pdf
from fakes.sites import LocalSite, Reply


@dataclass(frozen=True)
class Paper:
    title: str
    authors: tuple[str, ...]
    year: int
    abstract: str
    doi: str | None = None
    arxiv_id: str | None = None
    venue: str | None = None
    pdf: tuple[str, ...] = ()  # the full text's lines, served as /pdf/<key>.pdf when present
    key: str = ""
    retracted: bool = False
    license: str | None = None


ELECTION = Paper(
    "Leader Election in Replicated State Machines",
    ("Ada Lovelace", "Alan Turing"),
    2024,
    "We study how a replicated state machine chooses its leader. A follower that hears no heartbeat before its "
    "election timeout becomes a candidate and asks the other servers for their votes.",
    doi="10.5555/rsm.2024.7",
    arxiv_id="2401.00001",
    venue="Journal of Replicated Systems",
    pdf=(
        "Leader Election in Replicated State Machines",
        "A candidate becomes the leader once a majority of the servers have granted it their vote in its term.",
        "Randomized election timeouts make split votes rare in practice.",
    ),
    key="election",
    license="cc-by",
)
TIMEOUTS = Paper(
    "Randomized Timeouts Against Split Votes",
    ("Grace Hopper",),
    2021,
    "Randomized election timeouts spread the candidates out in time, so that a single server usually wins the "
    "election before any other server times out.",
    doi="10.5555/timeouts.2021.3",
    venue="Proceedings of the Symposium on Consensus",
    key="timeouts",
)
RETRACTED = Paper(
    "Leader Election by Lottery in Consensus Protocols",
    ("Mallory Smith",),
    2019,
    "We claim that consensus protocols elect their leader by a lottery among the servers of the cluster.",
    doi="10.5555/lottery.2019.1",
    venue="Journal of Doubtful Results",
    key="lottery",
    retracted=True,
)
ARXIV_PAPERS = (ELECTION,)
OPENALEX_PAPERS = (ELECTION, TIMEOUTS, RETRACTED)
CROSSREF_PAPERS = (TIMEOUTS, RETRACTED)
S2_PAPERS = (ELECTION, TIMEOUTS)
PUBMED_PAPERS = (TIMEOUTS, RETRACTED)  # PMIDs 1001, 1002


@dataclass
class Literature:
    site: LocalSite
    requests: dict[str, list[str]] = field(default_factory=dict)  # API -> the request paths (with their queries)

    def api(self, name: str) -> str:
        return self.site.url("/" + name)

    def pdf_url(self, paper: Paper) -> str:
        return self.site.url(f"/pdf/{paper.key}.pdf")

    def __enter__(self) -> Literature:
        self.site.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self.site.__exit__(*exc)


def arxiv_feed(papers, base: str) -> bytes:
    entries = []
    for p in papers:
        authors = "".join(f"<author><name>{escape(a)}</name></author>" for a in p.authors)
        pdf = f'<link title="pdf" href="{base}/pdf/{p.key}.pdf" rel="related" type="application/pdf"/>' if p.pdf else ""
        entries.append(
            f"<entry><id>http://arxiv.org/abs/{p.arxiv_id}v2</id>"
            f"<updated>{p.year}-02-01T00:00:00Z</updated><published>{p.year}-01-15T00:00:00Z</published>"
            f"<title>{escape(p.title)}</title><summary>  {escape(p.abstract)}\n</summary>{authors}"
            f"{f'<arxiv:doi>{p.doi}</arxiv:doi>' if p.doi else ''}"
            f'<link href="http://arxiv.org/abs/{p.arxiv_id}v2" rel="alternate" type="text/html"/>{pdf}'
            f'<arxiv:primary_category term="cs.DC"/><category term="cs.DC"/></entry>'
        )
    return (
        '<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom" '
        'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" xmlns:arxiv="http://arxiv.org/schemas/atom">'
        f"<title>arXiv Query</title><id>http://arxiv.org/api/x</id><updated>2024-01-01T00:00:00Z</updated>"
        f"<opensearch:totalResults>{len(papers)}</opensearch:totalResults>"
        f"<opensearch:startIndex>0</opensearch:startIndex><opensearch:itemsPerPage>{len(papers)}</opensearch:itemsPerPage>"
        + "".join(entries)
        + "</feed>"
    ).encode()


def _inverted(text: str) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for i, word in enumerate(text.split()):
        out.setdefault(word, []).append(i)
    return out


def openalex_work(p: Paper, base: str) -> dict:
    locations = [{"landing_page_url": f"https://doi.org/{p.doi}", "source": {"display_name": p.venue}}]
    if p.arxiv_id:
        locations.append(
            {"landing_page_url": f"https://arxiv.org/abs/{p.arxiv_id}", "source": {"display_name": "arXiv"}}
        )
    best = {"pdf_url": f"{base}/pdf/{p.key}.pdf", "license": p.license} if p.pdf else None
    return {
        "id": f"https://openalex.org/W{abs(hash(p.key)) % 10**9}",
        "doi": f"https://doi.org/{p.doi}",
        "display_name": p.title,
        "title": p.title,
        "publication_year": p.year,
        "authorships": [{"author": {"display_name": a}} for a in p.authors],
        "primary_location": locations[0],
        "locations": locations,
        "best_oa_location": best,
        "open_access": {"is_oa": bool(p.pdf), "oa_status": "green" if p.pdf else "closed"},
        "is_retracted": p.retracted,
        "abstract_inverted_index": _inverted(p.abstract),
    }


def crossref_item(p: Paper, base: str) -> dict:
    given_family = [a.rsplit(" ", 1) for a in p.authors]
    item = {
        "DOI": p.doi.upper(),
        "title": [p.title],
        "author": [{"given": g, "family": f} for g, f in given_family],
        "issued": {"date-parts": [[p.year, 3]]},
        "container-title": [p.venue],
        "abstract": f"<jats:p><jats:title>Abstract</jats:title>{escape(p.abstract)}</jats:p>",
        "type": "journal-article",
    }
    if p.pdf:  # an open-access copy: a PDF link listed with a license
        item["license"] = [{"URL": "https://creativecommons.org/licenses/by/4.0/", "content-version": "vor"}]
        item["link"] = [{"URL": f"{base}/pdf/{p.key}.pdf", "content-type": "application/pdf"}]
    if p.retracted:
        item["updated-by"] = [{"DOI": "10.5555/notice.2020", "type": "retraction", "label": "Retraction"}]
    return item


def s2_paper(p: Paper, base: str) -> dict:
    ids = {"DOI": p.doi, **({"ArXiv": p.arxiv_id} if p.arxiv_id else {})}
    return {
        "paperId": f"{abs(hash(p.key)) % 10**12:040x}"[:40],
        "externalIds": ids,
        "url": f"https://www.semanticscholar.org/paper/{p.key}",
        "title": p.title,
        "abstract": p.abstract,
        "venue": p.venue,
        "year": p.year,
        "journal": {"name": p.venue},
        "isOpenAccess": bool(p.pdf),
        "openAccessPdf": {"url": f"{base}/pdf/{p.key}.pdf", "status": "GREEN", "license": p.license} if p.pdf else None,
        "authors": [{"authorId": str(i), "name": a} for i, a in enumerate(p.authors)],
    }


def pubmed_xml(papers) -> bytes:
    articles = []
    for i, p in enumerate(papers):
        authors = "".join(
            f"<Author><LastName>{escape(a.rsplit(' ', 1)[1])}</LastName><ForeName>{escape(a.rsplit(' ', 1)[0])}</ForeName></Author>"
            for a in p.authors
        )
        types = "<PublicationType>Journal Article</PublicationType>" + (
            "<PublicationType>Retracted Publication</PublicationType>" if p.retracted else ""
        )
        articles.append(
            f'<PubmedArticle><MedlineCitation><PMID Version="1">{1001 + i}</PMID><Article>'
            f"<Journal><JournalIssue><PubDate><Year>{p.year}</Year></PubDate></JournalIssue>"
            f"<Title>{escape(p.venue)}</Title></Journal><ArticleTitle>{escape(p.title)}</ArticleTitle>"
            f"<Abstract><AbstractText>{escape(p.abstract)}</AbstractText></Abstract>"
            f"<AuthorList>{authors}</AuthorList><PublicationTypeList>{types}</PublicationTypeList></Article>"
            f'</MedlineCitation><PubmedData><ArticleIdList><ArticleId IdType="pubmed">{1001 + i}</ArticleId>'
            f'<ArticleId IdType="doi">{p.doi}</ArticleId></ArticleIdList></PubmedData></PubmedArticle>'
        )
    return ('<?xml version="1.0"?><PubmedArticleSet>' + "".join(articles) + "</PubmedArticleSet>").encode()


def literature(
    arxiv=ARXIV_PAPERS,
    openalex=OPENALEX_PAPERS,
    crossref=CROSSREF_PAPERS,
    s2=S2_PAPERS,
    pubmed=PUBMED_PAPERS,
    *,
    pdf_reply: Reply | None = None,
) -> Literature:
    """The three APIs and the PDFs on one local site (not started: use it as a context manager)."""
    site = LocalSite()
    lit = Literature(site)

    def logged(name, body_of):
        def route(path: str) -> Reply:
            lit.requests.setdefault(name, []).append(path)
            return body_of()

        return route

    site.routes["/arxiv/query"] = logged(
        "arxiv", lambda: Reply(200, "application/atom+xml", arxiv_feed(arxiv, site.base))
    )
    site.routes["/openalex/works"] = logged(
        "openalex",
        lambda: Reply(
            200,
            "application/json",
            json.dumps(
                {
                    "meta": {"count": len(openalex), "page": 1, "per_page": 25},
                    "results": [openalex_work(p, site.base) for p in openalex],
                }
            ).encode(),
        ),
    )
    site.routes["/crossref/works"] = logged(
        "crossref",
        lambda: Reply(
            200,
            "application/json",
            json.dumps(
                {
                    "status": "ok",
                    "message-type": "work-list",
                    "message": {
                        "total-results": len(crossref),
                        "items": [crossref_item(p, site.base) for p in crossref],
                    },
                }
            ).encode(),
        ),
    )
    site.routes["/s2/graph/v1/paper/search"] = logged(
        "s2",
        lambda: Reply(
            200,
            "application/json",
            json.dumps({"total": len(s2), "offset": 0, "data": [s2_paper(p, site.base) for p in s2]}).encode(),
        ),
    )
    pmids = [str(1001 + i) for i in range(len(pubmed))]
    site.routes["/pubmed/esearch.fcgi"] = logged(
        "pubmed",
        lambda: Reply(
            200, "application/json", json.dumps({"esearchresult": {"count": str(len(pmids)), "idlist": pmids}}).encode()
        ),
    )
    site.routes["/pubmed/efetch.fcgi"] = logged("pubmed", lambda: Reply(200, "text/xml", pubmed_xml(pubmed)))
    for p in {*arxiv, *openalex, *crossref, *s2}:
        if p.pdf:
            site.routes[f"/pdf/{p.key}.pdf"] = pdf_reply or Reply(
                content_type="application/pdf", body=minimal_pdf(list(p.pdf[1:]), p.pdf[0])
            )
    return lit
