"""The offline Researcher's web research (`engines/offline/web_research.py`): every query of a branch goes to the
web once, results are fetched once per URL within the branch's bounds and budget, and the kept pages are searched
like a corpus. Unit tests over fake web tools, then a bridge followed on the web, on 127.0.0.1 only."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from fakes.searxng_web import web_run_config
from fakes.sites import LocalSite, Reply, html_page
from fakes.workspaces import trace, write_docs
from harness.engines.offline.web_research import FETCH_PER_SEARCH, WEB_PAGES, WEB_SEARCHES, WebResearch
from harness.errors import BudgetExhausted
from harness.orchestrator.lifecycle import start_run
from harness.sources.web.policy import WebRefused
from harness.sources.web.tools import FetchResult
from harness.workspace.validate import validate_workspace


class FakeWeb:
    """web_search and fetch_url for one branch: results per query (a dict, or every query the same list of paths),
    pages by path; paths in `failing` are refused. Records each call."""

    def __init__(self, results, failing=(), left=None):
        self.results, self.failing, self.left = results, set(failing), left
        self.searched: list[str] = []
        self.fetched: list[str] = []

    def web_search(self, query: str, k: int) -> list[dict]:
        self.searched.append(query)
        found = self.results
        paths = found(query) if callable(found) else found.get(query, []) if isinstance(found, dict) else found
        return [{"url": f"http://example.org{p}", "title": p, "snippet": ""} for p in paths[:k]]

    def fetch_url(self, url: str) -> FetchResult:
        self.fetched.append(url)
        path = urlsplit(url).path
        if path in self.failing:
            raise WebRefused(url, "HTTP 404 Not Found: the page does not exist; it is not a source")
        text = f"The page {path} says that raft elects a leader by a majority vote of the servers in a term."
        return FetchResult(f"src-{abs(hash(path)) % 10**12:012d}", url, path.strip("/"), "secondary", True, (), text)

    def research(self, notes=None) -> WebResearch:
        return WebResearch(self.web_search, self.fetch_url, notes if notes is not None else [], lambda: self.left)


def test_each_query_goes_to_the_web_once_and_each_url_is_fetched_once():
    web = FakeWeb({"raft leader": ["/a", "/b"], "raft election": ["/b", "/c"], "Shirley Temple": ["/a", "/d"]})
    research = web.research()
    for query in ("raft leader", "leader raft", "raft election", "Shirley Temple", "raft leader"):
        research.search(query, 5)
    # the same words are one search; the sub-query and the bridge are searches of their own
    assert web.searched == ["raft leader", "raft election", "Shirley Temple"]
    fetched = [urlsplit(u).path for u in web.fetched]  # a search's pages download in parallel: any order
    assert sorted(fetched) == ["/a", "/b", "/c", "/d"]  # deduplicated across searches
    hits = research.search("majority vote", 8)
    assert {h.path for h in hits} == {f"http://example.org/{p}" for p in "abcd"}  # ranked over every kept page
    assert all(h.kind == "secondary" and h.text in research.pages[h.source_id].text for h in hits)


def test_a_branch_searches_and_fetches_within_its_bounds_and_names_what_it_did_not_keep():
    web = FakeWeb(lambda q: [f"/{q}-{i}" for i in range(8)], failing={"/q1-0"})
    notes: list[str] = []
    research = web.research(notes)
    for i in range(1, WEB_SEARCHES + 3):
        research.search(f"q{i}", 5)
    assert web.searched == [f"q{i}" for i in range(1, WEB_SEARCHES + 1)]
    assert len(research.pages) == WEB_PAGES
    per_search = [sum(urlsplit(u).path.startswith(f"/q{i}-") for u in web.fetched) for i in range(1, 4)]
    assert per_search == [FETCH_PER_SEARCH + 1, FETCH_PER_SEARCH, 0]  # the failed page did not count as kept
    assert "web result not kept: http://example.org/q1-0: HTTP 404 Not Found" in notes[0]
    assert any(n == f"web research stopped: {WEB_SEARCHES} web searches made" for n in notes)


def test_a_searchs_pages_download_in_parallel_and_are_kept_in_rank_order():
    """The top results download at once (a barrier only parallel fetches pass), and the first-ranked page, though
    it finishes last, is the branch's first page and its failure note comes first: nothing depends on timing."""
    barrier = threading.Barrier(FETCH_PER_SEARCH, timeout=10)
    web = FakeWeb(["/slow", "/mid", "/fast", "/next"], failing={"/mid"})
    plain = web.fetch_url

    def fetch_url(url: str) -> FetchResult:
        path = urlsplit(url).path
        if path != "/next":  # the replacement for the failed page comes in a second wave, alone
            barrier.wait()
            time.sleep({"/slow": 0.2, "/mid": 0.1}.get(path, 0.0))
        return plain(url)

    web.fetch_url = fetch_url
    notes: list[str] = []
    research = web.research(notes)
    research.search("raft leader", 5)
    assert [doc.path for doc in research.pages.values()] == [
        f"http://example.org{p}" for p in ("/slow", "/fast", "/next")
    ]
    assert notes == [
        "web result not kept: http://example.org/mid: HTTP 404 Not Found: the page does not exist; it is not a source"
    ]


