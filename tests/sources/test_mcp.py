"""MCP servers as sources, against a real MCP server each test starts (tests/fakes/mcp_docs_server.py, over
stdio, or over streamable HTTP on 127.0.0.1): the `mcp:` configuration and its one-line errors, the preflight
that names a server that cannot start or answers nothing, and every result registered as a source with its
provenance and injection flags. No mock stands in for the server."""

from __future__ import annotations

import json
import socket
import sys
import threading
from pathlib import Path

import pytest

from fakes import mcp_docs_server
from fakes.workspaces import make_plan
from harness.contract.policy import TOOLS
from harness.errors import PermissionRefused, UsageError
from harness.orchestrator.config import build_config, check_config
from harness.runtime.budget import Budget, DelegationBudget
from harness.runtime.context import open_context
from harness.runtime.interface import Brief
from harness.runtime.step import RunServices
from harness.sources.mcp import McpCallError, McpHub, McpServer, McpSources, canonical_arguments, servers_from_config
from harness.sources.registry import SourceRegistry
from harness.workspace.store import Workspace
from harness.workspace.validate import validate_workspace

SERVER = str(Path(mcp_docs_server.__file__))
START_TIMEOUT = 60.0  # a loaded machine takes seconds to start a Python server; only the hang case waits it out


def docs_server(*mode: str, timeout: float = START_TIMEOUT, name: str = "docs") -> McpServer:
    return McpServer(name, (sys.executable, SERVER, *mode), timeout=timeout)


@pytest.fixture(scope="module")
def hub():
    with McpHub.start([docs_server()]) as h:
        yield h


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    return Workspace.create(tmp_path / "runs", "How does asyncio.TaskGroup handle failures?")


# ---- configuration -----------------------------------------------------------------------------------------


def test_research_yaml_names_stdio_and_http_servers():
    data = {
        "mcp": {
            "servers": {
                "docs": {"command": ["python", "docs_server.py"], "env": ["DOCS_TOKEN"], "kind": "primary"},
                "tickets": {"url": "http://127.0.0.1:8765/mcp", "timeout": 5},
            }
        }
    }
    cfg = build_config("Q?", config_data=data)
    assert cfg.mcp == data["mcp"] and cfg.snapshot()["mcp"] == data["mcp"]  # run.json keeps it for resume
    docs, tickets = servers_from_config(cfg.mcp)
    assert (docs.name, docs.command, docs.url, docs.env, docs.kind) == (
        "docs",
        ("python", "docs_server.py"),
        None,
        ("DOCS_TOKEN",),
        "primary",
    )
    assert (tickets.url, tickets.command, tickets.kind, tickets.timeout) == (
        "http://127.0.0.1:8765/mcp",
        (),
        "secondary",
        5.0,
    )


@pytest.mark.parametrize(
    ("servers", "pointer"),
    [
        ({"docs": {"command": ["python", "s.py"], "url": "http://127.0.0.1:1/mcp"}}, "/mcp/servers/docs"),
        ({"docs": {}}, "/mcp/servers/docs"),
        ({"docs": {"command": []}}, "/mcp/servers/docs/command"),
        ({"docs": {"url": "ftp://example.org/mcp"}}, "/mcp/servers/docs/url"),
        ({"docs": {"command": ["python"], "kind": "tertiary"}}, "/mcp/servers/docs/kind"),
        ({"docs": {"command": ["python"], "headers": {}}}, "/mcp/servers/docs"),
        ({"Bad Name": {"command": ["python"]}}, "/mcp/servers"),
        ({}, "/mcp/servers"),
    ],
)
def test_a_bad_server_entry_fails_in_one_line_naming_the_field(servers, pointer):
    with pytest.raises(UsageError) as err:
        check_config({"mcp": {"servers": servers}}, "research.yaml")
    message = str(err.value)
    assert message.startswith(f"research.yaml: field {pointer}:") and "\n" not in message


