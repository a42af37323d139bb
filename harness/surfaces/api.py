"""The Python API: run, resume, approve, validate and open a run from code, as the command line does.

Everything here goes through the same entry points as `research` (`orchestrator.lifecycle`
for runs, `orchestrator.approvals` for decisions, `workspace.validate` and the read-only
`RunReader`), so a run started from Python leaves the same auditable folder. Import it as
`harness`: `harness.run(...)`, `harness.open_run(...)`.
"""

from __future__ import annotations

import getpass
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness.contract.options import RunOptions
from harness.errors import Problem
from harness.evidence.audit import validate_run
from harness.orchestrator.approvals import record_decision
from harness.orchestrator.config import DEFAULT_CORPUS, build_config
from harness.orchestrator.lifecycle import RunResult, resume_run, start_run
from harness.workspace.reader import RunReader, open_run

__all__ = ["RunReader", "RunResult", "approve", "open_run", "resume", "run", "validate"]


def run(
    question: str,
    *,
    corpus: str | Path = DEFAULT_CORPUS,
    agents: dict[str, Any] | None = None,
    config: str | Path | dict[str, Any] | None = None,
    runs_dir: str | Path = "runs",
    engine: str | None = None,
    model: str | None = None,
    model_base_url: str | None = None,
    yes: bool = True,
    max_revisions: int | None = None,
    concurrency: int | None = None,
    budget: dict[str, Any] | None = None,
    web: bool | None = None,
    search: str | None = None,
    search_url: str | None = None,
    web_allow_private: bool | None = None,
    web_robots: bool | None = None,
    language: str | None = None,
    citation_style: str | None = None,
    require_final_approval: bool | None = None,
    checkpoint_db: str | None = None,
    approver: Callable[[Any, dict[str, Any]], dict[str, Any]] | None = None,
    events: Callable[[dict[str, Any]], None] | None = None,
) -> RunResult:
    """Start a run and drive it until it ends or pauses at a human gate; returns where it is and how it ended.

    - `corpus`: a folder of documents, or "python-docs" (built in).
    - `agents`: per role, "offline" | "llm" | a spec file path | "python:module:Class" — or any object
      with `run(brief, ctx) -> AgentResult` (see `harness.Agent`), used as that role's agent.
    - `config`: a research.yaml path, or a dict of the same shape (validated against config.schema.json).
    - `yes`: approve the plan without asking (False: the run pauses at `awaiting_plan_approval`
      unless `approver` answers the gate).
    - `concurrency`: research branches at once (default 4).
    - `budget`: run limits, e.g. {"llm_calls": 200, "searches": 100}.
    - `model_base_url`, `web`, `search`, `search_url`, `web_allow_private`, `web_robots`, `language`,
      `citation_style` and `require_final_approval` are the flags of the same names (`web_robots=False` is
      `--web-ignore-robots`). Every option is a field of `RunOptions` (harness/contract/options.py), whose
      metadata gives its flag and help; a test holds these parameters equal to its fields.
    - `checkpoint_db`: a postgresql:// URL to keep LangGraph's checkpoints in (needs the 'postgres'
      extra); None keeps them in the workspace's SQLite file. `resume` must be given the same.

    Bad input raises `harness.HarnessError` (a one-line `UsageError`) before any work.
    """
    flags = [f"{role}={value}" for role, value in (agents or {}).items() if isinstance(value, str)]
    objects = {role: value for role, value in (agents or {}).items() if not isinstance(value, str)}
    options = RunOptions(
        question,
        corpus=str(corpus),
        runs_dir=str(runs_dir),
        engine=engine,
        model=model,
        model_base_url=model_base_url,
        agents=flags,
        config=Path(config) if isinstance(config, (str, Path)) else None,
        yes=yes,
        max_revisions=max_revisions,
        concurrency=concurrency,
        budget=budget,
        require_final_approval=require_final_approval,
        web=web,
        web_allow_private=web_allow_private,
        web_robots=web_robots,
        search=search,
        search_url=search_url,
        language=language,
        citation_style=citation_style,
        checkpoint_db=checkpoint_db,
    )
    cfg = build_config(options, config_data=config if isinstance(config, dict) else None, agent_objects=objects)
    return start_run(cfg, approver=approver, events=events, checkpoint_db=checkpoint_db)


def resume(
    run_dir: str | Path,
    *,
    yes: bool = False,
    budget: dict[str, Any] | None = None,
    checkpoint_db: str | None = None,
    model_base_url: str | None = None,
    approver: Callable[[Any, dict[str, Any]], dict[str, Any]] | None = None,
    events: Callable[[dict[str, Any]], None] | None = None,
) -> RunResult:
    """Continue a paused, crashed or killed run from its last checkpoint (`research resume`).

    `budget` raises the run's limits (a run stopped by its budget goes on where it was cut);
    `checkpoint_db` is the database the run was started with, if any; `model_base_url` points the run's
    llm roles at a new endpoint (`research resume --model-base-url`).
    """
    return resume_run(
        Path(run_dir),
        yes=yes,
        budget=budget,
        approver=approver,
        events=events,
        checkpoint_db=checkpoint_db,
        model_base_url=model_base_url,
    )


def approve(
    run_dir: str | Path,
    *,
    plan: bool = False,
    plan_text: str | None = None,
    reject: str | None = None,
    final_version: str | None = None,
    by: str | None = None,
) -> str:
    """Record a human decision on a paused run (`research approve`); returns what was recorded.

    `plan=True` approves the pending plan (or approves `plan_text`, an edited plan.json, or rejects it
    with the feedback `reject`); `final_version=SHA` signs off the passing draft with that sha256.
    """
    return record_decision(
        run_dir, plan=plan, plan_text=plan_text, reject=reject, final_version=final_version, by=by or getpass.getuser()
    )


def validate(run_dir: str | Path) -> list[Problem]:
    """Every schema and cross-file problem of a run folder (`research validate`); empty when it is clean."""
    return validate_run(Path(run_dir))
