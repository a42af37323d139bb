"""The research graph under LangGraph Server: the factory in-process, then `langgraph dev` over HTTP.

The HTTP test starts `langgraph dev` on 127.0.0.1 (no browser, no reload, no analytics, no
tracing, no version check: nothing leaves the machine), drives one offline run through
the server's API — start, stop at the plan gate, resume with an approval — and checks the
workspace it leaves.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from fakes.workspaces import FIXTURE_QUESTION
from harness.errors import WorkspaceError
from harness.orchestrator.checkpoint import open_checkpointer
from harness.surfaces.langgraph_server import make_graph
from harness.workspace.store import Workspace
from harness.workspace.validate import validate_workspace

REPO = Path(__file__).resolve().parents[2]
START_TIMEOUT = 120  # seconds for `langgraph dev` to answer /ok
RUN_TIMEOUT = 300  # seconds for one offline run to reach the gate, or the end


def _request(corpus: Path, runs: Path, **extra) -> dict:
    return {"question": FIXTURE_QUESTION, "corpus": str(corpus), "runs_dir": str(runs), **extra}


# ---- the factory, in-process (what the server calls), with a stand-in for the server's store ----


def test_factory_graph_has_no_checkpointer_of_its_own():
    assert make_graph().checkpointer is None


def test_factory_graph_pauses_at_the_plan_gate_and_resumes_to_a_valid_workspace(fixture_corpus, tmp_path):
    graph = make_graph().builder.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t-1"}}
    first = graph.invoke(_request(fixture_corpus, tmp_path / "runs"), cfg)
    [gate] = first["__interrupt__"]
    assert gate.value["gate"] == "plan" and gate.value["path"] == "plan.json"
    root = Path(first["run_dir"])
    assert root.parent == (tmp_path / "runs").resolve()
    assert not (root / ".harness" / "checkpoints.sqlite").exists()  # the server's store holds the checkpoints
    assert '"status": "awaiting_plan_approval"' in (root / "run.json").read_text()
    # `research resume` (the runner opens checkpoints with open_checkpointer) cannot continue it
    # from an empty SQLite file, which would start the run over
    with pytest.raises(WorkspaceError, match="continue it through the LangGraph Server"):
        with open_checkpointer(Workspace.open(root), None):
            pass

    # a fresh graph object (as another server worker would build) continues the same thread
    graph2 = make_graph().builder.compile(checkpointer=graph.checkpointer)
    done = graph2.invoke(Command(resume={"decision": "approve", "by": "reviewer@test"}), cfg)
    assert done["status"] == "completed", done
    assert done["run_id"] == first["run_id"] and done["final_report"] == "final-report.md"
    assert validate_workspace(root) == []
    assert (root / "final-report.md").is_file()
    assert '"by": "reviewer@test"' in (root / "plan.json").read_text()
    # one workspace per thread: resuming created no second run
    assert [p.name for p in (tmp_path / "runs").iterdir() if not p.name.startswith(".")] == [root.name]


def test_factory_graph_takes_a_rejection_with_feedback_then_an_approval(fixture_corpus, tmp_path):
    graph = make_graph().builder.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t-reject"}}
    first = graph.invoke(_request(fixture_corpus, tmp_path / "runs"), cfg)
    [gate1] = first["__interrupt__"]
    again = graph.invoke(Command(resume={"decision": "reject", "feedback": "Also compare their licences."}), cfg)
    [gate2] = again["__interrupt__"]  # the Planner refined the plan: a new gate, for a new plan
    assert gate2.value["gate"] == "plan" and gate2.value["plan_sha256"] != gate1.value["plan_sha256"]
    done = graph.invoke(Command(resume={"decision": "approve"}), cfg)
    assert done["status"] == "completed"
    assert validate_workspace(Path(done["run_dir"])) == []


def test_factory_graph_with_yes_runs_through_and_a_bad_request_fails_clearly(fixture_corpus, tmp_path):
    graph = make_graph().builder.compile(checkpointer=InMemorySaver())
    out = graph.invoke(_request(fixture_corpus, tmp_path / "runs", yes=True), {"configurable": {"thread_id": "t-yes"}})
    assert out["status"] == "completed" and "__interrupt__" not in out
    with pytest.raises(Exception, match="question"):
        graph.invoke({"question": "  ", "runs_dir": str(tmp_path / "runs")}, {"configurable": {"thread_id": "t-bad"}})
    with pytest.raises(Exception, match="max-revisions"):
        graph.invoke(
            _request(fixture_corpus, tmp_path / "runs", max_revisions=-1), {"configurable": {"thread_id": "t-bad2"}}
        )


# ---- `langgraph dev` over HTTP ------------------------------------------------------------------


def _langgraph_cli() -> str | None:
    if importlib.util.find_spec("langgraph_cli") is None or importlib.util.find_spec("langgraph_api") is None:
        return None
    exe = Path(sys.executable).parent / "langgraph"
    return str(exe) if exe.is_file() else shutil.which("langgraph")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _offline_env(tmp_path: Path) -> dict[str, str]:
    """The server's environment: no keys, no tracing, no analytics, no version check."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("LANGSMITH_", "LANGCHAIN_", "LANGGRAPH_", "GOOGLE_", "GEMINI_", "OPENAI_", "ANTHROPIC_"))
    }
    env.update(
        {
            "LANGGRAPH_CLI_NO_ANALYTICS": "1",
            "LANGGRAPH_NO_VERSION_CHECK": "true",
            "LANGSMITH_TRACING": "false",
            "LANGCHAIN_TRACING_V2": "false",
            "DO_NOT_TRACK": "1",
            "PYTHONUNBUFFERED": "1",
            "RESEARCH_CACHE_DIR": os.environ.get("RESEARCH_CACHE_DIR", str(tmp_path / "cache")),
        }
    )
    return env


