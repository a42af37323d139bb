"""Web research end to end, on 127.0.0.1 only: a SearXNG-compatible endpoint and the pages it names
(`fakes/searxng_web.py`), researched by the offline engine through the CLI. (The llm-engine Researcher, whose
`web_search` fetches and registers its results, is tested in `test_web_search_llm.py`.)"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from fakes.searxng_web import FAILING, GOOD, OFFICIAL, PLANTED, QUESTION, JsonApi, search_web, web_run_config
from fakes.workspaces import trace
from harness.contract.quotes import normalize_ws
from harness.engines.offline.planner import make_plan
from harness.errors import UsageError
from harness.orchestrator.config import build_config
from harness.orchestrator.lifecycle import start_run
from harness.workspace.validate import validate_workspace


def records(run: Path) -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text()) for p in (run / "sources").glob("*.json")}


def web_records(run: Path) -> dict[str, dict]:
    return {sid: r for sid, r in records(run).items() if "url" in r}


def audited_text(run: Path) -> str:
    """Everything a run wrote that a model or template authored: cards, claims, drafts and the report."""
    files = [*run.glob("source-cards/*.json"), run / "claims.json", *run.glob("drafts/*.md"), run / "final-report.md"]
    return "\n".join(p.read_text() for p in files if p.is_file())


def web_config(tmp_path: Path, corpus: Path, search: str, url: str, *, fetch: dict | None = None, **kw):
    """A --web run's configuration on the fixture corpus, plan approved, with no page cache."""
    return web_run_config(QUESTION, tmp_path, corpus, url, search=search, fetch={"cache_ttl": 0, **(fetch or {})}, **kw)


def assert_web_run_is_sound(run: Path, base: str, page_url=None) -> None:
    """The done-when checks shared by both engines (`page_url(path)`: the URL a result names, when not base + path)."""
    page_url = page_url or (lambda p: base + p)
    assert validate_workspace(run) == []
    web = web_records(run)
    urls = {r["url"] for r in web.values()}
    assert urls and urls <= {page_url(p) for p in GOOD}  # failed pages (404, timeout, no text) are not sources
    assert not urls & {page_url(p) for p in FAILING}
    for r in web.values():  # web provenance: the search that found it and the fetch that made it
        assert (r["web"]["provider"], r["web"]["status"], r["web"]["text_from"]) == ("searxng", 200, "page")
        assert r["web"]["query"] and r["web"]["rank"] >= 1 and r["web"]["content_type"] == "text/html"
    cards = [json.loads(p.read_text()) for p in run.glob("source-cards/*.json")]
    cited_web = [c for c in cards if c["source_id"] in web]
    assert cited_web
    for card in cited_web:  # verbatim: the quote is the snapshot's own text at its span
        snapshot = (run / f"sources/{card['source_id']}.txt").read_text()
        assert snapshot[card["span"]["start"] : card["span"]["end"]] == card["quote"]
    injected = [r for r in web.values() if r["url"] == base + "/notes/election"]
    if injected:  # the planted instruction is flagged in its record and never repeated
        assert any(normalize_ws(PLANTED) in f["excerpt"] for f in injected[0]["flags"])
    assert "elects leaders by lottery" not in audited_text(run)


# ---- the offline engine, through the CLI: the done-when --------------------------------------------