# ---- preflight -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("server", "says"),
    [
        (McpServer("ghost", ("/nonexistent/mcp-server",)), "could not start or reach `/nonexistent/mcp-server`"),
        (docs_server("--exit", name="flaky"), "its last stderr line: docs server: no database configured, exiting"),
        (docs_server("--no-tools", name="empty"), "lists no tools"),
        (docs_server("--hang", timeout=1.0, name="stuck"), "did not answer within 1s"),
    ],
    ids=["bad-command", "exits", "no-tools", "hangs"],
)
def test_a_server_that_cannot_start_or_answers_nothing_fails_in_one_line_naming_it(server, says):
    with pytest.raises(UsageError) as err:
        McpHub.start([server])
    message = str(err.value)
    assert message.startswith(f"mcp server '{server.name}' (research.yaml mcp.servers.{server.name}):")
    assert says in message and "\n" not in message


def test_a_missing_environment_variable_is_named_before_the_server_starts(monkeypatch):
    monkeypatch.delenv("DOCS_TOKEN", raising=False)
    server = McpServer("docs", (sys.executable, SERVER), env=("DOCS_TOKEN",), timeout=START_TIMEOUT)
    with pytest.raises(UsageError, match=r"mcp server 'docs' .*environment variable DOCS_TOKEN .* is not set"):
        McpHub.start([server])


# ---- results as sources ----------------------------------------------------------------------------------


def test_the_hub_lists_the_servers_tools_under_model_safe_names(hub):
    (tool,) = hub.tools()
    assert (tool.server, tool.name, tool.qualified) == ("docs", "lookup_doc", "mcp_docs_lookup_doc")
    assert tool.input_schema["required"] == ["name"] and "Look up a short document" in tool.description


def test_a_result_is_registered_as_a_source_with_its_provenance(hub, ws):
    registry = SourceRegistry(ws)
    sources = McpSources(hub, registry)
    args = {"name": "taskgroup"}
    result = sources.call("mcp_docs_lookup_doc", args, question_id="Q1")

    assert result.new and result.text == mcp_docs_server.DOCS["taskgroup"]
    record = ws.read_json(f"sources/{result.source_id}.json", TOOLS)
    digest = record["mcp"]["arguments_sha256"]
    assert record["mcp"] == {"server": "docs", "tool": "lookup_doc", "arguments_sha256": digest, "arguments": args}
    assert canonical_arguments(args) == '{"name":"taskgroup"}'
    assert digest == __import__("hashlib").sha256(b'{"name":"taskgroup"}').hexdigest()
    assert record["path"] == f"mcp:docs/lookup_doc/{digest[:12]}" and record["origin"]["tool"] == "mcp"
    assert record["kind"] == "secondary" and record["flags"] == [] and record["retrieved_at"]
    assert record["title"] == 'docs/lookup_doc(name="taskgroup")'
    assert ws.read_text(f"sources/{result.source_id}.txt", TOOLS) == result.text
    assert validate_workspace(ws.root) == []

    # the same call (keys in any order) is the same source, its first answer kept
    again = sources.call("mcp_docs_lookup_doc", {"name": "taskgroup"}, question_id="Q2")
    assert (again.source_id, again.new, again.text) == (result.source_id, False, result.text)
    other = sources.call("mcp_docs_lookup_doc", {"name": "gather"}, question_id="Q1")
    assert other.source_id != result.source_id and registry.ids() == sorted([result.source_id, other.source_id])


def test_planted_instructions_in_a_result_are_flagged_like_any_source(hub, ws):
    result = McpSources(hub, SourceRegistry(ws)).call("mcp_docs_lookup_doc", {"name": "notice"})
    record = ws.read_json(f"sources/{result.source_id}.json", TOOLS)
    (flag,) = record["flags"]
    assert flag["reason"] == "override" and "Ignore all previous instructions" in flag["excerpt"]
    assert result.flags and result.flags[0]["offset"] == flag["offset"]


def test_a_tool_error_goes_back_to_the_caller_and_registers_nothing(hub, ws):
    registry = SourceRegistry(ws)
    with pytest.raises(McpCallError, match=r"mcp_docs_lookup_doc: the tool reported an error"):
        McpSources(hub, registry).call("mcp_docs_lookup_doc", {"name": "no-such-doc"})
    with pytest.raises(McpCallError, match=r"mcp_docs_nope: no such MCP tool"):
        McpSources(hub, registry).call("mcp_docs_nope", {})
    assert registry.ids() == [] and ws.list("sources/*", TOOLS) == []


