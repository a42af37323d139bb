"""`research mcp`: a real MCP server driven by the `mcp` SDK's own client, over stdio and streamable HTTP on 127.0.0.1.

A whole offline run on the small fixture corpus goes through the tools: start, wait (with progress
notifications) to the plan gate, approve, wait to completed, the report, a claim's evidence (each
quote equal to its snapshot's span, read back from the run folder), the resources, a follow-up run
to completion, and `research validate` through `validate_run`. The error tests use the same server
in-process (the SDK's in-memory transport) and over HTTP for the token.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import anyio
import pytest

pytest.importorskip("mcp")

from mcp import Client, StdioServerParameters  # noqa: E402

from fakes.workspaces import FIXTURE_QUESTION, write_fixture_corpus  # noqa: E402
from harness.runtime.budget import DEFAULT_RUN_LIMITS  # noqa: E402
from harness.surfaces.mcp_server import http_app, open_desk  # noqa: E402
from harness.surfaces.mcp_server.server import build_server  # noqa: E402
from harness.surfaces.serve.runs import run_ids  # noqa: E402
from harness.workspace.validate import validate_workspace  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
WAIT_S = 240.0  # the whole run on a loaded two-core machine; a test never asserts on time


def server_env() -> dict[str, str]:
    path = os.pathsep.join([str(REPO), str(REPO / "tests"), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return {**os.environ, "PYTHONPATH": path}


async def call(client: Client, tool: str, args: dict, progress=None) -> dict:
    result = await client.call_tool(tool, args, progress_callback=progress)
    assert not result.is_error, (tool, result.content)
    return result.structured_content


async def call_error(client: Client, tool: str, args: dict) -> str:
    result = await client.call_tool(tool, args)
    assert result.is_error, (tool, result.structured_content)
    text = " ".join(c.text for c in result.content if hasattr(c, "text"))
    assert "\n" not in text.strip()
    return text


async def wait_until(client: Client, run_id: str, statuses: set[str], steps: list[str] | None = None) -> dict:
    """research_status with wait_seconds, again until the run is in one of `statuses` and no process works on it."""

    async def progress(value, total, message):
        if steps is not None:
            steps.append(message or "")

    deadline = time.monotonic() + WAIT_S
    while True:
        status = await call(client, "research_status", {"run_id": run_id, "wait_seconds": 30}, progress)
        if (status["status"] in statuses and not status["live"]) or time.monotonic() > deadline:
            return status
        assert status["status"] not in ("failed", "rejected", "needs_human"), status


async def whole_run(client: Client, corpus: Path, runs_dir: Path) -> None:
    tools = {t.name for t in (await client.list_tools()).tools}
    assert tools == {
        "start_research",
        "research_status",
        "decide_plan",
        "get_report",
        "get_evidence",
        "ask_followup",
        "validate_run",
    }

    started = await call(
        client, "start_research", {"question": FIXTURE_QUESTION, "corpus": str(corpus), "budget": {"searches": 60}}
    )
    run_id = started["run_id"]
    assert (runs_dir / run_id / "run.json").is_file()
    steps: list[str] = []
    status = await wait_until(client, run_id, {"awaiting_plan_approval"}, steps)
    assert status["status"] == "awaiting_plan_approval" and status["gate"] == "plan", status
    assert [q["id"] for q in status["plan"]["questions"]] and all(q["text"] for q in status["plan"]["questions"])
    limits = status["budget"]["limits"]
    assert limits == {**DEFAULT_RUN_LIMITS, "searches": 60}  # what was asked, the defaults for the rest
    assert status["budget"]["left"]["searches"] == 60 - status["budget"]["spent"].get("searches", 0)

    decided = await call(client, "decide_plan", {"run_id": run_id, "decision": "approve"})
    assert decided["recorded"].startswith("plan approved")
    status = await wait_until(client, run_id, {"completed"}, steps)
    assert status["status"] == "completed", status
    # the trace went out as progress notifications (the resumed run is a new process, so its steps come while
    # the caller waits; the Planner can finish before the first wait begins)
    assert any(s.startswith("researcher") for s in steps) and "status: completed" in steps, steps
    manifest = json.loads((runs_dir / run_id / "run.json").read_text())
    assert manifest["decisions"][0]["decision"] == "approved" and "(research mcp)" in manifest["decisions"][0]["by"]

    report = await call(client, "get_report", {"run_id": run_id})
    assert report["report_markdown"] == (runs_dir / run_id / "final-report.md").read_text(encoding="utf-8")
    assert report["validation"] == {"clean": True, "problems": []}
    assert report["cited_claims"] and all(f"[{c}](" in report["report_markdown"] for c in report["cited_claims"])
    metrics = json.loads((runs_dir / run_id / "metrics.json").read_text())
    assert report["answers"] == ({k: v for k, v in metrics.items() if k.startswith("answer")} or None)

    evidence = await call(client, "get_evidence", {"run_id": run_id, "claim_id": report["cited_claims"][0]})
    assert evidence["cards"]
    for card in evidence["cards"]:
        source = card["source"]
        snapshot = (runs_dir / run_id / "sources" / f"{source['source_id']}.txt").read_text(encoding="utf-8")
        assert card["quote"] == snapshot[card["span"]["start"] : card["span"]["end"]]
        assert card["verbatim"] is True and source["title"] and source["path"].startswith("corpus:")
        read = await client.read_resource(source["snapshot_uri"])
        assert read.contents[0].text == snapshot
        read = await client.read_resource(card["uri"])
        assert json.loads(read.contents[0].text)["quote"] == card["quote"]

    listed = [str(r.uri) for r in (await client.list_resources()).resources]
    assert report["uri"] in listed
    read = await client.read_resource(report["uri"])
    assert read.contents[0].text == report["report_markdown"]

    follow = await call(client, "ask_followup", {"run_id": run_id, "question": "Which fastjson release is current?"})
    child = follow["run_id"]
    assert follow["parent"] == run_id and child != run_id
    status = await wait_until(client, child, {"awaiting_plan_approval"})
    assert status["parent"] == run_id and status["gate"] == "plan", status
    await call(client, "decide_plan", {"run_id": child, "decision": "approve"})
    status = await wait_until(client, child, {"completed"})
    assert status["status"] == "completed", status

    for rid in (run_id, child):
        checked = await call(client, "validate_run", {"run_id": rid})
        assert checked == {"run_id": rid, "clean": True, "problems": []}
        assert validate_workspace(runs_dir / rid) == []


@pytest.fixture
def served_corpus(tmp_path: Path) -> Path:
    return write_fixture_corpus(tmp_path / "corpus")


def test_a_whole_offline_run_over_stdio(tmp_path, served_corpus):
    runs_dir = tmp_path / "runs"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "harness", "mcp", "--runs-dir", str(runs_dir), "--corpus-root", str(tmp_path)],
        cwd=str(tmp_path),
        env=server_env(),
    )

    async def main():
        async with Client(params, read_timeout_seconds=120) as client:
            await whole_run(client, served_corpus, runs_dir)

    anyio.run(main)


def test_a_whole_offline_run_over_streamable_http_on_loopback(tmp_path, served_corpus):
    runs_dir = tmp_path / "runs"
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness", "mcp", "--http", "--port", "0", "--runs-dir", str(runs_dir)]
        + ["--corpus-root", str(tmp_path)],
        cwd=tmp_path,
        env=server_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        assert line.startswith("research mcp: http://127.0.0.1:") and line.rstrip().endswith("/mcp"), (
            line,
            proc.stderr.read() if proc.poll() is not None else "",
        )
        url = line.split(": ", 1)[1].strip()

        async def main():
            async with Client(url, read_timeout_seconds=120) as client:
                await whole_run(client, served_corpus, runs_dir)

        anyio.run(main)
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


# ---- refusals ------------------------------------------------------------------------------------------------


@pytest.fixture
def desk(tmp_path, built_ws):
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    d = open_desk(built_ws.root.parent, [str(allowed)], tmp_path)
    yield d
    d.close()


def in_process(desk, body) -> None:
    async def main():
        async with Client(build_server(desk)) as client:
            await body(client)

    anyio.run(main)


def test_an_unknown_run_and_traversal_in_an_id_are_refused_naming_the_argument(desk, built_ws):
    async def body(client):
        for tool in ("research_status", "get_report", "validate_run", "ask_followup"):
            args = {"run_id": "20990101T000000.000000Z-abcdef"} | (
                {"question": "Why?"} if tool == "ask_followup" else {}
            )
            message = await call_error(client, tool, args)
            assert message.startswith("run_id: 20990101T000000.000000Z-abcdef: no such run"), message
        for bad in ("../" + built_ws.run_id, built_ws.run_id + "/../..", "/etc"):
            message = await call_error(client, "research_status", {"run_id": bad})
            assert message.startswith("run_id: ") and "is not a run id" in message, message
        for claim in ("../../run", "C1/../x"):
            message = await call_error(client, "get_evidence", {"run_id": built_ws.run_id, "claim_id": claim})
            assert message.startswith("claim_id: ") and "is not a claim id" in message, message
        message = await call_error(client, "get_evidence", {"run_id": built_ws.run_id, "claim_id": "C99"})
        assert message.startswith("claim_id: C99: no such claim")
        # a resource never reads outside the run folder either: the SDK refuses the traversal, the harness the id
        from mcp.shared.exceptions import MCPError

        with pytest.raises(MCPError):
            await client.read_resource(f"research://runs/{built_ws.run_id}/sources/..%2F..%2Frun/snapshot")
        with pytest.raises(MCPError) as err:
            await client.read_resource(f"research://runs/{built_ws.run_id}/sources/run.json/snapshot")
        assert "source_id" in str(err.value)
        with pytest.raises(MCPError) as err:
            await client.read_resource("research://runs/..%2F..%2Fetc/report")

    in_process(desk, body)


def test_a_corpus_outside_the_allowed_roots_and_an_unbounded_budget_are_refused(desk, tmp_path, built_ws):
    outside = write_fixture_corpus(tmp_path / "elsewhere")

    async def body(client):
        message = await call_error(client, "start_research", {"question": "Q?", "corpus": str(outside)})
        assert message.startswith(f"corpus: {outside}: outside the allowed corpus roots"), message
        message = await call_error(client, "start_research", {"question": "Q?", "corpus": "python-docs"})
        assert message.startswith("corpus: python-docs: not among the allowed corpus roots"), message
        message = await call_error(client, "start_research", {"question": "Q?", "budget": {"searches": 0}})
        assert message.startswith("budget.searches: "), message
        message = await call_error(client, "start_research", {"question": "Q?", "budget": {"dollars": 5}})
        assert message.startswith("budget.dollars: "), message
        message = await call_error(client, "start_research", {"question": "Q?", "language": "not a language"})
        assert message.startswith("language"), message
        assert run_ids(desk.runs_dir) == [built_ws.run_id]  # no run was started

    in_process(desk, body)


def test_a_bad_decision_is_refused_and_writes_nothing(desk, built_ws):
    run_json = (built_ws.root / "run.json").read_bytes()

    async def body(client):
        run_id = built_ws.run_id
        message = await call_error(client, "decide_plan", {"run_id": run_id, "decision": "maybe"})
        assert message.startswith("decision: ") and "'approve', 'reject' or 'edit'" in message, message
        message = await call_error(client, "decide_plan", {"run_id": run_id, "decision": "reject"})
        assert message.startswith("feedback: a rejection needs feedback"), message
        message = await call_error(client, "decide_plan", {"run_id": run_id, "decision": "edit"})
        assert message.startswith("plan: an edit needs the edited plan.json"), message
        message = await call_error(client, "decide_plan", {"run_id": run_id, "decision": "approve", "feedback": "x"})
        assert message.startswith("feedback: only a rejection takes feedback"), message
        # the fixture run is not waiting at the plan gate: nothing to decide
        message = await call_error(client, "decide_plan", {"run_id": run_id, "decision": "approve"})
        assert message.startswith(f"run_id: run {run_id}: is "), message

    in_process(desk, body)
    assert (built_ws.root / "run.json").read_bytes() == run_json


def test_an_invalid_edited_plan_is_refused_naming_the_plan(tmp_path, served_corpus):
    """At a real plan gate: an edit that breaks the plan's schema writes nothing and says so."""
    from harness.orchestrator.config import build_config
    from harness.orchestrator.lifecycle import start_run

    runs_dir = tmp_path / "runs"
    paused = start_run(build_config(FIXTURE_QUESTION, corpus=str(served_corpus), runs_dir=str(runs_dir)))
    assert paused.status == "awaiting_plan_approval"
    plan = json.loads((paused.run_dir / "plan.json").read_text())
    before = (paused.run_dir / "run.json").read_bytes()
    desk = open_desk(runs_dir, [str(tmp_path)], tmp_path)
    try:

        async def body(client):
            bad = {**plan, "questions": "none"}
            message = await call_error(
                client, "decide_plan", {"run_id": paused.run_dir.name, "decision": "edit", "plan": bad}
            )
            assert message.startswith("plan: "), message

        in_process(desk, body)
    finally:
        desk.close()
    assert (paused.run_dir / "run.json").read_bytes() == before