def test_offline_web_research_through_the_cli_against_a_local_searxng(tmp_path):
    """The issue's done-when, with one official site: research.yaml names `localhost` as a primary domain, the
    Planner carries it into the plan, and the branch the official page answers ends completed, not blocked."""
    (tmp_path / "research.yaml").write_text(  # /slow times out
        "fetch: {timeout: 1, cache_ttl: 0}\nsources: {primary_domains: [localhost]}\n"
    )
    with search_web(official_host="localhost") as site:
        argv = [sys.executable, "-m", "harness", "run", QUESTION, "--web", "--search", "searxng"]
        argv += ["--search-url", site.base, "--web-allow-private", "--yes", "--runs-dir", "runs"]
        r = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    run = Path(tmp_path, re.search(r"final report: (\S+)", r.stdout).group(1)).parent
    # the branch's queries go to the web, each once (the question's two queries have the same words: one search)
    assert site.queries == [QUESTION.rstrip("?")] and site.hits["/search"] == 1
    assert all(site.hits[p] == 1 for p in GOOD + ("/gone", "/app"))  # each result fetched once
    check = subprocess.run([sys.executable, "-m", "harness", "validate", str(run)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout
    assert_web_run_is_sound(run, site.base, site.page_url)

    plan = json.loads((run / "plan.json").read_text())
    assert [q["primary_domains"] for q in plan["questions"] if q["kind"] == "research"] == [["localhost"]]
    web = web_records(run)
    kinds = {r["url"]: r["kind"] for r in web.values()}
    assert kinds.pop(site.page_url(OFFICIAL)) == "primary" and set(kinds.values()) == {"secondary"}
    report = (run / "final-report.md").read_text()
    assert any(sid in report for sid in web)  # the report cites web sources
    assert site.page_url(OFFICIAL) in report
    assert "no_primary_source" not in report
    assert json.loads((run / "run.json").read_text())["config"]["search"] == {"provider": "searxng", "url": site.base}
    researcher = [e for e in trace(run) if e["event"] == "delegation" and e["agent"] == "researcher"]
    assert [e["stop_reason"] for e in researcher] == ["completed"]
    notes = [n for e in researcher for n in e["detail"]["notes"]]
    for path, reason in zip(FAILING, ("HTTP 404", "timed out", "no readable text")):
        # each result that did not become a source is named in the delegation's trace, with its reason
        assert any(n.startswith(f"web result not kept: {site.base}{path}: ") and reason in n for n in notes), notes


def test_the_planner_allows_the_web_when_the_run_has_it():
    assert {tuple(q["allowed_sources"]) for q in make_plan(QUESTION)["questions"] if q["kind"] == "research"} == {
        ("corpus",)
    }
    web = make_plan(QUESTION, ("corpus", "web"))
    assert {tuple(q["allowed_sources"]) for q in web["questions"] if q["kind"] == "research"} == {("corpus", "web")}


def test_search_flags_without_the_web_and_a_searxng_without_its_url_are_refused_before_any_work(tmp_path):
    with pytest.raises(UsageError, match=r"^--search: the web is off for this run \(add --web\)$"):
        build_config(QUESTION, runs_dir=str(tmp_path), search="searxng", search_url="http://127.0.0.1:1")
    r = subprocess.run(
        [sys.executable, "-m", "harness", "run", QUESTION, "--web", "--search", "searxng", "--runs-dir", "runs"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 2 and r.stderr.strip().splitlines()[-1].endswith(
        "--search searxng: needs --search-url (or search.url in research.yaml), e.g. http://127.0.0.1:8888"
    )
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


# ---- a provider that returns the page text: Tavily, through its own client ---------------------------------------


def test_offline_web_research_with_tavily_keeps_its_page_text_and_says_so(tmp_path, fixture_corpus, monkeypatch):
    """Tavily's raw content is the snapshot (no request to the page); a result without it is fetched."""
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-test")
    unreachable = "http://127.0.0.1:9/raft/consensus"  # port 9 (discard): any request to it would fail
    raw = (
        "Raft consensus overview\n\nIn Raft, a candidate becomes the leader once a majority of the servers in the "
        "cluster vote for it during the current term. The leader then sends heartbeats to keep its authority."
    )
    with search_web() as site:
        answer = {
            "query": QUESTION,
            "results": [
                {
                    "url": unreachable,
                    "title": "Raft consensus overview",
                    "content": "Raft leaders.",
                    "raw_content": raw,
                },
                {"url": site.base + "/raft/terms", "title": "Terms and votes in Raft", "content": "Terms."},
            ],
        }
        with JsonApi(lambda seen: (200, answer)) as api:
            result = start_run(web_config(tmp_path, fixture_corpus, "tavily", api.base, web_allow_private=True))
    assert api.seen[0].body["include_raw_content"] == "text"
    run = result.run_dir
    assert validate_workspace(run) == []
    web = {r["url"]: r for r in web_records(run).values()}
    provided, fetched = web["http://127.0.0.1:9/raft/consensus"], web[site.base + "/raft/terms"]
    assert (provided["web"]["provider"], provided["web"]["rank"], provided["web"]["text_from"]) == (
        "tavily",
        1,
        "provider",
    )
    assert (run / f"sources/{provided['source_id']}.txt").read_text() == raw
    assert (fetched["web"]["text_from"], fetched["web"]["rank"], site.hits["/raft/terms"]) == ("page", 2, 1)
    cards = [json.loads(p.read_text()) for p in run.glob("source-cards/*.json")]
    assert any(c["source_id"] == provided["source_id"] and c["quote"] in raw for c in cards)


def test_the_private_address_guard_spares_the_search_endpoint_but_not_the_pages_it_names(tmp_path, fixture_corpus):
    """Without --web-allow-private, a SearXNG on 127.0.0.1 is still queried (the endpoint the user configured),
    but the pages its results name on 127.0.0.1 are refused before any connection, and none becomes a source."""
    with search_web() as site:
        result = start_run(web_config(tmp_path, fixture_corpus, "searxng", site.base))
    assert site.queries and site.hits["/search"] == 1
    assert not any(site.hits[p] for p in GOOD + FAILING)
    assert web_records(result.run_dir) == {}
    notes = [n for e in trace(result.run_dir) if e["event"] == "delegation" for n in e["detail"]["notes"]]
    assert any("private" in n or "loopback" in n for n in notes), notes
    assert validate_workspace(result.run_dir) == []


def test_the_search_settings_are_recorded_and_read_back_on_resume(tmp_path):
    from harness.orchestrator.config import config_from_snapshot, search_settings

    cfg = build_config(
        QUESTION,
        runs_dir=str(tmp_path),
        web=True,
        search="searxng",
        search_url="http://127.0.0.1:8888",
        config_data={"search": {"provider": "gemini", "url": "http://gemini.invalid", "model": "gemini-x"}},
    )
    assert cfg.search == {"provider": "searxng", "url": "http://127.0.0.1:8888", "model": "gemini-x"}
    back = config_from_snapshot(QUESTION, cfg.snapshot(), cfg.budget)
    assert search_settings(back) == search_settings(cfg)
    assert (search_settings(back).provider, search_settings(back).url) == ("searxng", "http://127.0.0.1:8888")


# ---- official sites and the run's HTTP client -------------------------------------------------------------------


def test_a_domain_the_approved_plan_marks_primary_makes_its_pages_primary_sources(tmp_path, fixture_corpus):
    """No research.yaml rule: the human approving the plan adds `primary_domains` to Q1, and the page on that
    domain is registered as primary while the others stay secondary; the branch is not blocked for want of one."""

    def approver(ws, payload):
        if payload.get("gate") != "plan":
            return {"decision": "approve"}
        plan = json.loads((ws.root / "plan.json").read_text())
        assert all(q.get("primary_domains") == [] for q in plan["questions"] if q["kind"] == "research")
        plan["questions"][0]["primary_domains"] = ["localhost"]
        return {"decision": "edit", "plan_text": json.dumps(plan), "by": "carol"}

    with search_web(official_host="localhost") as site:
        cfg = web_config(
            tmp_path, fixture_corpus, "searxng", site.base, fetch={"timeout": 1}, web_allow_private=True, yes=False
        )
        result = start_run(cfg, approver=approver)
    run = result.run_dir
    assert result.status == "completed", result.reason
    assert_web_run_is_sound(run, site.base, site.page_url)
    kinds = {r["url"]: r["kind"] for r in web_records(run).values()}
    assert kinds.pop(site.page_url(OFFICIAL)) == "primary" and set(kinds.values()) == {"secondary"}
    researcher = [e for e in trace(run) if e["event"] == "delegation" and e["agent"] == "researcher"]
    assert [e["stop_reason"] for e in researcher] == ["completed"]


def test_the_runs_http_client_is_closed_when_the_run_stops(tmp_path, fixture_corpus, monkeypatch):
    """The downloader's one httpx client lives as long as the run: closed when start_run (or resume_run) returns,
    whether the run completed or paused at a gate."""
    from harness.orchestrator.lifecycle import resume_run
    from harness.sources.web.download import Downloader

    clients: list = []
    real = Downloader._client

    def recording(self):
        client = real(self)
        if all(client is not c for c in clients):
            clients.append(client)
        return client

    monkeypatch.setattr(Downloader, "_client", recording)
    with search_web() as site:
        done = start_run(web_config(tmp_path / "a", fixture_corpus, "searxng", site.base, web_allow_private=True))
        assert done.status == "completed" and len(clients) == 1 and clients[0].is_closed
        waiting = start_run(
            web_config(tmp_path / "b", fixture_corpus, "searxng", site.base, web_allow_private=True, yes=False)
        )
        assert waiting.status == "awaiting_plan_approval" and len(clients) == 1  # nothing fetched yet
        resumed = resume_run(waiting.run_dir, yes=True)
    assert resumed.status == "completed" and len(clients) == 2 and all(c.is_closed for c in clients)


def test_the_configured_official_sites_reach_the_offline_plan_only_with_the_web_on(tmp_path):
    """research.yaml's primary domains become each web question's `primary_domains` (lower-cased); a domain with a
    port or scheme is refused in one line before any work; without --web the plan is as before."""
    from harness.orchestrator.nodes import _official_sites

    sources = {"sources": {"primary_domains": ["Raft.GitHub.io"]}}
    on = build_config(QUESTION, runs_dir=str(tmp_path), web=True, config_data=sources)
    off = build_config(QUESTION, runs_dir=str(tmp_path), config_data=sources)
    assert _official_sites(on) == {"primary_domains": ["raft.github.io"]} and _official_sites(off) == {}
    plan = make_plan(QUESTION, ("corpus", "web"), official=("raft.github.io",))
    assert [q.get("primary_domains") for q in plan["questions"]] == [["raft.github.io"], None]
    assert all("primary_domains" not in q for q in make_plan(QUESTION)["questions"])
    bad = {"sources": {"primary_domains": ["https://raft.github.io"]}}
    with pytest.raises(UsageError, match=r"field /sources/primary_domains/0: 'https://raft.github.io' does not match"):
        build_config(QUESTION, runs_dir=str(tmp_path), web=True, config_data=bad)
