"""The closed sets of web search provenance: which search providers exist (web and literature), and where a web
snapshot's text came from.

Defined once here; `schemas/config.schema.json` (`search.provider`) and `schemas/source.schema.json`
(`web.provider`, `web.text_from`) list the same values, and a test keeps them equal.
"""

from __future__ import annotations

from typing import Literal, get_args

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

# What a plan question may search (`allowed_sources` in plan.json): the run's local corpus, the web, or both.
AllowedSource = Literal["corpus", "web"]
CORPUS: AllowedSource = "corpus"
WEB: AllowedSource = "web"
ALLOWED_SOURCES: tuple[AllowedSource, ...] = get_args(AllowedSource)