@pytest.fixture
def token_server(desk):
    """The HTTP app as `--host 0.0.0.0` builds it (a token required), served on 127.0.0.1 only."""
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(http_app(desk, "0.0.0.0", "s3cret-token"), log_level="warning", lifespan="on")
    )
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started and thread.is_alive():
        threading.Event().wait(0.05)
    yield f"http://127.0.0.1:{port}/mcp"
    server.should_exit = True
    thread.join(timeout=10)
    sock.close()


def test_a_non_loopback_host_needs_the_token_and_refuses_a_foreign_origin(token_server, built_ws):
    import httpx
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    hello = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    refused = httpx.post(token_server, json=hello)
    assert refused.status_code == 401 and "token is required" in refused.json()["error"]
    wrong = httpx.post(token_server, json=hello, headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401
    foreign = httpx.post(
        token_server, json=hello, headers={"Authorization": "Bearer s3cret-token", "Origin": "http://evil.example"}
    )
    assert foreign.status_code == 403 and "Origin" in foreign.json()["error"]

    async def main():
        async with httpx2.AsyncClient(headers={"Authorization": "Bearer s3cret-token"}) as http:
            async with Client(streamable_http_client(token_server, http_client=http)) as client:
                status = await call(client, "research_status", {"run_id": built_ws.run_id})
                assert status["run_id"] == built_ws.run_id

    anyio.run(main)


def test_on_loopback_a_foreign_host_name_is_refused(desk):
    from starlette.testclient import TestClient

    with TestClient(http_app(desk, "127.0.0.1", None), base_url="http://evil.example") as client:
        res = client.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert res.status_code == 403 and "loopback" in res.json()["error"]


def test_host_is_for_http_only(tmp_path):
    from harness.errors import UsageError
    from harness.surfaces.mcp_server import mcp_command

    with pytest.raises(UsageError, match=r"^--host: only with --http"):
        mcp_command(tmp_path / "runs", None, http=False, host="0.0.0.0", port=0)
    assert not (tmp_path / "runs").exists()  # refused before anything was made
