"""Checkpoints in PostgreSQL instead of the workspace's SQLite file (harness/orchestrator/checkpoint.py).

The PostgreSQL tests need a scratch database: set RESEARCH_TEST_PG_URL to its
postgresql:// URL (.ci/run starts a server on 127.0.0.1 and sets it). Each test works in
a schema of its own, dropped afterwards. The rest runs everywhere.
"""

from __future__ import annotations

import inspect
import json
import os
import secrets
import subprocess
import sys
import textwrap
import threading
from urllib.parse import quote

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver

from fakes.workspaces import FIXTURE_QUESTION
from harness.errors import UsageError, WorkspaceError
from harness.orchestrator.checkpoint import _bind_to_store, check_url, describe, open_checkpointer, redact
from harness.orchestrator.config import build_config
from harness.orchestrator.graph import build_graph, graph_config
from harness.orchestrator.lifecycle import run_context, start_run
from harness.orchestrator.nodes import Pipeline
from harness.sources.corpus import load_corpus
from harness.workspace.store import Workspace
from harness.workspace.validate import validate_workspace

PG_URL = os.environ.get("RESEARCH_TEST_PG_URL")
needs_pg = pytest.mark.skipif(
    not PG_URL,
    reason="RESEARCH_TEST_PG_URL is not set (the postgresql:// URL of a scratch "
    "database; .ci/run starts one on 127.0.0.1)",
)


# ---- what needs no database ---------------------------------------------------------------------


def test_no_url_is_the_workspace_sqlite_file_as_before(runs_dir):
    ws = Workspace.create(runs_dir, "q?")
    with open_checkpointer(ws, None) as saver:
        assert isinstance(saver, SqliteSaver)
    assert (ws.private_dir / "checkpoints.sqlite").is_file()
    assert json.loads((ws.private_dir / "checkpointer.json").read_text())["kind"] == "sqlite"
    with open_checkpointer(ws, "") as saver:  # an empty flag value means the same
        assert isinstance(saver, SqliteSaver)


@pytest.mark.parametrize(
    "url", ["mysql://u:secret@h/db", "sqlite:///x.db", "postgresql://u:secret@h:notaport/db", "localhost"]
)
def test_a_url_that_is_not_postgres_is_refused_without_its_password(url):
    with pytest.raises(UsageError, match="--checkpoint-db") as err:
        check_url(url)
    assert "secret" not in str(err.value)


def test_passwords_never_reach_messages_or_the_marker():
    assert redact("postgresql://me:s3cret@db.internal:5432/research") == "postgresql://me:***@db.internal:5432/research"
    assert "s3cret" not in redact("postgresql://me@h/db?sslmode=require&password=s3cret")
    assert describe("postgres://me:s3cret@h:5433/research") == {
        "kind": "postgres",
        "where": "postgresql://me@h:5433/research",
    }


def test_a_run_is_bound_to_the_store_that_holds_its_checkpoints(runs_dir):
    ws = Workspace.create(runs_dir, "q?")
    with open_checkpointer(ws, None):
        pass
    with pytest.raises(WorkspaceError, match="resume it with no --checkpoint-db"):
        _bind_to_store(ws, "postgresql://me:pw@h/db")
    other = Workspace.create(runs_dir, "q?")
    _bind_to_store(other, "postgresql://me:pw@h/db")
    with pytest.raises(WorkspaceError, match="resume it with --checkpoint-db postgresql://me@h/db"):
        _bind_to_store(other, None)
    assert "pw" not in (other.private_dir / "checkpointer.json").read_text()


def test_an_unreachable_database_fails_with_one_line(runs_dir):
    pytest.importorskip("langgraph.checkpoint.postgres")
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    ws = Workspace.create(runs_dir, "q?")
    with pytest.raises(WorkspaceError, match=r"cannot connect") as err:
        with open_checkpointer(ws, f"postgresql://me:s3cret@127.0.0.1:{port}/nope?connect_timeout=5"):
            pass
    assert "s3cret" not in str(err.value)
    assert not (ws.private_dir / "checkpointer.json").exists()  # nothing bound to a store it never reached


