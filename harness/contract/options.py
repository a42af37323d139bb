"""The run options, declared once: `RunOptions`, one field per option of `research run`, each field's metadata
(`Option`) saying everything every door needs to know about it.

Modelled on open_deep_research's `Configuration` (one model; a request's mapping read by `from_mapping`, as its
`from_runnable_config` reads LangGraph's `configurable`; the form built from the fields' metadata) and on STORM's
`STORMWikiRunnerArguments` (a dataclass whose fields carry their help). Each field's `Option` holds:

- `flag`: its command-line flag (`QUESTION` for the argument; `off`: the flag that turns it off, if it has one;
  `negated`: the flag sets the field to False, as --web-ignore-robots sets `web_robots`);
- `help`: its `--help` line and `panel`, the `--help` panel it is listed in;
- `key`: where it sits in research.yaml (dotted below the top level: `fetch.allow_private`), and `schema`: its
  entry in schemas/config.schema.json there (the file is generated from these entries by contract/config_schema.py:
  `python -m harness.contract.config_schema --write`);
- `request`: whether the LangGraph server's request (`ResearchRequest`) may carry it, and `browser`: whether
  `research serve`'s new-run form may set it (never `runs_dir`, `agents`, `yes`, an endpoint or the private network);
  `example` is what a value looks like, for the form's empty box, and `many` says it takes several of its schema's
  values, comma-separated.

The doors: `research run`'s Typer options are built from the metadata (surfaces/cli_options.py; the command's
parameters are tested equal to the fields); `build_config` (orchestrator/config.py) reads a `RunOptions` over
research.yaml (`over`); the LangGraph server reads its request through `from_runnable_config` (its `ResearchRequest`
tested equal to `request_fields`); `research serve` takes `browser_fields`, names their flags (`flag_of`), checks
their types (`python_type`) and draws its form from the metadata; `harness.run`'s parameters are tested equal to the
fields. An error about an option names its flag and carries its field name (`UsageError(field=...)`), for a form to
show it beside the field.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.contract.search import SEARCH_PROVIDERS
from harness.contract.statuses import BUDGET_DIMENSIONS
from harness.contract.works import CITATION_STYLES

ENGINES = ("offline", "llm")
DEFAULT_MAX_REVISIONS = 2  # revise rounds after the first draft
DEFAULT_CONCURRENCY = 4  # research branches at once
DEFAULT_RUNS_DIR = "runs"

# The panels `--help` groups options into, so each reads whole at 80 columns (tests/surfaces/test_cli_help.py).
MODEL, SOURCES, WEB, BUDGET, APPROVALS, OUTPUT = "Model", "Sources", "Web", "Budget", "Approvals", "Output"


@dataclass(frozen=True)
class Option:
    """What every door needs to know about one run option (see the module's docstring)."""

    flag: str | None
    help: str
    key: str | None = None
    schema: dict[str, Any] | None = None
    panel: str | None = None
    request: bool = False
    browser: bool = False
    off: str | None = None  # the flag that turns it off: `--web/--no-web`, or an option of its own with `off_help`
    off_help: str | None = None
    negated: bool = False
    many: bool = False  # several of its schema's values, comma-separated (--search arxiv,openalex)
    example: str | None = None  # what a value looks like, for a form's empty box
    short: str | None = None
    envvar: str | None = None
    parts: tuple[tuple[str, Option], ...] = ()  # an object's own options (`budget`'s limits), by key


def _option(default: Any = None, **meta: Any) -> Any:
    return field(default=default, metadata={"option": Option(**meta)})


def _limit(flag: str, help: str, schema: dict[str, Any]) -> Option:
    return Option(flag, help, schema=schema, panel=BUDGET, request=True, browser=True)


BUDGET_PARTS: tuple[tuple[str, Option], ...] = (
    (
        "llm_calls",
        _limit(
            "--budget-llm-calls",
            "Run limit on model calls.",
            {"description": "Model calls (at most a million).", "type": "integer", "minimum": 0, "maximum": 1000000},
        ),
    ),
    (
        "tokens",
        _limit(
            "--budget-tokens",
            "Run limit on tokens.",
            {
                "description": "Input plus output tokens (at most ten billion).",
                "type": "integer",
                "minimum": 0,
                "maximum": 10000000000,
            },
        ),
    ),
    (
        "searches",
        _limit(
            "--budget-searches",
            "Run limit on searches.",
            {
                "description": "Search and fetch calls (at most a hundred thousand).",
                "type": "integer",
                "minimum": 0,
                "maximum": 100000,
            },
        ),
    ),
    (
        "wall_seconds",
        _limit(
            "--budget-seconds",
            "Run limit on wall time (seconds).",
            {"description": "Elapsed seconds (at most 30 days).", "type": "number", "minimum": 0, "maximum": 2592000},
        ),
    ),
    (
        "usd",
        _limit(
            "--budget-usd",
            "Run limit in US dollars, each model call priced from its reported usage (refused when a model's price "
            "is unknown: set it under prices: in research.yaml).",
            {
                "description": "US dollars (at most a million; refused when a model's price is unknown: set it under "
                "prices).",
                "type": "number",
                "minimum": 0,
                "maximum": 1000000,
            },
        ),
    ),
)
assert tuple(k for k, _ in BUDGET_PARTS) == BUDGET_DIMENSIONS, "one budget flag per budget dimension"
BUDGET_FLAGS = {dim: str(o.flag) for dim, o in BUDGET_PARTS}

MODEL_PATTERN = "^[A-Za-z0-9_-]+:.+$"
ROLE_NAMES = {"$ref": "common.schema.json#/$defs/agent_role"}


@dataclass
class RunOptions:
    """The options of one run as a door was given them; None: not given (research.yaml's value, else the default)."""

    question: str = _option(
        "", flag="QUESTION", help="The research question.", request=True, browser=True
    )  # the one argument
    corpus: str | None = _option(
        flag="--corpus",
        help="A folder of .md/.txt/.html/.pdf files, python-docs (the default) or python-docs+packages.",
        key="corpus",
        schema={
            "description": "Local corpus folder, or 'python-docs' for the built-in corpus.",
            "type": "string",
            "minLength": 1,
        },
        panel=SOURCES,
        request=True,
        browser=True,
    )
    runs_dir: str | Path | None = _option(
        flag="--runs-dir",
        help="Where run folders are created (default ./runs).",
        key="runs_dir",
        schema={"description": "Folder where run workspaces are created.", "type": "string", "minLength": 1},
        panel=OUTPUT,
        request=True,
    )
    engine: str | None = _option(
        flag="--engine",
        help="offline or llm for every role (default: llm when a model or GOOGLE_API_KEY is set).",
        key="engine",
        schema={"description": "Engine for every role unless overridden: offline or llm.", "enum": list(ENGINES)},
        panel=MODEL,
        request=True,
        browser=True,
    )
    model: str | None = _option(
        flag="--model",
        help="PROVIDER:NAME for llm roles, as LangChain's init_chat_model reads it (default: Gemini Flash).",
        key="model",
        schema={
            "description": "Model for llm roles (provider:name), e.g. google_genai:gemini-3.5-flash.",
            "type": "string",
            "pattern": MODEL_PATTERN,
        },
        example="PROVIDER:NAME",
        panel=MODEL,
        request=True,
        browser=True,
    )
    model_base_url: str | None = _option(
        flag="--model-base-url",
        envvar="RESEARCH_MODEL_BASE_URL",
        help="The llm roles' endpoint: an OpenAI-compatible server (openai:NAME), Azure, or a proxy.",
        key="base_url",
        schema={
            "description": "The model endpoint of the llm roles: one URL for every role, or one per role (an "
            "OpenAI-compatible server such as vLLM, Ollama's /v1, LM Studio or OpenRouter with openai:NAME; an Azure "
            "resource with azure_openai:DEPLOYMENT). --model-base-url overrides it.",
            "oneOf": [
                {"type": "string", "pattern": "^https?://", "description": "One endpoint for every llm role."},
                {
                    "type": "object",
                    "propertyNames": ROLE_NAMES,
                    "additionalProperties": {
                        "type": "string",
                        "pattern": "^https?://",
                        "description": "The role's endpoint.",
                    },
                    "description": "An endpoint per role.",
                },
            ],
        },
        panel=MODEL,
    )
    agents: list[str] | None = _option(
        flag="--agent",
        help="Swap a role: ROLE=offline, llm, a spec.md or python:module:Class (repeatable).",
        key="agents",
        schema={
            "description": "Swap a role: 'offline', 'llm', a path to an agent spec (.md), or python:module:Class.",
            "type": "object",
            "propertyNames": ROLE_NAMES,
            "additionalProperties": {"type": "string", "minLength": 1, "description": "What runs the role."},
        },
        panel=MODEL,
        request=True,
    )
    config: str | Path | None = _option(
        flag="--config", help="Configuration file (default ./research.yaml if present)."
    )
    yes: bool = _option(
        False, flag="--yes", short="-y", help="Approve the plan without asking.", panel=APPROVALS, request=True
    )
    max_revisions: int | None = _option(
        flag="--max-revisions",
        help=f"Revise rounds after the first draft (default {DEFAULT_MAX_REVISIONS}).",
        key="max_revisions",
        schema={"description": "Revise rounds after the first draft.", "type": "integer", "minimum": 0, "maximum": 10},
        panel=BUDGET,
        request=True,
        browser=True,
    )
    concurrency: int | None = _option(
        flag="--concurrency",
        help=f"Research branches at once (default {DEFAULT_CONCURRENCY}).",
        key="concurrency",
        schema={"description": "Research branches run at once.", "type": "integer", "minimum": 1, "maximum": 64},
        panel=BUDGET,
        request=True,
        browser=True,
    )
    budget: dict[str, Any] | None = _option(
        flag=None,
        help="Run limits, by dimension (each its own --budget-* flag).",
        key="budget",
        schema={"$ref": "#/$defs/limits", "description": "Run-wide limits."},
        request=True,
        browser=True,
        parts=BUDGET_PARTS,
    )
    require_final_approval: bool | None = _option(
        flag="--require-final-approval",
        off="--no-final-approval",
        off_help="No final sign-off, whatever research.yaml says.",
        help="Ask for a sign-off of the final draft, bound to its sha256.",
        key="require_final_approval",
        schema={"description": "Ask a human to sign off the final draft (bound to its sha256).", "type": "boolean"},
        panel=APPROVALS,
        request=True,
        browser=True,
    )
    web: bool | None = _option(
        flag="--web",
        off="--no-web",
        help="web_search and fetch_url (the 'web' extra).",
        key="web",
        schema={
            "description": "Enable the web_search and fetch_url tools (needs the 'web' extra and plan-allowed "
            "domains).",
            "type": "boolean",
        },
        panel=WEB,
        request=True,
        browser=True,
    )
    web_allow_private: bool | None = _option(
        flag="--web-allow-private",
        help="Allow private, loopback and link-local addresses (intranets, tests).",
        key="fetch.allow_private",
        schema={
            "description": "Let pages and redirects point at private, loopback and link-local addresses (intranets, "
            "tests); --web-allow-private. Default false: refused after DNS resolution and on every hop.",
            "type": "boolean",
        },
        panel=WEB,
    )
    web_robots: bool | None = _option(
        flag="--web-ignore-robots",
        negated=True,
        help="Fetch where robots.txt disallows it.",
        key="fetch.robots",
        schema={
            "description": "Respect robots.txt (default true); --web-ignore-robots turns it off.",
            "type": "boolean",
        },
        panel=WEB,
    )
    search: str | None = _option(
        flag="--search",
        help="Search provider(s), comma-separated: ddgs (default, no key), tavily, exa, brave, searxng, gemini; "
        "the literature: arxiv, openalex, crossref, semanticscholar, pubmed (no key).",
        key="search.provider",
        many=True,
        example="ddgs or arxiv,openalex",
        schema={
            "description": "ddgs (free, no key; the default), tavily (TAVILY_API_KEY), exa (EXA_API_KEY), brave "
            "(BRAVE_API_KEY), searxng (self-hosted; needs url) or gemini (Gemini with Google Search; GOOGLE_API_KEY "
            "or GEMINI_API_KEY).",
            "enum": list(SEARCH_PROVIDERS),
        },
        panel=WEB,
        request=True,
        browser=True,
    )
    search_url: str | None = _option(
        flag="--search-url",
        help="The search provider's endpoint (searxng needs one).",
        key="search.url",
        schema={
            "description": "The provider's endpoint (base URL), overriding its default; required for searxng.",
            "type": "string",
            "pattern": "^https?://",
        },
        panel=WEB,
    )
    language: str | None = _option(
        flag="--language",
        help="Report language (en, fr, pt-BR, ...): llm roles write the plan, claims and prose in it.",
        key="language",
        schema={
            "description": "The report language (a code such as en, fr, pt-BR): llm roles write the plan, claims and "
            "report prose in it; quotes stay verbatim in the source's language.",
            "type": "string",
            "pattern": "^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$",
        },
        panel=MODEL,
        request=True,
    )
    citation_style: str | None = _option(
        flag="--citation-style",
        help="The bibliography's style for cited papers: apa, ieee, chicago-author-date (default: apa; the run's "
        "for export).",
        key="citation_style",
        schema={
            "description": "The CSL style of the report's bibliography of cited papers: apa (the default), ieee or "
            "chicago-author-date.",
            "enum": list(CITATION_STYLES),
        },
        request=True,
    )
    checkpoint_db: str | None = _option(
        flag="--checkpoint-db",
        envvar="RESEARCH_CHECKPOINT_DB",
        help="Keep checkpoints in PostgreSQL (a postgresql:// URL; the 'postgres' extra), not in the run's SQLite.",
        panel=OUTPUT,
    )

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], allowed: tuple[str, ...] | None = None) -> RunOptions:
        """The options a request's mapping carries (a LangGraph request, a form's JSON): the keys `allowed` (default:
        every field), each None when absent; any other key is ignored (the caller says which it refuses)."""
        names = allowed if allowed is not None else tuple(f.name for f in dataclasses.fields(cls))
        given = {k: data[k] for k in names if k in data and data[k] is not None}
        return cls(**given)

    @classmethod
    def from_runnable_config(cls, request: Mapping[str, Any], config: Mapping[str, Any] | None) -> RunOptions:
        """A LangGraph request's options over its assistant's (`config["configurable"]`, as open_deep_research's
        `Configuration.from_runnable_config` reads them): the request's fields first, then the `configurable`
        values of the same names, each only where the request may carry it (`request_fields`)."""
        configurable = (config or {}).get("configurable") or {}
        given = {k: v for k, v in request.items() if v is not None}
        merged = {**{k: v for k, v in configurable.items() if k != "question"}, **given}
        return cls.from_mapping(merged, allowed=request_fields())

    def over(self, file_cfg: Mapping[str, Any]) -> RunOptions:
        """These options over research.yaml's top-level values: each option not given takes the file's, if any.
        (Dotted keys, `fetch.*` and `search.*`, and `agents`, `budget` and `base_url`, which may be set per role,
        merge section by section in config.py.)"""
        taken = {}
        for f in dataclasses.fields(self):
            key = option_of(f.name).key
            if key is None or "." in key or key in ("agents", "budget", "base_url"):  # none, or merged in config.py
                continue
            if key in file_cfg and getattr(self, f.name) is None:
                taken[f.name] = file_cfg[key]
        return dataclasses.replace(self, **taken)


