"""The llm Researcher's `web_search` fetches and registers its results, on 127.0.0.1 only: a SearXNG-compatible
endpoint and the pages it names (`fakes/searxng_web.py`), researched by a scripted model through the real pipeline
(the other roles offline).

- A Researcher that calls only `web_search` records cards quoting the pages it registered; the run validates clean,
  the pages that failed are listed with their reason and are not sources, the page carrying a planted instruction
  is flagged and its instruction never shown to the model, and the search cost one search, its fetches included.
- Several `web_search` and `fetch_url` calls in one model message: one download per page, every call charged once,
  one source per page, and a second run served from the page cache.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from fakes.scripted import Call, Say, ScriptedChatModel, Turn, call
from fakes.searxng_web import FAILING, GOOD, PLANTED, QUESTION, RESULTS, search_web, web_run_config
from fakes.workspaces import trace
from harness.contract.formats import sha256_text
from harness.contract.quotes import normalize_ws
from harness.orchestrator.lifecycle import start_run
from harness.workspace.validate import validate_workspace

BLOCK = re.compile(r"<<<SOURCE (src-[0-9a-f]{12}) [^\n]*\n(.*?)\nSOURCE>>>", re.S)
ANSWER = "it becomes the leader once a majority of the servers have granted it their vote in that term"
HEARTBEATS = "A candidate that wins a majority of votes in its term becomes the leader and starts sending heartbeats."
REASONS = dict(zip(FAILING, ("HTTP 404", "timed out", "no readable text")))


def llm_web_config(tmp_path: Path, corpus: Path, base: str, fetch: dict, **config):
    """A --web run on a local SearXNG, plan approved, the Researcher an llm (the scripted model), the rest offline."""
    return web_run_config(
        QUESTION,
        tmp_path,
        corpus,
        base,
        fetch={"timeout": 1, **fetch},
        config=config,
        web_allow_private=True,
        engine="offline",
        agents=["researcher=llm"],
        model="scripted:fake",
    )


def web_records(run: Path) -> dict[str, dict]:
    records = (json.loads(p.read_text()) for p in (run / "sources").glob("*.json"))
    return {r["source_id"]: r for r in records if "url" in r}


def results_of(model: ScriptedChatModel, tool: str) -> list:
    """Every distinct tool result named `tool` that the model was sent."""
    seen = {}
    for msgs in model.calls:
        for m in msgs:
            if getattr(m, "name", None) == tool:
                seen[m.tool_call_id] = m
    return list(seen.values())


def researcher_searches(run: Path) -> int:
    return json.loads((run / "run.json").read_text())["budget"]["roles"]["researcher"]["spent"]["searches"]


def quote_from(content: str, needle: str) -> tuple[str, str] | None:
    """(source id, the sentence holding `needle`) from the first delimited passage of `content` that has it."""
    for sid, text in BLOCK.findall(content):
        if needle in text:
            sentence = next(s for s in re.split(r"(?<=\.)\s+", text) if needle in s)
            return sid, sentence
    return None


# ---- a Researcher that calls only web_search ------------------------------------------------------------------


def only_web_search(t: Turn) -> Call | Say:
    """One web_search; a second one (refused: the role's one search is spent); then the card from what it showed."""
    if not t.steps:
        return call("web_search", query="raft leader election", k=6)
    if len(t.steps) == 1:
        return call("web_search", query="raft randomized election timeouts", k=6)
    if len(t.steps) == 2:
        found = quote_from(t.results[0][0].content, ANSWER)
        if found is None:
            return Say("BLOCKED: no_evidence")
        sid, sentence = found
        quote = sentence[sentence.index("The candidate") :]
        return call("record_evidence", source_id=sid, quote=quote, summary="How Raft elects.", confidence="high")
    return Say("1 card")


def test_a_researcher_with_only_web_search_cites_the_pages_it_registered(tmp_path, fixture_corpus):
    model = ScriptedChatModel(policy=only_web_search)
    with search_web() as site:
        # six pages a search, and one search for the whole role: the fetches must not count as searches
        cfg = llm_web_config(
            tmp_path, fixture_corpus, site.base, {"search_pages": 6}, role_budgets={"researcher": {"searches": 1}}
        )
        result = start_run(cfg, models={"researcher": model})
    run = result.run_dir
    assert result.status == "completed", result.reason
    check = subprocess.run([sys.executable, "-m", "harness", "validate", str(run)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    assert validate_workspace(run) == []

    searched, refused = results_of(model, "web_search")
    assert site.hits["/search"] == 1 and all(site.hits[p] == 1 for p in GOOD)  # fetched once, by the search
    assert researcher_searches(run) == 1
    assert refused.content.startswith("No search was made: researcher budget for searches is exhausted")
    assert "A web_search costs one search, the pages it fetches included" in refused.content

    # the pages that became sources: registered by web_search, with the full web provenance
    web = web_records(run)
    by_url = {r["url"]: r for r in web.values()}
    assert set(by_url) == {site.base + p for p in GOOD}
    ranks = {site.base + path: i for i, (path, _t, _s) in enumerate(RESULTS, 1)}
    for url, r in by_url.items():
        snapshot = (run / f"sources/{r['source_id']}.txt").read_text()
        assert r["origin"] == {"tool": "web_search", "query": "raft leader election", "question_id": "Q1"}
        assert r["sha256"] == sha256_text(snapshot) and r["retrieved_at"]
        w = r["web"]
        assert (w["query"], w["provider"], w["rank"], w["final_url"]) == (
            "raft leader election",
            "searxng",
            ranks[url],
            url,
        )
        assert (w["status"], w["content_type"], w["text_from"], w["from_cache"]) == (200, "text/html", "page", False)
        assert len(w["content_sha256"]) == 64
        # what the model was shown of it: its id, title, URL and length, and passages with true offsets
        head = re.search(rf"<<<SOURCE {r['source_id']} ([^\n]*)", searched.content).group(1)
        assert f"url='{url}'" in head and f"total={len(snapshot)}" in head and f"title='{r['title']}'" in head
        for start, end, text in re.findall(
            rf"<<<SOURCE {r['source_id']} [^\n]*start=(\d+) end=(\d+)[^\n]*\n(.*?)\nSOURCE>>>", searched.content, re.S
        ):
            if "withheld" not in text:
                assert snapshot[int(start) : int(end)] == text

    # each result that failed: one line with its reason, and not a source
    for path, reason in REASONS.items():
        line = next(ln for ln in searched.content.splitlines() if f"not a source: {site.base}{path}:" in ln)
        assert reason in line
    assert "3 of 6 results are now sources" in searched.content
    (delegation,) = [e for e in trace(run) if e["event"] == "delegation" and e["agent"] == "researcher"]
    for path, reason in REASONS.items():  # and named in the delegation's trace, for the auditor
        assert any(
            n.startswith(f"web result not kept: {site.base}{path}: ") and reason in n
            for n in delegation["detail"]["notes"]
        )
    assert len(searched.content) < 7_000  # bounded: six results, three pages

    # the planted instruction: flagged in its record, withheld from the model, never echoed
    injected = by_url[site.base + "/notes/election"]
    assert any(normalize_ws(PLANTED) in f["excerpt"] for f in injected["flags"])
    assert "flag='suspicious-instructions'" in searched.content and "characters withheld]]" in searched.content
    everything_sent = "\n".join(str(m.content) for msgs in model.calls for m in msgs)
    assert "lottery" not in everything_sent and "Ignore all previous" not in everything_sent
    audited = [*run.glob("source-cards/*.json"), run / "claims.json", *run.glob("drafts/*.md"), run / "final-report.md"]
    assert "lottery" not in "\n".join(p.read_text() for p in audited)

    # the card quotes a page web_search registered, verbatim, and the report cites it
    cards = [json.loads(p.read_text()) for p in run.glob("source-cards/*.json")]
    (card,) = [c for c in cards if c["extracted_by"]["engine"] == "llm"]
    assert card["source_id"] == by_url[site.base + "/raft/leader-election"]["source_id"] and ANSWER in card["quote"]
    snapshot = (run / f"sources/{card['source_id']}.txt").read_text()
    assert snapshot[card["span"]["start"] : card["span"]["end"]] == card["quote"]
    assert card["source_id"] in (run / "final-report.md").read_text()


# ---- parallel calls: several web_search and fetch_url in one model message ------------------------------------


def parallel_researcher(base: str):
    def policy(t: Turn) -> Call | Say:
        if not t.steps:
            return Call(
                [
                    ("web_search", {"query": "raft leader election", "k": 5}),
                    ("web_search", {"query": "raft terms and votes", "k": 5}),
                    ("fetch_url", {"url": base + "/raft/terms"}),  # also fetched by both searches, at the same time
                    ("fetch_url", {"url": base + "/notes/election"}),  # past the searches' five: a link it found
                    ("fetch_url", {"url": base + "/gone"}),
                ]
            )
        if len(t.steps) == 1:
            found = quote_from(t.last[3].content, "starts sending heartbeats")  # a flagged page's clean sentence
            if found is None:
                return Say("BLOCKED: no_evidence")
            return call("record_evidence", source_id=found[0], quote=HEARTBEATS, summary="Winner.", confidence="high")
        return Say("1 card")

    return policy


def test_parallel_web_searches_and_fetches_download_each_page_once_and_charge_each_call_once(tmp_path, fixture_corpus):
    with search_web() as site:
        runs = []
        for _ in range(2):  # the second run finds every good page in the page cache
            model = ScriptedChatModel(policy=parallel_researcher(site.base))
            result = start_run(llm_web_config(tmp_path, fixture_corpus, site.base, {}), models={"researcher": model})
            runs.append((result, model, dict(site.hits)))
    (first, model, hits), (second, _model, hits_after) = runs
    for result in (first, second):
        assert result.status == "completed", result.reason
        assert validate_workspace(result.run_dir) == []
        # two web_search and two fetch_url charged one search each; the fetch that failed (404) is given back
        assert researcher_searches(result.run_dir) == 4
    assert all(hits[p] == 1 for p in GOOD)  # two searches and a fetch asked for /raft/terms at once: one download
    assert all(hits_after[p] == 1 for p in GOOD)  # the second run downloaded nothing it had

    web = web_records(first.run_dir)
    assert sorted(r["url"] for r in web.values()) == sorted(site.base + p for p in GOOD)  # one source per page
    terms = next(r for r in web.values() if r["url"] == site.base + "/raft/terms")
    assert terms["origin"]["tool"] in ("web_search", "fetch_url")
    searches = results_of(model, "web_search")
    assert len(searches) == 2 and all(f"<<<SOURCE {terms['source_id']} " in m.content for m in searches)
    gone = next(m for m in results_of(model, "fetch_url") if m.status == "error")
    assert f"{site.base}/gone" in gone.content and "HTTP 404" in gone.content
    assert all(r["web"]["from_cache"] for r in web_records(second.run_dir).values())
    cards = [json.loads(p.read_text()) for p in first.run_dir.glob("source-cards/*.json")]
    flagged = next(r for r in web.values() if r["url"] == site.base + "/notes/election")
    assert any(c["source_id"] == flagged["source_id"] and c["quote"] == HEARTBEATS for c in cards)
    delegations = [e for e in trace(first.run_dir) if e["event"] == "delegation" and e["agent"] == "researcher"]
    assert len(delegations) == 1
