"""The research graph as LangGraph Server serves it (`langgraph dev`, `langgraph up`; see langgraph.json).

The server owns persistence: it hands the graph its own checkpointer and keeps one
thread per research run. So this graph is built without our SQLite checkpointer, and its
input is a request, not a workspace:

    {"question": "...", "corpus": "python-docs" | "/path/to/folder", "runs_dir": "runs",
     "engine"?: "offline" | "llm", "model"?: "...", "agents"?: ["writer=llm", ...],
     "max_revisions"?: 2, "concurrency"?: 4, "budget"?: {...}, "yes"?: false,
     "require_final_approval"?: false, "web"?: false, "search"?: "arxiv,openalex",
     "language"?: "fr", "citation_style"?: "ieee"}

Two nodes:

- `open_run` checks the request like `research run` does (flags, budget, corpus, model
  keys; `lifecycle.create_run`) and creates the workspace once; the thread's state then
  holds its run id and path, so every later invocation of the thread reopens the same workspace.
- `pipeline` reopens the workspace, takes its run lock, rebuilds the configuration and the
  non-serializable LiveRun (agents, tools, budget) from run.json exactly as `research
  resume` does (`lifecycle.reopen_run`, `lifecycle.run_context`), and runs the parent graph
  of `graph.py` — the same nodes — as a subgraph compiled with no checkpointer, so it
  checkpoints into the server's store under this node's namespace.
  The context is rebuilt on every invocation (a start, each resume) rather than cached
  across them: a run paused for hours may be resumed by another worker or machine, and
  the workspace on disk, not a process's memory, is the truth. What is costly to rebuild
  (the corpus and its BM25 index) is already cached per process by `load_corpus` and
  on disk by content hash.

Human gates are the graph's own `interrupt`s: a run stops with an interrupt whose value
is `{"gate": "plan", "path": "plan.json", "plan_sha256": ...}` (or `{"gate": "final", ...}`)
and is continued through the server's API with `Command(resume={"decision": "approve"})`
(or `{"decision": "reject", "feedback": "..."}`, or `{"decision": "edit", "plan_text": ...}`).
A run stopped by its budget or cut by a provider outage waits at `{"gate": "budget"}` or
`{"gate": "outage"}`; `Command(resume={"decision": "continue"})` goes on at the step it cut.
The run's status, reason and final report path are the graph's output (while a run is
paused, the thread's `interrupts` say so; `status` in its values is refreshed when the
pipeline node returns). Requests are read like `research run`'s flags, over
./research.yaml of the server's working directory when there is one; an assistant's
`configurable` may set the same options (a request's own value wins), as in open_deep_research.

With no model configured and no GOOGLE_API_KEY every role runs offline, as on the CLI.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, TypedDict

from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph

from harness.contract.options import RunOptions
from harness.contract.statuses import TERMINAL_RUN_STATUSES
from harness.errors import UsageError
from harness.orchestrator.checkpoint import bind_to_server
from harness.orchestrator.config import build_config
from harness.orchestrator.graph import build_graph, graph_config
from harness.orchestrator.lifecycle import create_run, reopen_run, run_context
from harness.orchestrator.nodes import Pipeline
from harness.workspace.store import Workspace

DEFAULT_RUNS_DIR_ENV = "RESEARCH_RUNS_DIR"  # where runs go when a request names no runs_dir


class ResearchRequest(TypedDict, total=False):
    """What a client sends to start a run (only `question` is required): the run options whose metadata lets a
    request carry them (contract/options.py `request_fields`; a test holds these keys and types equal to them).
    LangGraph reads this class for the graph's input schema, so it is written out, not generated."""

    question: str
    corpus: str
    runs_dir: str
    engine: str
    model: str
    agents: list[str]
    yes: bool
    max_revisions: int
    concurrency: int
    budget: dict[str, Any]
    require_final_approval: bool
    web: bool
    search: str
    language: str
    citation_style: str


