"""schemas/config.schema.json (research.yaml's schema), built from the run options: each option's entry at its
research.yaml key is its `Option.schema` (contract/options.py), the budget's limits are its parts', and the settings
that are no run option (per-role models and limits, prices, MCP servers, source kinds, the web fetcher's and the
search providers' finer settings) are declared below. The checked-in file is written by

    python -m harness.contract.config_schema --write

and tests/contract/test_config_schema.py holds it equal to `render()`, so a field edited without regenerating fails.
"""

from __future__ import annotations

import copy
import json
import sys
from typing import Any

from harness.contract.options import MODEL_PATTERN, ROLE_NAMES, option_of, options
from harness.contract.resources import schemas_dir
from harness.contract.search import SEARCH_PROVIDERS

FILE = "config.schema.json"
WRITE_COMMAND = "python -m harness.contract.config_schema --write"

_MODEL_NAME = {"type": "string", "pattern": MODEL_PATTERN}
_PROVIDERS = list(SEARCH_PROVIDERS)
_PRIMARY = ["primary", "secondary"]
_NAME = "^[A-Za-z_][A-Za-z0-9_]*$"

# research.yaml's settings that are no run option, by key (a section's: below its options).
_SETTINGS: dict[str, dict[str, Any]] = {
    "models": {
        "description": "Model per role.",
        "type": "object",
        "propertyNames": ROLE_NAMES,
        "additionalProperties": {**_MODEL_NAME, "description": "A provider:name model string."},
    },
    "prices": {
        "description": "Model prices in US dollars per million tokens, by provider:name model string: over the "
        "genai-prices table, or for a model it does not know (a self-hosted server, a new model). A model neither "
        "names is shown as price unknown, and a usd budget is refused for it.",
        "type": "object",
        "propertyNames": {"pattern": MODEL_PATTERN},
        "additionalProperties": {
            "type": "object",
            "description": "One model's price.",
            "additionalProperties": False,
            "required": ["input", "output"],
            "properties": {
                "input": {"description": "USD per million input tokens.", "type": "number", "minimum": 0},
                "cached_input": {
                    "description": "USD per million input tokens read from the provider's prompt cache (default: "
                    "the input price).",
                    "type": "number",
                    "minimum": 0,
                },
                "output": {"description": "USD per million output tokens.", "type": "number", "minimum": 0},
                "thinking": {
                    "description": "USD per million thinking (reasoning) tokens (default: the output price).",
                    "type": "number",
                    "minimum": 0,
                },
            },
        },
    },
    "role_budgets": {
        "description": "Limits per role.",
        "type": "object",
        "propertyNames": ROLE_NAMES,
        "additionalProperties": {"$ref": "#/$defs/limits", "description": "Limits for one role."},
    },
    "mcp": {
        "description": "MCP servers whose tools the Researcher may call, in the branches of plan questions whose "
        "allowed_sources name mcp:NAME. Every result it may quote is registered as a source "
        "(harness/sources/mcp.py).",
        "type": "object",
        "additionalProperties": False,
        "required": ["servers"],
        "properties": {
            "servers": {
                "description": "Servers by name; the name is how a plan question allows one (mcp:NAME) and prefixes "
                "its tools (mcp_NAME_TOOL).",
                "type": "object",
                "minProperties": 1,
                "propertyNames": {"pattern": "^[a-z][a-z0-9_]{0,23}$"},
                "additionalProperties": {"$ref": "#/$defs/mcp_server"},
            }
        },
    },
    "sources": {
        "description": "Rules deciding which sources are primary.",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "secondary_paths": {
                "description": "Corpus path globs that are secondary.",
                "type": "array",
                "items": {"type": "string", "description": "A glob."},
            },
            "primary_paths": {
                "description": "Corpus path globs that are primary.",
                "type": "array",
                "items": {"type": "string", "description": "A glob."},
            },
            "primary_domains": {
                "description": "Web domains that are primary: official sites (subdomains included). With the web "
                "on, the offline Planner copies them into each web question's primary_domains in plan.json.",
                "type": "array",
                "items": {
                    "type": "string",
                    "pattern": "^[A-Za-z0-9.-]+$",
                    "description": "A domain, without scheme, port or path.",
                },
            },
            "secondary_domains": {
                "description": "Web domains that are secondary.",
                "type": "array",
                "items": {"type": "string", "description": "A domain."},
            },
            "local_default": {"description": "Kind of a local source no rule matches.", "enum": _PRIMARY},
            "web_default": {"description": "Kind of a web source no rule matches.", "enum": _PRIMARY},
            "paper_default": {
                "description": "Kind of a paper a literature provider found (arxiv, openalex, crossref): primary by "
                "default (original research, reported by its authors); a secondary domain still wins.",
                "enum": _PRIMARY,
            },
        },
    },
}

