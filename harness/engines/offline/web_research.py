"""The offline Researcher on the web: keyless, deterministic web research with the run's search provider.

When the plan lets a question use the web (`allowed_sources` lists `web`) and the run has `--web`, or names a
literature provider the run searches (`arxiv`, `openalex`, …: no --web needed), every search the
Researcher makes also goes to those, with the same query it sends to the corpus: the question's own query, its
sub-queries and the bridge queries of its second hop. Each query is sent to the providers the question may search
once (ddgs unless `--search` names another; a paper's page is its open-access full text or its abstract,
`WebTools.fetch_paper`); the top results the question's domain policy allows and the branch has not
tried yet (URLs deduplicated, normalized) are fetched in parallel and registered through `fetch_url` (a page that
fails — an HTTP error, a timeout, no readable text — is skipped, named in the trace, never becomes a source, and is
replaced by the next result). The query is
then answered from every page the branch has kept so far by the same BM25 passage retrieval a corpus gets; the
Researcher ranks the sentences of those passages exactly as it ranks a corpus's and quotes them verbatim from the
stored snapshots.

Bounded per branch, and charged: each web search and each page kept is one search of the step's budget (the
Researcher's `searches` limit in its spec, layered on its role's and the run's; a fetch that fails is given back),
at most WEB_SEARCHES searches, FETCH_PER_SEARCH new pages a search, WEB_PAGES pages and WEB_ATTEMPTS fetch attempts
a branch; a query goes to the web only while the step's budget leaves room for the search and one page (so its
last search stays for the corpus). Each query searches the corpus before the web. The fetched pages are searched
locally at no cost.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from harness.contract.search import CORPUS, LITERATURE_PROVIDERS, WEB
from harness.errors import BudgetExhausted, HarnessError, PermissionRefused
from harness.evidence.lexical import content_words
from harness.runtime.context import AgentContext
from harness.sources.corpus import Corpus, Document
from harness.sources.index import CorpusIndex
from harness.sources.research_tools import SearchHit, marks_for
from harness.sources.urls import normalize_url

WEB_RESULTS = 8  # results asked of the provider for each query (after the domain policy)
WEB_SEARCHES = 4  # queries sent to the provider per branch
FETCH_PER_SEARCH = 3  # new pages kept from one search's results
WEB_PAGES = 6  # pages kept per branch
WEB_ATTEMPTS = 10  # fetches tried per branch, failures included (each may take up to the fetch timeout)
WHAT_NEEDS = {1: "another page", 2: "a web search and a page"}  # what the web spends next, by searches needed


class WebResearch:
    """One research branch's web: each query searched once, the pages it fetched searched like a small corpus.

    `searches_left()` says how many searches the step's budget still allows (None: no limit)."""

    def __init__(
        self,
        web_search: Callable,
        fetch_url: Callable,
        notes: list[str],
        searches_left: Callable[[], float | None] = lambda: None,
    ):
        self.web_search, self.fetch_url, self.notes, self.searches_left = web_search, fetch_url, notes, searches_left
        self.pages: dict[str, Document] = {}  # source id -> the page as a document (path: its URL)
        self.records: dict[str, dict] = {}  # source id -> {"kind", "flags"} of its source record
        self.skipped: list[str] = []  # "url: reason" for each result that did not become a source
        self.sent: list[str] = []  # the queries sent to the provider, in order
        self._sent_keys: set[str] = set()
        self._tried: set[str] = set()  # normalized URLs fetched or refused: never fetched twice
        self._attempts = 0
        self._stopped = ""  # why the branch's web research stopped spending, once it has
        self._index: CorpusIndex | None = None

    def search(self, query: str, k: int) -> list[SearchHit]:
        """The best k passages of the branch's fetched pages for `query`, after sending `query` to the web (once)."""
        self._research(query)
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

    def _affordable(self, need: int) -> bool:
        """May the web spend `need` more searches of the step's budget (a search and its first page: 2)?"""
        if self._stopped:
            return False
        left = self.searches_left()
        if left is None or left >= need:
            return True
        self._stop(f"the step's budget has {left:g} search(es) left, too few for {WHAT_NEEDS[need]}")
        return False

    def _stop(self, why: str) -> None:
        if not self._stopped:
            self._stopped = why
            self.notes.append(f"web research stopped: {why}")

    def _skip(self, what: str) -> None:
        self.skipped.append(what)
        self.notes.append(f"web result not kept: {what}")

    def _research(self, query: str) -> None:
        """Send `query` to the provider, unless a query of the same content words was sent already or the branch's
        web bounds are reached, and fetch its top new results."""
        key = " ".join(sorted(content_words(query)))
        if not key or key in self._sent_keys:
            return
        if len(self.sent) >= WEB_SEARCHES:
            self._stop(f"{WEB_SEARCHES} web searches made")
            return
        if not self._affordable(2):
            return
        self._sent_keys.add(key)
        self.sent.append(query)
        try:
            results = self.web_search(query, WEB_RESULTS)
        except BudgetExhausted as exc:
            if exc.scope == "run":
                raise
            self._stop(str(exc))
            return
        except HarnessError as exc:  # the provider failed: the branch goes on with what else it has
            self._skip(f"web_search {query!r}: {exc}")
            return
        self._fetch(results)

    def _fetch(self, results: list[dict]) -> None:
        """Fetch the search's top new results, in waves of the pages still wanted, each wave in parallel (a page
        may take up to the fetch timeout); the outcomes are taken in rank order, so the branch's pages, notes and
        cards do not depend on which download finished first. A failed page is replaced by the next result."""
        kept = 0
        pending = [r["url"] for r in results]
        while pending:
            wanted = min(FETCH_PER_SEARCH - kept, WEB_PAGES - len(self.pages), WEB_ATTEMPTS - self._attempts)
            if wanted <= 0 or not self._affordable(1):
                return
            left = self.searches_left()
            wanted = wanted if left is None else min(wanted, int(left))
            wave: list[str] = []
            while pending and len(wave) < wanted:
                url = pending.pop(0)
                key = normalize_url(url)
                if key not in self._tried:
                    self._tried.add(key)
                    wave.append(url)
            if not wave:
                return
            self._attempts += len(wave)
            kept += self._keep(wave, self._download(wave))

    def _download(self, urls: list[str]) -> list:
        """Each URL's FetchResult or the HarnessError it raised, in the order given."""

        def one(url: str):
            try:
                return self.fetch_url(url)
            except HarnessError as exc:
                return exc

        if len(urls) == 1:
            return [one(urls[0])]
        with ThreadPoolExecutor(max_workers=len(urls), thread_name_prefix="web-fetch") as pool:
            return list(pool.map(one, urls))

    def _keep(self, urls: list[str], outcomes: list) -> int:
        """Register the wave's pages in rank order; name each failure; stop on the step's budget. Pages kept."""
        kept = 0
        exhausted: BudgetExhausted | None = None
        for url, page in zip(urls, outcomes, strict=True):
            if isinstance(page, BudgetExhausted):
                exhausted = exhausted or page
                continue
            if isinstance(page, HarnessError):  # refused, failed or empty: not a source
                self._skip(str(page) if url in str(page) else f"{url}: {page}")
                continue
            self._tried.add(page.url)  # the final URL after redirects
            if page.source_id not in self.pages:
                self.pages[page.source_id] = Document(page.url, page.title, page.text, "")
                self.records[page.source_id] = {"kind": page.kind, "flags": list(page.flags)}
                self._index = None
                kept += 1
        if exhausted is not None:
            if exhausted.scope == "run":
                raise exhausted
            self._stop(str(exhausted))
        return kept


def step_search(ctx: AgentContext, question: dict) -> Callable[[str, int], list]:
    """The Researcher's search for this step: the corpus as before, and when the plan lets its question use the web
    or a literature provider and its spec gives it the web services (`--web`, or `--search arxiv,…`), those too,
    with the same query (corpus hits first). A question that allows no corpus searches only those; so does a run
    without a corpus."""
    allowed = question.get("allowed_sources")
    services = ctx.services
    online = allowed is not None and any(s == WEB or s in LITERATURE_PROVIDERS for s in allowed)
    if not online or "web_search" not in services or "fetch_url" not in services:
        return services.search
    web = WebResearch(services.web_search, services.fetch_url, ctx.notes, lambda: ctx.budget.left("searches"))
    corpus = allowed is not None and CORPUS in allowed and "search" in services

    def search(query: str, k: int) -> list:
        hits = []
        if corpus:
            try:
                hits = services.search(query, k)
            except PermissionRefused:  # the run has no corpus: the web alone
                pass
        return hits + web.search(query, k)

    return search
