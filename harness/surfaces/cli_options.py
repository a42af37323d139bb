"""The `research` command line's options that are declared once: the options several commands share, and `run`'s
many options, each an `Annotated` alias (cli.py stays a list of commands).

A run option's flag, help line, `--help` panel and environment variable are its metadata in `RunOptions`
(contract/options.py), read here by `_run_option`; tests/contract/test_options.py holds `run`'s options equal to
the model (one option a field, the same flag and help)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from harness.contract.options import APPROVALS, BUDGET, MODEL, OUTPUT, SOURCES, WEB, option_of

# The panels `--help` groups options into (the run options' own), named here for cli.py and the help tests.
__all__ = [
    "APPROVALS",
    "BUDGET",
    "MODEL",
    "OUTPUT",
    "SOURCES",
    "WEB",
    "Agent",
    "BudgetLlmCalls",
    "BudgetSearches",
    "BudgetSeconds",
    "BudgetTokens",
    "BudgetUsd",
    "CheckpointDb",
    "CitationStyle",
    "Concurrency",
    "ConfigFile",
    "CorpusOpt",
    "Engine",
    "JsonEvents",
    "Language",
    "MaxRevisions",
    "Model",
    "ModelBaseUrl",
    "NoFinalApproval",
    "Question",
    "Quiet",
    "RequireFinalApproval",
    "RunsDir",
    "Search",
    "SearchUrl",
    "Web",
    "WebAllowPrivate",
    "WebIgnoreRobots",
    "Yes",
]


def _run_option(name: str, off: bool = False) -> Any:
    """The Typer option of one run option, from its metadata: its flag (with its `--no-` flag when the two make one
    option), short name, help, `--help` panel and environment variable. `off`: the option of its `--no-` flag,
    when that flag is an option of its own (--no-final-approval: a pair's second name takes a column of its own
    at 80 columns)."""
    o = option_of(name)
    if off:
        return typer.Option(str(o.off), help=o.off_help, rich_help_panel=o.panel)
    decls = [f"{o.flag}/{o.off}" if o.off and not o.off_help else str(o.flag), *([o.short] if o.short else [])]
    return typer.Option(*decls, help=o.help, rich_help_panel=o.panel, envvar=o.envvar)


# Options `run` and `resume` share.
CheckpointDb = Annotated[str | None, _run_option("checkpoint_db")]
ModelBaseUrl = Annotated[str | None, _run_option("model_base_url")]
Quiet = Annotated[
    bool, typer.Option("--quiet", help="No progress display; print only the result.", rich_help_panel=OUTPUT)
]
BudgetLlmCalls = Annotated[int | None, _run_option("budget.llm_calls")]
BudgetTokens = Annotated[int | None, _run_option("budget.tokens")]
BudgetSearches = Annotated[int | None, _run_option("budget.searches")]
BudgetSeconds = Annotated[float | None, _run_option("budget.wall_seconds")]
BudgetUsd = Annotated[float | None, _run_option("budget.usd")]
JsonEvents = Annotated[
    bool,
    typer.Option("--json", help="Stream progress as JSON events, one a line on stdout.", rich_help_panel=OUTPUT),
]
Yes = Annotated[bool, _run_option("yes")]


# `run`'s own options, one alias each, so its signature reads as a list of names.
Question = Annotated[str, typer.Argument(..., help=option_of("question").help)]
CorpusOpt = Annotated[str | None, _run_option("corpus")]
RunsDir = Annotated[str | None, _run_option("runs_dir")]
Engine = Annotated[str | None, _run_option("engine")]
Model = Annotated[str | None, _run_option("model")]
Agent = Annotated[list[str], _run_option("agents")]
ConfigFile = Annotated[Path | None, _run_option("config")]
MaxRevisions = Annotated[int | None, _run_option("max_revisions")]
Concurrency = Annotated[int | None, _run_option("concurrency")]
RequireFinalApproval = Annotated[bool, _run_option("require_final_approval")]
NoFinalApproval = Annotated[bool, _run_option("require_final_approval", off=True)]
Web = Annotated[bool | None, _run_option("web")]
WebAllowPrivate = Annotated[bool | None, _run_option("web_allow_private")]
WebIgnoreRobots = Annotated[bool | None, _run_option("web_robots")]
Search = Annotated[str | None, _run_option("search")]
SearchUrl = Annotated[str | None, _run_option("search_url")]
Language = Annotated[str | None, _run_option("language")]
CitationStyle = Annotated[str | None, _run_option("citation_style")]