@pytest.fixture
def dev_server(tmp_path):
    cli = _langgraph_cli()
    if cli is None:
        pytest.skip("langgraph-cli[inmem] is not installed (pip install 'research-harness[server]')")
    port = _free_port()
    home = tmp_path / "server"  # the in-memory server keeps its .langgraph_api/ here, not in the repo
    home.mkdir()
    log = (tmp_path / "server.log").open("wb")
    proc = subprocess.Popen(
        [
            cli,
            "dev",
            "--config",
            str(REPO / "langgraph.json"),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--no-browser",
            "--no-reload",
        ],
        cwd=home,
        env=_offline_env(tmp_path),
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        import httpx

        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if proc.poll() is not None:
                pytest.fail(
                    f"langgraph dev exited with {proc.returncode}:\n{(tmp_path / 'server.log').read_text()[-3000:]}"
                )
            try:
                if httpx.get(f"{base}/ok", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(
                    f"langgraph dev did not answer in {START_TIMEOUT}s:\n{(tmp_path / 'server.log').read_text()[-3000:]}"
                )
            time.sleep(0.5)
        yield base
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=20)
        log.close()


def test_langgraph_dev_serves_the_graph_with_plan_approval_over_http(dev_server, fixture_corpus, tmp_path):
    from langgraph_sdk import get_sync_client

    client = get_sync_client(url=dev_server, api_key=None, timeout=RUN_TIMEOUT)
    assert [a["graph_id"] for a in client.assistants.search(graph_id="research")] == ["research"]
    thread = client.threads.create()
    tid = thread["thread_id"]

    # start: the run stops at the plan gate
    first = client.runs.wait(tid, "research", input=_request(fixture_corpus, tmp_path / "runs"))
    state = client.threads.get_state(tid)
    assert client.threads.get(tid)["status"] == "interrupted"
    [gate] = state["interrupts"]
    assert gate["value"]["gate"] == "plan" and len(gate["value"]["plan_sha256"]) == 64
    root = Path(state["values"]["run_dir"])
    assert first["run_dir"] == str(root)
    assert '"status": "awaiting_plan_approval"' in (root / "run.json").read_text()

    # resume: approve the plan through the server's interrupt API, watching progress as it streams
    statuses, done = [], None
    for part in client.runs.stream(
        tid,
        "research",
        command={"resume": {"decision": "approve", "by": "http-client"}},
        stream_mode=["custom", "values"],
    ):
        if part.event == "custom" and part.data.get("event") == "status":
            statuses.append(part.data["status"])
        elif part.event == "values":
            done = part.data
        assert part.event != "error", part.data
    assert statuses and statuses[-1] == "completed"
    assert {"researching", "analyzing", "writing", "reviewing"} <= set(statuses)
    assert done["status"] == "completed", done
    assert done["final_report"] == "final-report.md"
    assert client.threads.get(tid)["status"] == "idle"
    assert validate_workspace(root) == []
    assert (root / "final-report.md").is_file()
    assert '"by": "http-client"' in (root / "plan.json").read_text()
    assert not (root / ".harness" / "checkpoints.sqlite").exists()