def option_of(name: str) -> Option:
    """The metadata of one RunOptions field, or of one part of one (`budget.llm_calls`)."""
    head, _, part = name.partition(".")
    fields = {f.name: f for f in dataclasses.fields(RunOptions)}
    if head not in fields:
        raise KeyError(name)
    option: Option = fields[head].metadata["option"]
    return dict(option.parts)[part] if part else option


def options() -> Iterator[tuple[str, Option]]:
    """Every option by name, in the CLI's order, an object's parts after it by dotted name (`budget.llm_calls`)."""
    for f in dataclasses.fields(RunOptions):
        option: Option = f.metadata["option"]
        yield f.name, option
        for part, sub in option.parts:
            yield f"{f.name}.{part}", sub


def flag_of(name: str) -> str:
    """The flag an error about option `name` names (`budget.usd` → --budget-usd)."""
    return option_of(name).flag or name


def field_of_flag(flag: str) -> str | None:
    """The option a flag sets (--no-web → web), if any."""
    for name, option in options():
        if flag in (option.flag, option.off, option.short):
            return name
    return None


def browser_fields() -> tuple[str, ...]:
    """The top-level fields `research serve`'s new-run form may set (its request's keys)."""
    return tuple(f.name for f in dataclasses.fields(RunOptions) if f.metadata["option"].browser)


def request_fields() -> tuple[str, ...]:
    """The top-level fields the LangGraph server's request may carry."""
    return tuple(f.name for f in dataclasses.fields(RunOptions) if f.metadata["option"].request)


_JSON_TYPES: dict[str, type | tuple[type, ...]] = {"string": str, "integer": int, "number": (int, float)}


def python_type(name: str) -> type | tuple[type, ...] | None:
    """The Python type(s) a request's JSON value for option `name` must have: its field's type (a path as text),
    or for a part of one, its schema's (None: not checked here)."""
    if "." in name:
        return _JSON_TYPES.get((option_of(name).schema or {}).get("type", ""))
    hint = typing.get_type_hints(RunOptions)[name]
    kinds = tuple(typing.get_origin(a) or a for a in typing.get_args(hint) or (hint,) if a not in (type(None), Path))
    return kinds[0] if len(kinds) == 1 else kinds
