"""A whole llm-engine run whose Researcher calls a real MCP server's tool (tests/fakes/mcp_docs_server.py, started
over stdio by the run's preflight), records evidence from its answer, and whose final report cites it; a branch
whose plan question does not allow the server is neither offered its tools nor let call them; and a server
that cannot start stops `research run` in one line, exit 2, before any run folder exists.

The models are scripted (tests/fakes/scripted.py); the MCP server, its session and its answers are real."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from fakes import mcp_docs_server
from fakes.scripted import Call, Say, Turn, call, role_policies, scripted_models
from fakes.workspaces import ASYNCIO_DOCS, delegations, manifest, write_docs
from harness.orchestrator.approvals import record_decision
from harness.orchestrator.config import build_config
from harness.orchestrator.lifecycle import resume_run, start_run
from harness.workspace.validate import validate_workspace

QUESTION = "How do asyncio.TaskGroup and asyncio.gather handle a failing task?"
MODEL = "scripted:fake"
TOOL = "mcp_docs_lookup_doc"
SERVER = [sys.executable, str(Path(mcp_docs_server.__file__))]
QUOTE = "If any task in the group fails with an exception, the remaining tasks in the group are cancelled."
EXCERPT = re.compile(r"<<<SOURCE (src-[0-9a-f]{12}) .*?\n(.*?)\nSOURCE>>>", re.S)


@pytest.fixture(autouse=True)
def _offline_env(tmp_path, monkeypatch):
    monkeypatch.setenv("RESEARCH_CACHE_DIR", str(tmp_path / "cache"))
    for key in ("GOOGLE_API_KEY", "GEMINI_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI"):
        monkeypatch.delenv(key, raising=False)


def mcp_plan(question: str) -> dict:
    """Q1 may use the MCP server `docs` only; Q2 the local corpus only."""

    def research(qid: str, text: str, allowed: list[str], terms: list[str]) -> dict:
        return {
            "id": qid,
            "text": text,
            "kind": "research",
            "critical": True,
            "allowed_sources": allowed,
            "search_terms": terms,
            "tag": None,
        }

    return {
        "schema_version": 1,
        "question": question,
        "revision": 1,
        "scope": {"in_scope": ["asyncio.TaskGroup", "asyncio.gather"], "out_of_scope": []},
        "deliverable": "A short answer with citations.",
        "criteria": [],
        "questions": [
            research(  # worded as its answer is: the judge of meaning put "handles a failing task" at 0.50
                "Q1",
                "Find what asyncio.TaskGroup does with the remaining tasks when one task fails.",
                ["mcp:docs"],
                ["taskgroup"],
            ),
            research(
                "Q2", "Find how asyncio.gather propagates the first exception.", ["corpus"], ["gather propagated"]
            ),
            {
                "id": "Q3",
                "text": "Answer the question from the evidence.",
                "kind": "deliverable",
                "critical": True,
                "tag": None,
            },
        ],
        "stop_conditions": [],
        "refinement": None,
        "approval": None,
    }


def planner(t: Turn):
    if not t.writes():
        return call("write_file", file_path="/plan.json", content=json.dumps(mcp_plan(t.brief_line("question"))))
    return Say("2 research questions")


def lookup(name: str) -> Call:
    return Call([(TOOL, {"name": name})])


def record(reply: str, pick, summary: str) -> Call:
    """record_evidence on the source of the excerpt in `reply`, quoting the sentence `pick` chooses."""
    source_id, text = EXCERPT.search(reply).groups()
    quote = next(s for s in re.split(r"(?<=\.)\s+", text) if pick(s))
    return call("record_evidence", source_id=source_id, quote=quote, summary=summary, confidence="high", limitations=[])


def researcher(t: Turn):
    """Q1: looks up the planted `notice` document, then `taskgroup`, and quotes the latter.
    Q2: tries the MCP tool anyway (its question does not allow it), then searches the corpus."""
    n = len(t.steps)
    mcp_branch = "mcp:docs" in (t.brief_line("allowed_sources") or "")
    if n == 0:
        return lookup("notice" if mcp_branch else "gather")
    if n == 1:
        return lookup("taskgroup") if mcp_branch else call("search", query="gather return_exceptions propagated", k=3)
    if n == 2 and mcp_branch:
        return record(t.last[0].content, lambda s: s == QUOTE, "A failing task cancels the rest of its TaskGroup.")
    if n == 2:
        return record(t.last[0].content, lambda s: "propagated" in s, "gather propagates the first exception.")
    return Say("1 card")


def run_config(tmp_path: Path, yes: bool = True, **server):
    corpus = write_docs(tmp_path / "corpus", ASYNCIO_DOCS)
    servers = {"docs": {"command": SERVER, "kind": "primary", "timeout": 60, **server}}
    return build_config(
        QUESTION,
        corpus=str(corpus),
        runs_dir=str(tmp_path / "runs"),
        engine="llm",
        model=MODEL,
        yes=yes,
        concurrency=1,  # one branch at a time, so each model call's offered tools pair with its messages
        config_data={"mcp": {"servers": servers}},
    )


def by_brief(model) -> dict[str, list[tuple[list, list[str]]]]:
    """(messages, offered tool names) of each model call, grouped by the brief's first line."""
    out: dict[str, list] = {}
    for msgs, offered in zip(model.calls, model.offered):
        brief = next(str(m.content) for m in msgs if m.type == "human")
        out.setdefault(brief.splitlines()[0], []).append((msgs, offered))
    return out