# The sections whose keys options set in part (`fetch.robots`, `search.provider`): their own entry, and the settings
# in them that are no run option.
_SECTIONS: dict[str, dict[str, Any]] = {
    "fetch": {
        "description": "How the web tools fetch pages (with web on).",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "cache_ttl": {
                "description": "Seconds a fetched page is reused from the page cache across runs (default 86400); 0 "
                "turns the cache off.",
                "type": "number",
                "minimum": 0,
            },
            "timeout": {
                "description": "Seconds per request, and for reading one page in total (default 10).",
                "type": "number",
                "exclusiveMinimum": 0,
            },
            "max_bytes": {
                "description": "Largest page body kept, after decompression (default 5000000).",
                "type": "integer",
                "minimum": 1,
            },
            "per_host": {
                "description": "Requests in flight to one host at a time, across parallel branches (default 2).",
                "type": "integer",
                "minimum": 1,
            },
            "search_pages": {
                "description": "Results one web_search of an llm Researcher fetches (in parallel) and registers as "
                "sources (default 5); it costs one search however many it fetches.",
                "type": "integer",
                "minimum": 1,
                "maximum": 10,
            },
        },
    },
    "search": {
        "description": "The web search provider behind web_search (and the offline engine's web research) when `web` "
        "is on.",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "model": {
                "description": "gemini only: the model that runs the Google Search tool (default: the harness's "
                "default Gemini model).",
                "type": "string",
                "minLength": 1,
            },
            "also": {
                "description": "More providers searched beside `provider`, each with the same query, their results "
                "interleaved (`--search arxiv,openalex` sets provider arxiv, also [openalex]).",
                "type": "array",
                "items": {"description": "A provider name.", "enum": _PROVIDERS},
            },
            "providers": {
                "description": "Settings per provider, by name: its endpoint, the contact email of the literature "
                "services' polite pools, and the environment variable holding its key (never the key itself).",
                "type": "object",
                "propertyNames": {"enum": _PROVIDERS},
                "additionalProperties": {
                    "description": "One provider's settings.",
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        "url": {
                            "description": "The provider's endpoint (base URL), e.g. a local stand-in.",
                            "type": "string",
                            "pattern": "^https?://",
                        },
                        "email": {
                            "description": "A contact email: OpenAlex's and Crossref's polite pools (sent as From / "
                            "mailto).",
                            "type": "string",
                            "pattern": "^[^@\\s]+@[^@\\s]+$",
                        },
                        "key_env": {
                            "description": "The environment variable holding the provider's API key (OpenAlex: "
                            "optional); the run stops in one line before any work when it is unset.",
                            "type": "string",
                            "pattern": _NAME,
                        },
                    },
                },
            },
        },
    },
}