def test_the_web_leaves_the_steps_last_search_to_the_corpus_and_stops_on_its_budget():
    web = FakeWeb(["/a", "/b"], left=1)
    notes: list[str] = []
    assert web.research(notes).search("raft", 5) == [] and web.searched == []
    assert notes == [
        "web research stopped: the step's budget has 1 search(es) left, too few for a web search and a page"
    ]

    def spent(url):
        raise BudgetExhausted("researcher step budget for searches is exhausted (8 of 8)", "delegation")

    web = FakeWeb(["/a", "/b"])
    web.fetch_url = spent
    notes = []
    research = web.research(notes)
    assert research.search("raft", 5) == [] and research.search("other words", 5) == []
    assert web.searched == ["raft"]  # stopped: no further web search once the step's budget said no
    assert notes == ["web research stopped: researcher step budget for searches is exhausted (8 of 8)"]

    def run_spent(url):
        raise BudgetExhausted("the run's search budget is exhausted", "run")

    web = FakeWeb(["/a"])
    web.fetch_url = run_spent
    with pytest.raises(BudgetExhausted):  # only the run's own budget ends the run
        web.research().search("raft", 5)


# ---- a bridge followed on the web, end to end ---------------------------------------------------------------

BRIDGE_QUESTION = "What government position did the actress who starred as Corliss Archer in Kiss and Tell hold?"
PAGES = {
    "/kiss": (
        "Kiss and Tell (1945 film)",
        "Kiss and Tell is a 1945 American comedy film. The film stars Shirley Temple as Corliss Archer, a teenage "
        "girl.",
    ),
    "/archer": (
        "Meet Corliss Archer",
        "Meet Corliss Archer is an American radio sitcom about a teenage girl. The radio series ran for many "
        "seasons on several networks.",
    ),
    "/temple": (
        "Shirley Temple",
        "Shirley Temple was an American actress and diplomat. She held the government position of United States "
        "ambassador to Ghana.",
    ),
}


def bridge_web() -> LocalSite:
    """A SearXNG-compatible endpoint whose results depend on the query: the film's pages for the question, the
    actress's own page only for a search that names her."""
    site = LocalSite()
    site.queries = []

    def search(full_path: str) -> Reply:
        q = parse_qs(urlsplit(full_path).query).get("q", [""])[0]
        site.queries.append(q)
        paths = ["/temple"] if "temple" in q.lower() else ["/kiss", "/archer"]
        results = [{"url": site.base + p, "title": PAGES[p][0], "content": "", "engine": "local"} for p in paths]
        return Reply(200, "application/json", json.dumps({"query": q, "results": results}).encode())

    site.routes["/search"] = search
    for path, (title, text) in PAGES.items():
        # one paragraph a page: "She held ..." stands only with the sentence before it, and a card's antecedent is
        # looked for within its paragraph (a pronoun-led sentence alone in its paragraph is never a whole quote)
        site.routes[path] = Reply(body=html_page(title, f"<p>{text}</p>"))
    return site


def bridge_config(tmp_path: Path, site: LocalSite):
    """A --web run of BRIDGE_QUESTION over a corpus that cannot answer it, searching `site`, with no page cache."""
    corpus = write_docs(tmp_path / "corpus", {"garden.md": "# Gardening\n\nTomatoes need full sun and water.\n"})
    return web_run_config(BRIDGE_QUESTION, tmp_path, corpus, site.base, fetch={"cache_ttl": 0}, web_allow_private=True)


def test_the_bridge_query_searches_the_web_and_its_page_is_quoted_as_hop_two(tmp_path):
    with bridge_web() as site:
        result = start_run(bridge_config(tmp_path, site))
    run = result.run_dir
    assert validate_workspace(run) == []
    assert any("shirley temple" == q.lower() for q in site.queries)  # the bridge went to the web
    assert len(site.queries) == len({q.lower() for q in site.queries})  # each query once
    assert all(site.hits[p] == 1 for p in PAGES)  # each page fetched once
    records = {p.stem: json.loads(p.read_text()) for p in (run / "sources").glob("*.json")}
    cards = [json.loads(p.read_text()) for p in (run / "source-cards").glob("*.json")]
    hop2 = [c for c in cards if c.get("hop") == 2]
    assert hop2 and {records[c["source_id"]]["url"] for c in hop2} == {site.base + "/temple"}
    assert any("ambassador to Ghana" in c["quote"] for c in hop2)
    for card in cards:  # verbatim from the stored snapshot
        snapshot = (run / f"sources/{card['source_id']}.txt").read_text()
        assert snapshot[card["span"]["start"] : card["span"]["end"]] == card["quote"]
    researcher = [e for e in trace(run) if e["event"] == "delegation" and e["agent"] == "researcher"]
    assert researcher and all(e["budget"]["searches"] >= 1 for e in researcher)


def test_every_web_search_and_kept_page_is_charged_to_the_step(tmp_path, monkeypatch):
    """The branch's web searches and the pages it kept are searches of its budget, beside its corpus searches."""
    from harness.sources.research_tools import ResearchTools

    corpus_searches: list[str] = []
    real = ResearchTools.search

    def counted(self, query, *args, **kwargs):
        corpus_searches.append(query)
        return real(self, query, *args, **kwargs)

    monkeypatch.setattr(ResearchTools, "search", counted)
    with bridge_web() as site:
        result = start_run(bridge_config(tmp_path, site))
    budget = json.loads((Path(result.run_dir) / "run.json").read_text())["budget"]
    kept = len([p for p in (Path(result.run_dir) / "sources").glob("*.json") if "url" in json.loads(p.read_text())])
    assert kept == len(PAGES) and site.queries
    assert budget["roles"]["researcher"]["spent"]["searches"] == len(corpus_searches) + len(site.queries) + kept
