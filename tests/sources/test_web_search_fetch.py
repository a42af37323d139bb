"""`WebTools.search_and_fetch` (the llm Researcher's web_search) against pages on 127.0.0.1: the top results fetched
in parallel and registered, each failure one reason, bounded by `search_pages`, the per-host limit kept."""

from __future__ import annotations

import threading

import pytest

from fakes.searxng_web import StaticSearch
from fakes.sites import LocalSite, Reply, html_page, redirect
from harness.sources.registry import SourceRegistry
from harness.sources.web import WebPolicy, WebTools
from harness.workspace.store import Workspace
from harness.workspace.validate import validate_workspace

LOCAL = WebPolicy(allowed_domains=("127.0.0.1",))


def article(n: int) -> bytes:
    return html_page(
        f"Page {n}",
        f"<p>Page {n} explains how the Raft leader election works, step by step, for readers new to consensus.</p>",
    )


@pytest.fixture(autouse=True)
def own_page_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("RESEARCH_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture
def ws(tmp_path):
    return Workspace.create(tmp_path / "runs", "q")


def rows(site: LocalSite, paths: list[str]) -> list[dict]:
    return [{"url": site.url(p), "title": p, "snippet": "about Raft"} for p in paths]


def test_the_top_results_are_fetched_at_once_and_each_readable_page_registered(ws):
    """Three pages that answer only once all three are being requested: fetched one after another, each would wait
    in vain and fail; fetched in parallel, all three become sources."""
    gate = threading.Barrier(3, timeout=5)

    def gated(n: int):
        def reply(_path: str) -> Reply:
            try:
                gate.wait()
            except threading.BrokenBarrierError:
                return Reply(503, body=b"<html><body>not all at once</body></html>")
            return Reply(body=article(n))

        return reply

    with LocalSite() as site:
        site.routes.update({f"/p{n}": gated(n) for n in range(3)})
        search = StaticSearch(rows(site, ["/p0", "/p1", "/p2"]))
        web = WebTools(SourceRegistry(ws), search=search, allow_private=True, robots=False, per_host=3)
        out = web.search_and_fetch("raft election", 5, LOCAL, question_id="Q1")
    assert [r.reason for r in out] == ["", "", ""] and [r.rank for r in out] == [1, 2, 3]
    assert site.max_in_flight == 3
    for r in out:
        record = web.registry.record(r.page.source_id)
        assert record["origin"] == {"tool": "web_search", "query": "raft election", "question_id": "Q1"}
        assert (record["web"]["rank"], record["web"]["provider"], record["web"]["query"]) == (
            r.rank,
            "searxng",
            "raft election",
        )
    assert validate_workspace(ws.root) == []


def test_fetches_are_bounded_by_search_pages_and_the_per_host_limit(ws):
    with LocalSite() as site:
        site.routes.update({f"/p{n}": Reply(body=article(n), delay=0.2) for n in range(8)})
        search = StaticSearch(rows(site, [f"/p{n}" for n in range(8)]))
        web = WebTools(SourceRegistry(ws), search=search, allow_private=True, robots=False, search_pages=4)
        out = web.search_and_fetch("raft", 10, LOCAL)
    assert len(out) == 4 and all(r.page for r in out)
    assert sum(site.hits.values()) == 4 and site.max_in_flight <= 2  # per_host defaults to 2


def test_failures_are_reasons_not_sources_and_provider_text_needs_no_request(ws):
    with LocalSite() as site:
        site.routes.update(
            {
                "/ok": Reply(body=article(1)),
                "/missing": Reply(404, body=b"<html><body>not here</body></html>"),
                "/empty": Reply(body=b"<html><head><title>App</title></head><body><script>x()</script></body></html>"),
                "/out": redirect("http://elsewhere.example/page"),
            }
        )
        found = rows(site, ["/ok", "/missing", "/empty", "/out"])
        found.append({"url": "http://127.0.0.1:9/given", "title": "Given", "snippet": "s", "text": "Raft elects " * 20})
        web = WebTools(SourceRegistry(ws), search=StaticSearch(found), allow_private=True, robots=False)
        out = web.search_and_fetch("raft", 5, LOCAL)
    ok, missing, empty, out_, given = out
    assert ok.page and given.page and not (missing.page or empty.page or out_.page)
    assert "HTTP 404" in missing.reason and "no readable text" in empty.reason
    assert "not in the allowed domains" in out_.reason and "(at http://elsewhere.example/page)" in out_.reason
    assert web.registry.record(given.page.source_id)["web"]["text_from"] == "provider"
    assert sorted(r["url"] for r in map(web.registry.record, web.registry.ids())) == sorted(
        [site.url("/ok"), "http://127.0.0.1:9/given"]
    )


def test_the_private_address_guard_refuses_results_before_any_request(ws):
    with LocalSite() as site:
        site.routes["/ok"] = Reply(body=article(1))
        web = WebTools(SourceRegistry(ws), search=StaticSearch(rows(site, ["/ok"])), robots=False)
        (out,) = web.search_and_fetch("raft", 5, LOCAL)
    assert out.page is None and "loopback" in out.reason and site.hits["/ok"] == 0
    assert web.registry.ids() == []