# ---- against a real PostgreSQL server -----------------------------------------------------------


@pytest.fixture
def pg_url():
    """A fresh schema in the scratch database; the URL selects it with search_path."""
    if not PG_URL:
        pytest.skip("RESEARCH_TEST_PG_URL is not set")
    try:
        import langgraph.checkpoint.postgres  # noqa: F401
        import psycopg
    except ImportError as exc:
        pytest.fail(f"RESEARCH_TEST_PG_URL is set but {exc.name} is missing: pip install -e '.[postgres]'")
    schema = f"t_{secrets.token_hex(6)}"
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    sep = "&" if "?" in PG_URL else "?"
    yield f"{PG_URL}{sep}options={quote(f'-csearch_path={schema}')}"
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def _rows(url: str, sql: str, *args):
    import psycopg

    with psycopg.connect(url) as conn:
        return conn.execute(sql, args).fetchall()


def _start_paused(cfg, url):
    """lifecycle.start_run with the checkpointer from open_checkpointer(ws, url), stopped at the plan gate."""
    corpus = load_corpus(cfg.corpus)
    ws = Workspace.create(
        cfg.runs_dir, cfg.question, config=cfg.snapshot(), budget={"limits": dict(cfg.budget), "spent": {}}
    )
    ws.acquire_run_lock()
    try:
        run = run_context(ws, cfg, corpus)
        with open_checkpointer(ws, url) as saver:
            graph = build_graph(Pipeline(run), saver)
            gcfg = graph_config(ws.run_id, cfg.concurrency)
            graph.invoke({}, gcfg)
            pending = [i.value for t in graph.get_state(gcfg).tasks for i in t.interrupts]
    finally:
        ws.release_run_lock()
    return ws, pending


# Run in a new Python process: nothing of the first graph, saver or connection survives there.
RESUME_SCRIPT = textwrap.dedent("""
    import json, sys
    from langgraph.types import Command
    from harness.orchestrator.config import config_from_snapshot
    from harness.orchestrator.checkpoint import open_checkpointer
    from harness.orchestrator.graph import build_graph
    from harness.orchestrator.nodes import Pipeline
    from harness.orchestrator.graph import graph_config
    from harness.orchestrator.lifecycle import run_context
    from harness.sources.corpus import load_corpus
    from harness.workspace.store import Workspace

    ws = Workspace.open(sys.argv[1])
    ws.acquire_run_lock()
    m = ws.manifest
    cfg = config_from_snapshot(m["question"], m["config"], m["budget"]["limits"])
    cfg.runs_dir = ws.root.parent
    run = run_context(ws, cfg, load_corpus(cfg.corpus))
    with open_checkpointer(ws, sys.argv[2]) as saver:
        graph = build_graph(Pipeline(run), saver)
        gcfg = graph_config(ws.run_id, cfg.concurrency)
        state = graph.get_state(gcfg)
        found = [i.value for t in state.tasks for i in t.interrupts]
        graph.invoke(Command(resume={"decision": "approve", "by": "second-process"}), gcfg)
        left = [i.value for t in graph.get_state(gcfg).tasks for i in t.interrupts]
    ws.release_run_lock()
    print(json.dumps({"found": found, "next": list(state.next), "left": left, "status": Workspace.open(sys.argv[1]).status}))
""")


