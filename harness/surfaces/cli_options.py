"""The `research` command line's options that are declared once: the `--help` panels, the options several
commands share, and `run`'s many options, each an `Annotated` alias (cli.py stays a list of commands)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

# The panels `--help` groups options into, so each reads whole at 80 columns (tests/surfaces/test_cli_help.py).
MODEL, SOURCES, WEB, BUDGET, APPROVALS, OUTPUT = "Model", "Sources", "Web", "Budget", "Approvals", "Output"

# Options `run` and `resume` share.
CheckpointDb = Annotated[
    str | None,
    typer.Option(
        "--checkpoint-db",
        envvar="RESEARCH_CHECKPOINT_DB",
        help="Keep checkpoints in PostgreSQL (a postgresql:// URL; the 'postgres' extra), not in the run's SQLite.",
        rich_help_panel=OUTPUT,
    ),
]
ModelBaseUrl = Annotated[
    str | None,
    typer.Option(
        "--model-base-url",
        envvar="RESEARCH_MODEL_BASE_URL",
        help="The llm roles' endpoint: an OpenAI-compatible server (openai:NAME), Azure, or a proxy.",
        rich_help_panel=MODEL,
    ),
]
Quiet = Annotated[
    bool, typer.Option("--quiet", help="No progress display; print only the result.", rich_help_panel=OUTPUT)
]
BudgetLlmCalls = Annotated[
    int | None, typer.Option("--budget-llm-calls", help="Run limit on model calls.", rich_help_panel=BUDGET)
]
BudgetTokens = Annotated[
    int | None, typer.Option("--budget-tokens", help="Run limit on tokens.", rich_help_panel=BUDGET)
]
BudgetSearches = Annotated[
    int | None, typer.Option("--budget-searches", help="Run limit on searches.", rich_help_panel=BUDGET)
]
BudgetSeconds = Annotated[
    float | None, typer.Option("--budget-seconds", help="Run limit on wall time (seconds).", rich_help_panel=BUDGET)
]
BudgetUsd = Annotated[
    float | None,
    typer.Option(
        "--budget-usd",
        help="Run limit in US dollars, each model call priced from its reported usage (refused when a model's price "
        "is unknown: set it under prices: in research.yaml).",
        rich_help_panel=BUDGET,
    ),
]


JsonEvents = Annotated[
    bool,
    typer.Option("--json", help="Stream progress as JSON events, one a line on stdout.", rich_help_panel=OUTPUT),
]


# `run`'s own options, one alias each, so its signature reads as a list of names.
Question = Annotated[str, typer.Argument(..., help="The research question.")]
CorpusOpt = Annotated[
    str | None,
    typer.Option(
        "--corpus",
        help="A folder of .md/.txt/.html/.pdf files, python-docs (the default) or python-docs+packages.",
        rich_help_panel=SOURCES,
    ),
]
RunsDir = Annotated[
    str | None,
    typer.Option("--runs-dir", help="Where run folders are created (default ./runs).", rich_help_panel=OUTPUT),
]
Engine = Annotated[
    str | None,
    typer.Option(
        "--engine",
        help="offline or llm for every role (default: llm when a model or GOOGLE_API_KEY is set).",
        rich_help_panel=MODEL,
    ),
]
Model = Annotated[
    str | None,
    typer.Option(
        "--model",
        help="PROVIDER:NAME for llm roles, as LangChain's init_chat_model reads it (default: Gemini Flash).",
        rich_help_panel=MODEL,
    ),
]
ConfigFile = Annotated[
    Path | None, typer.Option("--config", help="Configuration file (default ./research.yaml if present).")
]
Yes = Annotated[bool, typer.Option("--yes", "-y", help="Approve the plan without asking.", rich_help_panel=APPROVALS)]
MaxRevisions = Annotated[
    int | None,
    typer.Option("--max-revisions", help="Revise rounds after the first draft (default 2).", rich_help_panel=BUDGET),
]
Concurrency = Annotated[
    int | None, typer.Option("--concurrency", help="Research branches at once (default 4).", rich_help_panel=BUDGET)
]
# two flags, not one `--a/--no-b` pair: a pair's second name takes a column of its own at 80 columns
RequireFinalApproval = Annotated[
    bool,
    typer.Option(
        "--require-final-approval",
        help="Ask for a sign-off of the final draft, bound to its sha256.",
        rich_help_panel=APPROVALS,
    ),
]
NoFinalApproval = Annotated[
    bool,
    typer.Option(
        "--no-final-approval", help="No final sign-off, whatever research.yaml says.", rich_help_panel=APPROVALS
    ),
]
Web = Annotated[
    bool | None,
    typer.Option("--web/--no-web", help="web_search and fetch_url (the 'web' extra).", rich_help_panel=WEB),
]
WebAllowPrivate = Annotated[
    bool | None,
    typer.Option(
        "--web-allow-private",
        help="Allow private, loopback and link-local addresses (intranets, tests).",
        rich_help_panel=WEB,
    ),
]
WebIgnoreRobots = Annotated[
    bool | None,
    typer.Option("--web-ignore-robots", help="Fetch where robots.txt disallows it.", rich_help_panel=WEB),
]
Search = Annotated[
    str | None,
    typer.Option(
        "--search",
        help="Search provider(s), comma-separated: ddgs (default, no key), tavily, exa, brave, searxng, gemini; "
        "the literature: arxiv, openalex, crossref, semanticscholar, pubmed (no key).",
        rich_help_panel=WEB,
    ),
]
SearchUrl = Annotated[
    str | None,
    typer.Option("--search-url", help="The search provider's endpoint (searxng needs one).", rich_help_panel=WEB),
]
Language = Annotated[
    str | None,
    typer.Option(
        "--language",
        help="Report language (en, fr, pt-BR, ...): llm roles write the plan, claims and prose in it.",
        rich_help_panel=MODEL,
    ),
]
CitationStyle = Annotated[
    str | None,
    typer.Option(
        "--citation-style",
        help="The bibliography's style for cited papers: apa, ieee, chicago-author-date (default: apa; the run's for export).",
    ),
]
