"""A run's lifecycle: the one module that starts and resumes runs.

`research run`, `research resume`, `research eval`, the LangGraph Server graph and the
public Python API (`harness.run`, `harness.resume`) all come through here:

- `create_run`: every check that can be made before any work (model keys, budget,
  corpus), then the new run folder;
- `reopen_run`: the checks a continued run gets (the workspace validates) and its
  configuration, rebuilt from run.json;
- `run_context`: the non-serializable objects the graph's nodes share (agents, tools,
  budget), rebuilt from run.json on every start and resume;
- `start_run` / `resume_run`: the above, then drive the graph until the run ends or stops
  at a human gate.

With an approver (a terminal, or a test's script) a gate is answered in-process; without
one the run pauses with status awaiting_*_approval, and `research approve` + `research
resume` continue it later. The checkpointer (SQLite in the workspace, or PostgreSQL) lets
a crashed or killed run resume where it stopped.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langgraph.types import Command

from harness.contract.options import flag_of
from harness.contract.specs import ROLES
from harness.contract.statuses import BUDGET_DIMENSIONS, BUDGET_EXHAUSTED, COMPLETED, TERMINAL_RUN_STATUSES, USD
from harness.errors import EXIT_INCOMPLETE, EXIT_OK, UsageError, WorkspaceError
from harness.orchestrator import followup
from harness.orchestrator.agents import build_agents, preflight
from harness.orchestrator.checkpoint import check_url, open_checkpointer
from harness.orchestrator.config import (
    RunConfig,
    check_limits,
    check_meaning_weights,
    config_from_snapshot,
    literature_providers,
    search_settings,
)
from harness.orchestrator.graph import build_graph, graph_config
from harness.orchestrator.live_run import LiveRun
from harness.orchestrator.nodes import Pipeline
from harness.runtime.budget import Budget
from harness.sources.corpus import Corpus, load_corpus
from harness.sources.index import CorpusIndex
from harness.sources.mcp import McpHub, McpSources, servers_from_config
from harness.sources.registry import KindRules, SourceRegistry
from harness.sources.research_tools import ResearchTools
from harness.workspace.store import Workspace
from harness.workspace.validate import validate_workspace

MIN_TOKENS_PER_LLM_ROLE = 20_000
Approver = Callable[[Workspace, dict[str, Any]], dict[str, Any]]


@dataclass
class RunResult:
    run_dir: Path
    status: str
    reason: str | None

    @property
    def exit_code(self) -> int:
        return EXIT_OK if self.status == COMPLETED else EXIT_INCOMPLETE


def check_budget_fits(cfg: RunConfig) -> None:
    """Refuse, before anything is spent, a budget too small for one pass of the pipeline (naming the limit's flag)."""
    b = cfg.budget
    llm_roles = [r for r, c in cfg.roles.items() if c.engine == "llm"]
    if llm_roles:
        if b.get("llm_calls") is not None and b["llm_calls"] < len(llm_roles):
            _too_small("llm_calls", f"(needs at least {len(llm_roles)}, one per llm role: {', '.join(llm_roles)})", b)
        # each model call reserves its prompt estimate plus the model's output cap (16k by default)
        if b.get("tokens") is not None and b["tokens"] < MIN_TOKENS_PER_LLM_ROLE * len(llm_roles):
            needs = MIN_TOKENS_PER_LLM_ROLE * len(llm_roles)
            _too_small("tokens", f"(needs at least {needs}, {MIN_TOKENS_PER_LLM_ROLE} per llm role)", b)
    if b.get("searches") is not None and b["searches"] < 1:
        _too_small("searches", "(the Researcher needs at least 1 search)", b)
    if b.get("wall_seconds") is not None and b["wall_seconds"] < 1:
        _too_small("wall_seconds", "", b)


def _too_small(dim: str, why: str, budget: dict[str, Any]) -> None:
    name = f"budget.{dim}"
    raise UsageError(f"{flag_of(name)} {budget[dim]}: too small for one pass{' ' + why if why else ''}", field=name)


def _corpus_summary(corpus: Corpus) -> dict[str, Any]:
    return {"name": corpus.name, "documents": len(corpus.documents), "passages": 0, "skipped": corpus.skipped}


def create_run(cfg: RunConfig, *, models: dict | None = None) -> tuple[Workspace, Corpus]:
    """Check everything that can be checked before any work (model keys unless `models` are given, budget,
    corpus), then create the run folder. A failed check leaves nothing behind."""
    if not models:
        preflight(cfg)
    check_budget_fits(cfg)
    corpus = load_corpus(cfg.corpus)
    check_meaning_weights(cfg, corpus)
    budget = {"limits": dict(cfg.budget), "spent": {}}
    return Workspace.create(cfg.runs_dir, cfg.question, config=cfg.snapshot(), budget=budget), corpus


def reopen_run(
    ws: Workspace,
    *,
    yes: bool = False,
    models: dict | None = None,
    check: bool = True,
    model_base_url: str | None = None,
) -> tuple[RunConfig, Corpus | None]:
    """The configuration of a run to continue, rebuilt from its run.json, and its corpus.

    Refuses (WorkspaceError) a workspace that does not validate when `check`: continuing over
    a hand-edited or corrupt run would build on what the guards never saw. A run started with
    --yes keeps approving its plan; `yes` adds that to a run started without it.
    """
    if check:
        problems = validate_workspace(ws.root)
        if problems:
            more = f" (+{len(problems) - 1} more; see research validate)" if len(problems) > 1 else ""
            raise WorkspaceError(f"refusing to resume over an invalid workspace: {problems[0]}{more}")
    m = ws.manifest
    cfg = config_from_snapshot(m["question"], m["config"], m["budget"]["limits"], model_base_url)
    cfg.yes = yes or cfg.yes
    cfg.runs_dir = ws.root.parent
    if not models:
        preflight(cfg)  # the endpoint answers now (a run interrupted by an outage waits until it does)
    moved = cfg.snapshot()["base_urls"]
    if moved != m["config"].get("base_urls", {}):
        ws.update_manifest(lambda man: man["config"].__setitem__("base_urls", moved))
        ws.trace("decision", agent="human", decision="endpoint_moved", detail={"base_urls": moved})
    corpus = load_corpus(cfg.corpus) if cfg.corpus else None
    check_meaning_weights(cfg, corpus)
    return cfg, corpus


def connect_mcp(cfg: RunConfig) -> McpHub | None:
    """The run's MCP servers, started (stdio) or reached (HTTP) with their tools listed, or None when it names
    none. A server that cannot be started or answers nothing in time fails here in one line naming it, before
    any work; the caller closes the hub when the run stops."""
    if not cfg.mcp:
        return None
    return McpHub.start(servers_from_config(cfg.mcp))


@contextmanager
def _mcp_for(cfg: RunConfig):
    hub = connect_mcp(cfg)
    try:
        yield hub
    finally:
        if hub is not None:
            hub.close()


def run_context(
    ws: Workspace,
    cfg: RunConfig,
    corpus: Corpus | None,
    events=None,
    models: dict | None = None,
    mcp: McpHub | None = None,
) -> LiveRun:
    """What the graph's nodes share besides its state: the agents, tools and budget, rebuilt from run.json.
    `mcp`: the run's connected MCP servers (`connect_mcp`); connected here when the run names some and none is
    given (the caller of such a context then owns `run.mcp.hub`)."""

    def persist(budget: Budget) -> None:
        ws.update_manifest(lambda m: m.__setitem__("budget", budget.snapshot()), check=False, durable=False)

    manifest = ws.manifest
    saved = manifest.get("budget") or {}
    role_limits = {r: dict(cfg.role_budgets.get(r, {})) for r in cfg.roles}
    budget = Budget(
        cfg.budget,
        role_limits,
        saved.get("spent"),
        {r: v.get("spent", {}) for r, v in (saved.get("roles") or {}).items()},
        persist,
    )
    registry = SourceRegistry(ws, KindRules.from_config(cfg.sources))
    tools = None
    if corpus is not None:
        index = CorpusIndex.build(corpus)
        known = (manifest.get("corpus") or {}).get("skipped")
        ws.update_manifest(lambda m: m.__setitem__("corpus", {**_corpus_summary(corpus), "passages": len(index)}))
        if corpus.skipped and corpus.skipped != known:  # named once per change, not at every resume
            ws.trace("decision", agent="harness", decision="corpus_files_skipped", detail={"files": corpus.skipped})
        tools = ResearchTools(index, registry)
    web = None
    if cfg.web or literature_providers(cfg):  # without --web: the literature providers and their papers alone
        from harness.sources.search import make_provider
        from harness.sources.web import WebTools

        web = WebTools(registry, search=make_provider(search_settings(cfg)), open_web=cfg.web, **cfg.fetch)
    if mcp is None and cfg.mcp:
        mcp = connect_mcp(cfg)
    sources = None
    if mcp is not None:
        sources = McpSources(mcp, registry)
    return LiveRun(
        ws,
        cfg,
        build_agents(cfg, models, sources, corpus),
        budget,
        registry,
        tools,
        web,
        events or (lambda _e: None),
        sources,
    )


@contextmanager
def _agents_prepared_ahead(run: LiveRun):
    """Compile the llm roles' agents on a background thread, in pipeline order, while the run goes on.

    Building a deepagents agent costs several ms a role; done ahead, it overlaps the first
    roles' waits on their models instead of delaying the later roles. An agent without
    `prepare`, or one that fails to prepare, is simply built by its delegation (which
    reports what failed).
    """

    def prepare_all() -> None:
        for role in ROLES:
            prepare = getattr(run.agents.get(role), "prepare", None)
            if prepare is not None:
                try:
                    prepare(run.workspace.root, run.run_id, run.config.roles[role].model)
                except Exception:
                    pass

    thread = threading.Thread(target=prepare_all, name="prepare-agents", daemon=True)
    thread.start()
    try:
        yield
    finally:
        thread.join()


def _drive(
    run: LiveRun,
    graph,
    gcfg: dict[str, Any],
    first_input: Any,
    approver: Approver | None,
    answers: dict[str, dict[str, Any]] | None = None,
) -> RunResult:
    """Invoke the graph until the run ends or waits at a gate nobody here can answer. `answers` answers a gate
    by name once (a resume with a raised budget answers the budget gate); `approver` answers plan and final gates."""
    answers = dict(answers or {})
    graph.invoke(first_input, gcfg)
    while True:
        snapshot = graph.get_state(gcfg)
        pending = [i for t in snapshot.tasks for i in t.interrupts]
        if not pending:
            break
        gate = pending[0].value.get("gate")
        if gate in answers:
            graph.invoke(Command(resume=answers.pop(gate)), gcfg)
        elif gate in ("budget", "outage") or approver is None:
            break  # paused at a gate: status is awaiting_*_approval, budget_exhausted or interrupted
        else:
            graph.invoke(Command(resume=approver(run.workspace, pending[0].value)), gcfg)
    m = run.workspace.manifest
    return RunResult(run.workspace.root, m["status"], m.get("status_reason"))


def start_run(
    cfg: RunConfig,
    *,
    approver: Approver | None = None,
    events=None,
    models: dict | None = None,
    on_created: Callable[[Workspace], None] | None = None,
    checkpoint_db: str | None = None,
    parent: Path | None = None,
) -> RunResult:
    """Check everything that can be checked, create the workspace, and drive the run.

    `checkpoint_db`: None keeps LangGraph's checkpoints in the workspace (SQLite); a
    postgresql:// URL keeps them in that database (see orchestrator/checkpoint.py).
    `parent`: the run this one follows up (`research ask`; see orchestrator/followup.py).
    """
    check_url(checkpoint_db)
    link = followup.parent_link(parent, cfg.runs_dir) if parent is not None else None
    with _mcp_for(cfg) as mcp:  # before any work: each MCP server starts and lists its tools, or the run stops here
        ws, corpus = create_run(cfg, models=models)
        ws.acquire_run_lock()
        try:
            if link is not None and parent is not None:
                ws.update_manifest(lambda m: m.__setitem__("parent", link))
                followup.carry_sources(ws, parent)
            if on_created:
                on_created(ws)
            with (
                run_context(ws, cfg, corpus, events, models, mcp) as run,
                open_checkpointer(ws, checkpoint_db) as saver,
            ):
                graph = build_graph(Pipeline(run), saver)
                with _agents_prepared_ahead(run):  # started last, so it does not slow the setup down
                    return _drive(run, graph, graph_config(ws.run_id, cfg.concurrency), {}, approver)
        finally:
            ws.release_run_lock()


def raise_budget(ws: Workspace, limits: dict[str, Any]) -> dict[str, Any]:
    """Set new run limits (from `research resume --budget-...`) in run.json; returns the limits that changed."""

    old = dict(ws.manifest["budget"]["limits"])
    new: dict[str, Any] = {k: v for k, v in limits.items() if v is not None and k in BUDGET_DIMENSIONS}
    check_limits(new)
    changed = {k: v for k, v in new.items() if old.get(k) != v}
    if changed:
        ws.update_manifest(lambda m: m["budget"]["limits"].update(changed))
        ws.trace(
            "decision",
            agent="human",
            decision="budget_raised",
            detail={"from": {k: old.get(k) for k in changed}, "to": changed},
        )
    return changed


def resume_run(
    run_dir: Path,
    *,
    yes: bool = False,
    budget: dict[str, Any] | None = None,
    approver: Approver | None = None,
    events=None,
    models: dict | None = None,
    on_opened: Callable[[Workspace], None] | None = None,
    checkpoint_db: str | None = None,
    model_base_url: str | None = None,
) -> RunResult:
    """Continue a paused, crashed, killed or interrupted run from its last checkpoint (in `checkpoint_db`, as started).

    `budget` raises the run's limits ({"llm_calls": 600, ...}); a run stopped by its budget goes on, with
    everything it had, at the step the budget cut. Without a raise it stays where it is. A run interrupted by a
    provider outage goes on at the step the outage cut, with its models built anew (`model_base_url`, else the
    run's own endpoints, else what the environment says now).
    """
    check_url(checkpoint_db)
    check_limits(budget or {})  # refused before the run is even opened
    ws = Workspace.open(run_dir)
    ws.acquire_run_lock()
    try:
        if on_opened:
            on_opened(ws)
        if ws.status in TERMINAL_RUN_STATUSES:
            return RunResult(ws.root, ws.status, ws.manifest.get("status_reason"))
        if budget and budget.get(USD) is not None:  # refused before run.json records a limit the run cannot keep
            m = ws.manifest
            limits = {**m["budget"]["limits"], USD: budget[USD]}
            config_from_snapshot(m["question"], m["config"], limits, model_base_url)
        raised = raise_budget(ws, budget or {})
        if ws.status == BUDGET_EXHAUSTED and not raised:
            reason = ws.manifest.get("status_reason") or "the run's budget is spent"
            return RunResult(ws.root, ws.status, f"{reason}; raise it with research resume {ws.root} --budget-...")
        cfg, corpus = reopen_run(ws, yes=yes, models=models, model_base_url=model_base_url)
        with (
            _mcp_for(cfg) as mcp,
            open_checkpointer(ws, checkpoint_db) as saver,  # refuses a run whose checkpoints are elsewhere
            run_context(ws, cfg, corpus, events, models, mcp) as run,  # closed (its web client too) when it stops
        ):
            ws.trace("resume", agent="harness", detail={"status": ws.status})
            graph = build_graph(Pipeline(run), saver)
            gcfg = graph_config(ws.run_id, cfg.concurrency)
            started = graph.get_state(gcfg).values or graph.get_state(gcfg).next
            with _agents_prepared_ahead(run):
                answers = {"budget": {"decision": "continue", "limits": raised}} if raised else {}
                answers["outage"] = {"decision": "continue"}  # the provider answers again: go on where it was cut
                return _drive(run, graph, gcfg, None if started else {}, approver, answers)
    finally:
        ws.release_run_lock()