def test_parallel_branches_call_one_session_concurrently(hub, ws):
    sources = McpSources(hub, SourceRegistry(ws))
    names = ["taskgroup", "gather", "notice"] * 3
    out: list[str] = []

    def one(name: str) -> None:
        out.append(sources.call("mcp_docs_lookup_doc", {"name": name}).source_id)

    threads = [threading.Thread(target=one, args=(n,)) for n in names]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert len(out) == len(names) and len(set(out)) == 3
    assert len(ws.list("sources/*.json", TOOLS)) == 3


# ---- streamable HTTP -------------------------------------------------------------------------------------


@pytest.fixture
def http_server():
    """The same server over streamable HTTP, served by uvicorn on 127.0.0.1 (a port the OS picks)."""
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(mcp_docs_server.http_app(), log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started and thread.is_alive():
        threading.Event().wait(0.05)
    yield f"http://127.0.0.1:{port}/mcp"
    server.should_exit = True
    thread.join(timeout=10)
    sock.close()


def test_a_streamable_http_server_is_a_source_too(http_server, ws):
    with McpHub.start([McpServer("remote", url=http_server, kind="primary", timeout=START_TIMEOUT)]) as hub:
        assert [t.qualified for t in hub.tools()] == ["mcp_remote_lookup_doc"]
        result = McpSources(hub, SourceRegistry(ws)).call("mcp_remote_lookup_doc", {"name": "gather"})
    record = ws.read_json(f"sources/{result.source_id}.json", TOOLS)
    assert record["mcp"]["server"] == "remote" and record["kind"] == "primary"
    assert ws.read_text(f"sources/{result.source_id}.txt", TOOLS) == mcp_docs_server.DOCS["gather"]
    assert json.loads(json.dumps(record))["path"].startswith("mcp:remote/lookup_doc/")


def test_an_http_url_nobody_serves_fails_in_one_line_naming_the_server():
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there now
    with pytest.raises(UsageError) as err:
        McpHub.start([McpServer("remote", url=f"http://127.0.0.1:{port}/mcp", timeout=20)])
    assert str(err.value).startswith("mcp server 'remote' (research.yaml mcp.servers.remote): ")
    assert "\n" not in str(err.value)


# ---- the `mcp` service: an explicit grant per plan question ------------------------------------------------


@pytest.mark.parametrize(
    ("allowed", "offered"),
    [(["corpus", "mcp:docs"], ["mcp_docs_lookup_doc"]), (["corpus"], []), (None, [])],
    ids=["names-the-server", "corpus-only", "no-allowed-sources"],
)
def test_only_a_question_that_names_the_server_gets_its_tools(hub, ws, specs, allowed, offered):
    plan = make_plan()
    if allowed is not None:
        plan["questions"][0]["allowed_sources"] = allowed
    ws.write("plan.json", plan, specs["planner"].policy)
    run = RunServices(mcp=McpSources(hub, SourceRegistry(ws)))

    def step(role: str):
        budget = DelegationBudget(Budget({}, {role: {}}), role, specs[role].limits, None)
        brief = Brief(role, task="Research Q1", outputs=("source-cards/q1-*.json",), question_id="Q1")
        return open_context(ws, specs[role], brief, engine="llm", model="m", run_id=ws.run_id, budget=budget, run=run)

    ctx = step("researcher")
    assert [t.qualified for t in ctx.services.mcp.allowed()] == offered
    if offered:
        result = ctx.services.mcp("mcp_docs_lookup_doc", {"name": "gather"})
        assert result.text == mcp_docs_server.DOCS["gather"] and ctx.budget.spent["searches"] == 1
    else:
        with pytest.raises(PermissionRefused, match=r"not mcp:docs; nothing was spent"):
            ctx.services.mcp("mcp_docs_lookup_doc", {"name": "gather"})
        assert ctx.budget.spent["searches"] == 0 and ws.list("sources/*", TOOLS) == []
    # a spec without `mcp` (every role but the Researcher) has no such service at all
    assert "mcp" not in step("analyst").services