def tool_replies(calls: list[tuple[list, list[str]]], name: str) -> list:
    seen, out = set(), []
    for msgs, _ in calls:
        for m in msgs:
            if m.type == "tool" and m.name == name and m.tool_call_id not in seen:
                seen.add(m.tool_call_id)
                out.append(m)
    return out


def test_the_researcher_quotes_an_mcp_answer_and_the_report_cites_it(tmp_path):
    models = scripted_models(role_policies(planner=planner, researcher=researcher))
    result = start_run(run_config(tmp_path), models=models)

    assert (result.status, result.reason) == ("completed", None)
    run = result.run_dir
    assert validate_workspace(run) == []

    # the Planner was told the server and its tool
    planner_brief = next(str(m.content) for m in models["planner"].calls[0] if m.type == "human")
    assert "`mcp:docs`" in planner_brief and "`lookup_doc`" in planner_brief

    # Q1's card quotes the MCP answer, registered as a source with its provenance
    (q1_card,) = [json.loads(p.read_text()) for p in (run / "source-cards").glob("q1-*.json")]
    assert q1_card["quote"] == QUOTE
    source = json.loads((run / f"sources/{q1_card['source_id']}.json").read_text())
    assert source["mcp"]["server"] == "docs" and source["mcp"]["tool"] == "lookup_doc"
    assert source["mcp"]["arguments"] == {"name": "taskgroup"} and source["origin"]["tool"] == "mcp"
    snapshot = (run / f"sources/{q1_card['source_id']}.txt").read_text()
    assert snapshot == mcp_docs_server.DOCS["taskgroup"]
    assert snapshot[q1_card["span"]["start"] : q1_card["span"]["end"]] == QUOTE

    # the final report cites it, and names the MCP call in its Sources section
    report = (run / "final-report.md").read_text()
    assert f"source-cards/{q1_card['card_id']}.json" in report
    assert f"sources/{q1_card['source_id']}.txt" in report and source["path"] in report

    # the planted instruction in the `notice` answer was flagged, and shown flagged to the model
    flagged = [
        json.loads(p.read_text()) for p in (run / "sources").glob("*.json") if json.loads(p.read_text())["flags"]
    ]
    assert [s["mcp"]["arguments"] for s in flagged] == [{"name": "notice"}]
    calls = by_brief(models["researcher"])
    q1 = next(v for k, v in calls.items() if k.startswith("Research Q1"))
    q2 = next(v for k, v in calls.items() if k.startswith("Research Q2"))
    first, second = tool_replies(q1, TOOL)
    assert "[[FLAGGED override]]" in first.content and "Ignore all previous instructions" in first.content
    assert "[[FLAGGED" not in second.content and f"Stored as source {q1_card['source_id']}" in second.content

    # Q1 was offered the MCP tool; Q2, whose question allows only the corpus, never was, and its call was refused
    assert all(TOOL in offered for _, offered in q1)
    assert all(TOOL not in offered for _, offered in q2)
    (refused,) = tool_replies(q2, TOOL)
    assert refused.status == "error" and "not mcp:docs; nothing was spent" in refused.content
    for role in ("planner", "analyst", "writer", "reviewer"):
        assert not any(name.startswith("mcp_") for names in models[role].offered for name in names)

    # each MCP call counted as one search; the refused one cost nothing
    assert manifest(run)["budget"]["spent"]["searches"] == 3
    assert manifest(run)["config"]["mcp"]["servers"]["docs"]["command"] == SERVER
    assert {e["delegation_id"] for e in delegations(run, "researcher")} == {"researcher-Q1-r0", "researcher-Q2-r0"}


def test_a_resumed_run_connects_to_its_servers_again(tmp_path):
    paused = start_run(run_config(tmp_path, yes=False), models=scripted_models(role_policies(planner=planner)))
    assert paused.status == "awaiting_plan_approval"  # the servers were closed with the process's run
    record_decision(paused.run_dir, plan=True, by="tester")

    models = scripted_models(role_policies(planner=planner, researcher=researcher))
    done = resume_run(paused.run_dir, models=models)  # rebuilt from run.json's mcp: section

    assert (done.status, done.reason) == ("completed", None)
    assert validate_workspace(done.run_dir) == []
    cards = [json.loads(p.read_text()) for p in (done.run_dir / "source-cards").glob("q1-*.json")]
    source = json.loads((done.run_dir / f"sources/{cards[0]['source_id']}.json").read_text())
    assert source["mcp"]["arguments"] == {"name": "taskgroup"}


def test_a_server_that_cannot_start_stops_research_run_before_any_work(tmp_path):
    corpus = write_docs(tmp_path / "corpus", ASYNCIO_DOCS)
    config = tmp_path / "research.yaml"
    config.write_text(
        json.dumps({"mcp": {"servers": {"ghost": {"command": ["/nonexistent/mcp-server"], "timeout": 30}}}}),
        encoding="utf-8",
    )
    runs = tmp_path / "runs"
    argv = [sys.executable, "-m", "harness", "run", QUESTION, "--corpus", str(corpus), "--runs-dir", str(runs)]
    r = subprocess.run([*argv, "--yes", "--config", str(config)], capture_output=True, text=True, timeout=300)

    assert r.returncode == 2, r.stderr
    (error,) = [ln for ln in r.stderr.splitlines() if ln.startswith("research: error:")]
    assert "mcp server 'ghost' (research.yaml mcp.servers.ghost)" in error and "/nonexistent/mcp-server" in error
    assert not runs.exists() or not any(runs.iterdir())