_MCP_SERVER: dict[str, Any] = {
    "type": "object",
    "description": "One MCP server: a command started over stdio, or a streamable HTTP URL.",
    "additionalProperties": False,
    "oneOf": [
        {"required": ["command"], "not": {"required": ["url"]}},
        {"required": ["url"], "not": {"required": ["command"]}},
    ],
    "properties": {
        "command": {
            "description": "The argv that starts the server over stdio, e.g. [python, my_server.py].",
            "type": "array",
            "minItems": 1,
            "items": {"type": "string", "minLength": 1, "description": "One argument."},
        },
        "url": {
            "description": "The server's streamable HTTP endpoint, e.g. http://127.0.0.1:8000/mcp.",
            "type": "string",
            "pattern": "^https?://",
        },
        "env": {
            "description": "Names of environment variables passed from the harness's environment to a stdio server "
            "(their values never reach run.json).",
            "type": "array",
            "items": {"type": "string", "pattern": _NAME, "description": "A variable name."},
        },
        "kind": {
            "description": "Kind of the sources its results become: primary (original material) or secondary (the "
            "default).",
            "enum": _PRIMARY,
        },
        "timeout": {
            "description": "Seconds the server has to start and list its tools, and to answer each call (default 30).",
            "type": "number",
            "exclusiveMinimum": 0,
            "maximum": 600,
        },
    },
}


def config_schema() -> dict[str, Any]:
    """research.yaml's JSON Schema: the run options' entries at their keys, in the options' order (a section where
    its first option is), then the other settings."""
    properties: dict[str, Any] = {}
    for _, option in options():
        if option.key is None:  # no research.yaml key (a budget part's is in $defs)
            continue
        section, _, key = option.key.rpartition(".")
        if not section:
            properties[key] = option.schema
            continue
        head = {k: v for k, v in _SECTIONS[section].items() if k != "properties"}
        properties.setdefault(section, {**head, "properties": {}})["properties"][key] = option.schema
    for section, entry in _SECTIONS.items():  # a section's settings after its options
        properties[section]["properties"].update(entry["properties"])
    properties.update(_SETTINGS)
    limits = {
        "type": "object",
        "description": "Budget limits; omit a key for no limit.",
        "additionalProperties": False,
        "properties": {dim: part.schema for dim, part in option_of("budget").parts},
    }
    return copy.deepcopy(  # the caller's own: the options' metadata stays as declared
        {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://research-harness.dev/schemas/config.schema.json",
            "title": "Run configuration file (research.yaml)",
            "description": "Defaults for `research run`; command-line flags override them.",
            "type": "object",
            "additionalProperties": False,
            "properties": properties,
            "$defs": {"mcp_server": _MCP_SERVER, "limits": limits},
        }
    )


# ---- the file's text -------------------------------------------------------------------------------------------


def _expanded(value: Any, key: str | None) -> bool:
    """Whether a value takes lines of its own: the document, a mapping of names to schemas (`properties`,
    `$defs`), a schema with properties or alternatives, a list of alternatives, or one whose items have
    properties. Everything else is one line, so each setting reads on its own line."""
    if isinstance(value, list):
        return key in ("oneOf", "anyOf") and any(isinstance(v, dict) for v in value)
    if not isinstance(value, dict):
        return False
    if key in ("properties", "$defs", None):
        return True
    extra = value.get("additionalProperties")
    return any(k in value for k in ("properties", "oneOf", "$defs")) or (
        isinstance(extra, dict) and "properties" in extra
    )


def _dump(value: Any, key: str | None, indent: int) -> str:
    if not _expanded(value, key):
        return json.dumps(value, ensure_ascii=False)
    pad = "  " * (indent + 1)
    if isinstance(value, list):
        items = [pad + _dump(v, "", indent + 1) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + "  " * indent + "]"
    items = [f"{pad}{json.dumps(k)}: {_dump(v, k, indent + 1)}" for k, v in value.items()]
    return "{\n" + ",\n".join(items) + "\n" + "  " * indent + "}"


def render() -> str:
    """The text of schemas/config.schema.json."""
    return _dump(config_schema(), None, 0) + "\n"


def main(argv: list[str]) -> int:
    """`--write`: write the file; `--check`: exit 1 if the file is not what `render()` gives."""
    path = schemas_dir() / FILE
    if argv == ["--write"]:
        path.write_text(render(), encoding="utf-8")
        print(path)
        return 0
    if argv == ["--check"]:
        if path.read_text(encoding="utf-8") == render():
            return 0
        print(f"{path} is not generated from RunOptions: run {WRITE_COMMAND}", file=sys.stderr)
        return 1
    print("usage: python -m harness.contract.config_schema --write | --check", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
