"""The offline Researcher on the web: keyless, deterministic web research with the run's search provider.

When the plan lets a question use the web (`allowed_sources` lists `web`) and the run has `--web`, the
Researcher's searches also go to the web: the first query is sent to the configured provider (ddgs unless
`--search` names another), the top results the question's domain policy allows are fetched and registered
through `fetch_url` (a page that fails — an HTTP error, a timeout, no readable text — is skipped and never
becomes a source), and every query of the branch, the bridges' included, is then answered from the fetched
pages by the same BM25 passage retrieval a corpus gets. The Researcher ranks the sentences of those passages
exactly as it ranks a corpus's and quotes them verbatim from the stored snapshots.

Each web search and each successful fetch is one search of the branch's budget; the fetched pages are
searched locally at no cost.
"""

from __future__ import annotations

from collections.abc import Callable

from harness.contract.search import CORPUS, WEB
from harness.errors import BudgetExhausted, HarnessError, PermissionRefused
from harness.sources.corpus import Corpus, Document
from harness.sources.index import CorpusIndex
from harness.sources.research_tools import SearchHit, marks_for

WEB_RESULTS = 8  # results asked of the provider for the first query (after the domain policy)
WEB_FETCH = 3  # pages fetched and kept per branch


class WebResearch:
    """One research branch's web: the pages it fetched, searched like a small corpus."""

    def __init__(self, web_search: Callable, fetch_url: Callable, notes: list[str]):
        self.web_search, self.fetch_url, self.notes = web_search, fetch_url, notes
        self.pages: dict[str, Document] = {}  # source id -> the page as a document (path: its URL)
        self.records: dict[str, dict] = {}  # source id -> {"kind", "flags"} of its source record
        self.skipped: list[str] = []  # "url: reason" for each result that did not become a source
        self._searched = False
        self._index: CorpusIndex | None = None

    def search(self, query: str, k: int) -> list[SearchHit]:
        """The best k passages of the branch's fetched pages for `query` (searching the web first, once)."""
        if not self._searched:
            self._searched = True
            try:
                results = self.web_search(query, WEB_RESULTS)
            except BudgetExhausted:
                raise
            except HarnessError as exc:  # the provider failed: the branch goes on with what else it has
                results = []
                self.skipped.append(f"web_search {query!r}: {exc}")
            self._fetch(results)
            self.notes.extend(f"web result not kept: {s}" for s in self.skipped)
        if self._index is None:
            if not self.pages:
                return []
            self._index = CorpusIndex.build(Corpus("web", list(self.pages.values())), use_cache=False)
        ids = list(self.pages)
        out = []
        for hit in self._index.search(query, k):
            sid, doc = ids[hit.doc], self._index.corpus.documents[hit.doc]
            record = self.records[sid]
            marks = marks_for(record, doc.text, hit.start, hit.end)
            text = doc.text[hit.start : hit.end]
            flagged = bool(record["flags"])
            out.append(
                SearchHit(sid, doc.title, doc.path, record["kind"], hit.start, hit.end, text, hit.score, flagged, marks)
            )
        return out

    def _fetch(self, results: list[dict]) -> None:
        for result in results:
            if len(self.pages) >= WEB_FETCH:
                break
            try:
                page = self.fetch_url(result["url"])
            except BudgetExhausted:
                raise
            except HarnessError as exc:  # refused, failed or empty: not a source
                self.skipped.append(str(exc) if result["url"] in str(exc) else f"{result['url']}: {exc}")
                continue
            if page.source_id not in self.pages:
                self.pages[page.source_id] = Document(page.url, page.title, page.text, "")
                self.records[page.source_id] = {"kind": page.kind, "flags": list(page.flags)}
        self._index = None


def step_search(ctx, question: dict) -> Callable[[str, int], list]:
    """The Researcher's search for this step: the corpus as before, and when the plan lets its question use the web
    and its spec gives it the web services (`--web`), the web too (corpus hits first). A question that allows only
    the web searches only the web; a run without a corpus searches only the web."""
    allowed = question.get("allowed_sources")
    services = ctx.services
    if allowed is None or WEB not in allowed or "web_search" not in services or "fetch_url" not in services:
        return services.search
    web = WebResearch(services.web_search, services.fetch_url, ctx.notes)
    corpus = CORPUS in allowed and "search" in services

    def search(query: str, k: int) -> list:
        hits = []
        if corpus:
            try:
                hits = services.search(query, k)
            except PermissionRefused:  # the run has no corpus: the web alone
                pass
        return hits + web.search(query, k)

    return search
