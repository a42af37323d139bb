"""The closed sets of web search provenance: which search providers exist (web and literature), where a web
snapshot's text came from, and which sources a plan question may name (`allowed_sources`).

Defined once here; `schemas/config.schema.json` (`search.provider`) and `schemas/source.schema.json`
(`web.provider`, `web.text_from`) list the same values, and a test keeps them equal.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, cast, get_args

SearchProviderName = Literal[
    "ddgs", "tavily", "exa", "brave", "searxng", "gemini", "arxiv", "openalex", "crossref", "semanticscholar", "pubmed"
]
DDGS: SearchProviderName = "ddgs"
TAVILY: SearchProviderName = "tavily"
EXA: SearchProviderName = "exa"
BRAVE: SearchProviderName = "brave"
SEARXNG: SearchProviderName = "searxng"
GEMINI: SearchProviderName = "gemini"
ARXIV: SearchProviderName = "arxiv"
OPENALEX: SearchProviderName = "openalex"
CROSSREF: SearchProviderName = "crossref"
SEMANTIC_SCHOLAR: SearchProviderName = "semanticscholar"
PUBMED: SearchProviderName = "pubmed"
SEARCH_PROVIDERS: tuple[SearchProviderName, ...] = get_args(SearchProviderName)
DEFAULT_SEARCH_PROVIDER: SearchProviderName = DDGS  # free, needs no key
# The literature services: each hit is a paper with its scholarly identity (a `work`), not only a page.
LITERATURE_PROVIDERS: tuple[SearchProviderName, ...] = (ARXIV, OPENALEX, CROSSREF, SEMANTIC_SCHOLAR, PUBMED)

# Where a web source's snapshot came from: the page fetched by the harness, or the text the search provider
# returned with its result (Tavily's raw content, Exa's text), kept without fetching the page.
TextFrom = Literal["page", "provider"]
FROM_PAGE: TextFrom = "page"
FROM_PROVIDER: TextFrom = "provider"
TEXT_FROM: tuple[TextFrom, ...] = get_args(TextFrom)

# What a plan question may search (`allowed_sources` in plan.json): the run's local corpus, the web (every provider the
# run searches, with --web), or one literature provider by name (keyless: usable without --web). plan.schema.json's
# pattern lists the same names beside `mcp:NAME` (an MCP server, `sources/mcp.py`), and a test keeps them equal.
AllowedSource = Literal["corpus", "web", "arxiv", "openalex", "crossref", "semanticscholar", "pubmed"]
CORPUS: AllowedSource = "corpus"
WEB: AllowedSource = "web"
ALLOWED_SOURCES: tuple[AllowedSource, ...] = get_args(AllowedSource)
assert ALLOWED_SOURCES == (CORPUS, WEB, *LITERATURE_PROVIDERS), "a literature provider is a source a plan names"


def literature_of(providers: Sequence[str]) -> tuple[SearchProviderName, ...]:
    """The literature providers among `providers` (the run's `--search` names), in their order."""
    return tuple(p for p in providers if p in LITERATURE_PROVIDERS)


def offered_sources(web: bool, providers: Sequence[str]) -> tuple[AllowedSource, ...]:
    """What a run offers its plan's questions: the corpus; the web when the run has --web; and each literature
    provider the run searches (`--search arxiv,openalex`), with or without --web."""
    return (CORPUS, *((WEB,) if web else ()), *literature_of(providers))


def run_offers(config: Mapping[str, Any]) -> tuple[AllowedSource, ...]:
    """`offered_sources` of a run, from run.json's `config` (its `web` flag and `search` section)."""
    search = config.get("search") or {}
    names = (search.get("provider", DEFAULT_SEARCH_PROVIDER), *(search.get("also") or ()))
    return offered_sources(bool(config.get("web")), names)


def searchable(allowed: Sequence[str] | None, providers: Sequence[str], web: bool) -> tuple[SearchProviderName, ...]:
    """The providers a question may search: with --web and `web` allowed, every provider of the run; otherwise the
    literature providers the question names. `allowed` None (a step with no plan question): all the run offers."""
    offered = tuple(cast(SearchProviderName, p) for p in providers) if web else literature_of(providers)
    if allowed is None or (web and WEB in allowed):
        return offered
    return tuple(p for p in offered if p in allowed)


def may_browse(allowed: Sequence[str] | None, web: bool) -> bool:
    """May a question fetch any page (`fetch_url` on a link it found itself)? Only with --web and `web` allowed; a
    question allowed literature providers alone fetches only the papers they found."""
    return web and (allowed is None or WEB in allowed)