class ResearchResult(TypedDict, total=False):
    """What a run reports back: where its workspace is and how it ended (or where it paused)."""

    run_id: str
    run_dir: str
    status: str
    status_reason: str | None
    final_report: str | None


class ServerState(ResearchRequest, ResearchResult, total=False):
    pass


def _config_from_request(req: Mapping[str, Any], config: RunnableConfig | None = None):
    """The run's configuration from a request, read like `research run`'s flags: the request's own fields over the
    assistant's `configurable` ones (`RunOptions.from_runnable_config`); the server's other state is not an option."""
    question = req.get("question")
    if not isinstance(question, str) or not question.strip():
        raise UsageError("question: the request must carry a non-empty question", field="question")
    options = RunOptions.from_runnable_config(req, config)
    runs_dir = options.runs_dir or os.environ.get(DEFAULT_RUNS_DIR_ENV) or "runs"
    options = replace(options, runs_dir=str(runs_dir), agents=list(options.agents or []), yes=bool(options.yes))
    cfg = build_config(options)
    cfg.runs_dir = Path(cfg.runs_dir).resolve()
    return cfg


def _result(ws: Workspace) -> ResearchResult:
    m = ws.manifest
    return {
        "run_id": ws.run_id,
        "run_dir": str(ws.root),
        "status": m["status"],
        "status_reason": m.get("status_reason"),
        "final_report": m.get("final_report"),
    }


def _thread_id(config: RunnableConfig) -> str:
    return str((config.get("configurable") or {}).get("thread_id") or "?")


def open_run(state: ServerState, config: RunnableConfig) -> ResearchResult:
    """Create the run's workspace on the thread's first invocation; later ones find it in the state."""
    if state.get("run_dir"):
        return {}
    ws, _corpus = create_run(_config_from_request(state, config))  # a bad request fails here, before a workspace exists
    bind_to_server(ws, _thread_id(config))  # so `research resume` refuses it instead of starting it over
    return _result(ws)


def _events():
    """Progress events go to the server's `custom` stream mode (silently dropped outside a server run)."""
    try:
        from langgraph.config import get_stream_writer

        writer = get_stream_writer()
    except Exception:  # noqa: BLE001 - no runnable context: nobody is listening
        return lambda _event: None

    def emit(event: dict[str, Any]) -> None:
        try:
            writer(event)
        except Exception:  # noqa: BLE001 - progress display must never fail a run
            pass

    return emit


def pipeline(state: ServerState, config: RunnableConfig) -> ResearchResult:
    """Run (or continue) the research pipeline on the thread's workspace, under its run lock."""
    ws = Workspace.open(state["run_dir"])
    ws.acquire_run_lock()  # taking it also finishes or rolls back writes a crash interrupted
    try:
        bind_to_server(ws, _thread_id(config))  # this thread's run, not one another store holds
        if ws.status in TERMINAL_RUN_STATUSES:
            return _result(ws)
        # reopened mid-run: the same check as `research resume`
        cfg, corpus = reopen_run(ws, check=ws.status != "created")
        with run_context(ws, cfg, corpus, _events()) as run:  # closed (its web client too) when the pipeline stops
            # No checkpointer of its own: invoked inside this node, the subgraph checkpoints into
            # the server's store, and a resume of the thread resumes it where it stopped.
            steps = build_graph(Pipeline(run))
            steps.invoke({}, graph_config(None, cfg.concurrency))
        return _result(ws)
    finally:
        ws.release_run_lock()


def make_graph():
    """The graph factory named in langgraph.json: compiled without a checkpointer (the server brings its own)."""
    g = StateGraph(ServerState, input_schema=ResearchRequest, output_schema=ResearchResult)
    g.add_node("open_run", open_run)
    g.add_node("pipeline", pipeline)
    g.add_edge(START, "open_run")
    g.add_edge("open_run", "pipeline")
    g.add_edge("pipeline", END)
    return g.compile(name="research")