@needs_pg
def test_a_run_paused_at_the_plan_gate_resumes_from_postgres_in_a_new_process(pg_url, fixture_corpus, tmp_path):
    cfg = build_config(FIXTURE_QUESTION, corpus=str(fixture_corpus), runs_dir=str(tmp_path / "runs"), yes=False)
    ws, pending = _start_paused(cfg, pg_url)
    assert [p["gate"] for p in pending] == ["plan"]
    assert ws.status == "awaiting_plan_approval"
    assert not (ws.private_dir / "checkpoints.sqlite").exists()
    assert json.loads((ws.private_dir / "checkpointer.json").read_text())["kind"] == "postgres"
    # the pause lives in Postgres, under the run id as thread id
    assert _rows(pg_url, "SELECT count(*) FROM checkpoints WHERE thread_id = %s", ws.run_id)[0][0] > 0

    proc = subprocess.run(
        [sys.executable, "-c", RESUME_SCRIPT, str(ws.root), pg_url],
        capture_output=True,
        text=True,
        timeout=600,
        env=os.environ.copy(),
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["next"] == ["approve_plan"] and [f["gate"] for f in out["found"]] == ["plan"]  # read back from Postgres
    assert out["left"] == [] and out["status"] == "completed"

    root = ws.root
    assert validate_workspace(root) == []
    assert (root / "final-report.md").is_file()
    plan = json.loads((root / "plan.json").read_text())
    assert plan["approval"]["by"] == "second-process"
    assert not (ws.private_dir / "checkpoints.sqlite").exists()
    planner_runs = [json.loads(line) for line in (root / "trace.jsonl").read_text().splitlines()]
    assert sum(1 for e in planner_runs if e["event"] == "delegation" and e["agent"] == "planner") == 1  # nothing re-run
    # reopening the run against the workspace's SQLite file would start it over: refused
    with pytest.raises(WorkspaceError, match="checkpoints are in postgres"):
        with open_checkpointer(Workspace.open(root), None):
            pass


@needs_pg
def test_many_runs_share_one_database_and_setup_is_safe_to_race(pg_url, runs_dir):
    """Fresh schema, four processes' worth of first opens at once: setup() runs under an advisory lock."""
    workspaces = [Workspace.create(runs_dir, f"question {i}?") for i in range(4)]
    errors: list[BaseException] = []
    barrier = threading.Barrier(len(workspaces))

    def open_one(ws):
        try:
            barrier.wait()
            with open_checkpointer(ws, pg_url) as saver:
                saver.put(
                    {"configurable": {"thread_id": ws.run_id, "checkpoint_ns": ""}},
                    {
                        "v": 1,
                        "id": f"00000000-0000-0000-0000-{secrets.token_hex(6)}",
                        "ts": "2026-11-30T00:00:00+00:00",
                        "channel_values": {},
                        "channel_versions": {},
                        "versions_seen": {},
                    },
                    {"source": "input", "step": -1},
                    {},
                )
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=open_one, args=(ws,)) for ws in workspaces]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert errors == []
    threads_in_db = {r[0] for r in _rows(pg_url, "SELECT DISTINCT thread_id FROM checkpoints")}
    assert threads_in_db == {ws.run_id for ws in workspaces}


@needs_pg
def test_the_runner_takes_a_checkpoint_db_url(pg_url, fixture_corpus, tmp_path):
    """lifecycle.start_run/resume_run take checkpoint_db (see docs/scale-out.md): the CLI path is covered too."""
    from harness.orchestrator import lifecycle

    if "checkpoint_db" not in inspect.signature(start_run).parameters:
        pytest.skip("lifecycle.start_run does not take checkpoint_db yet")
    cfg = build_config(FIXTURE_QUESTION, corpus=str(fixture_corpus), runs_dir=str(tmp_path / "runs"), yes=False)
    paused = start_run(cfg, approver=None, checkpoint_db=pg_url)
    assert paused.status == "awaiting_plan_approval"
    assert not (paused.run_dir / ".harness" / "checkpoints.sqlite").exists()
    done = lifecycle.resume_run(
        paused.run_dir, approver=lambda ws, p: {"decision": "approve", "by": "runner"}, checkpoint_db=pg_url
    )
    assert done.status == "completed"
    assert validate_workspace(paused.run_dir) == []


@needs_pg
def test_one_writer_per_run_across_processes_through_a_database_lock(pg_url, runs_dir):
    ws = Workspace.create(runs_dir, "q?")
    with open_checkpointer(ws, pg_url):
        # another machine opening the same run (its own Workspace object and connection) is refused
        with pytest.raises(WorkspaceError, match="already being worked on"):
            with open_checkpointer(Workspace.open(ws.root), pg_url):
                pass
        other = Workspace.create(runs_dir, "another question?")
        with open_checkpointer(other, pg_url):  # other runs are not held up
            pass
    with open_checkpointer(Workspace.open(ws.root), pg_url):  # released when the first closed
        pass
