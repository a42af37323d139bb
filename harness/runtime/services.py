"""The services a role is given: one callable per tool its spec's `tools:` list names, from a registry.

A service is what an agent may ask the harness to do besides reading and writing files:
search the corpus, read a source, search the web, fetch a page, record evidence, check a
draft. Which ones a step gets comes from its spec's `tools:` list and nothing else (no role
names): `SERVICES` maps a tool name to a factory that builds that tool's callable for one
step. A new service (another web search provider, an MCP tool) is one more entry,
`register_service(name, factory)`; the llm engine offers the model whatever the spec lists.

Each service spends through the step's budget and refuses, before anything is spent, what
the plan does not allow for the step's question (its `allowed_sources` and domains).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from harness.contract.search import may_browse, offered_sources, searchable
from harness.errors import PermissionRefused
from harness.runtime.evidence import EvidenceRecorder, cards_answer
from harness.runtime.step import ServiceSetup
from harness.sources.mcp import McpResult, McpTool, source_name

if TYPE_CHECKING:
    from harness.contract.cards import Confidence
    from harness.contract.quotes import Located
    from harness.sources.research_tools import ResearchTools, SearchHit, SourceSlice
    from harness.sources.web import WebTools
    from harness.sources.web.tools import FetchResult


ServiceFactory = Callable[[ServiceSetup], Callable[..., Any]]


@dataclass(frozen=True)
class OutputDuty:
    """What a service that writes a step's outputs (`record_evidence` writes cards) asks of a step that has it.

    This, not the role's name, decides how such a step is nudged and how it ends without outputs."""

    last_call: str  # what the step's last model call is told to do
    nudge: str  # what a step that stopped without its outputs is told ({blocked}: the engine's blocked marker)
    blocked_reason: str  # a step out of its own budget with none written is blocked, not failed, with this code
    tool: str = ""  # the tool (service) that writes the outputs
    # when the outputs written so far meet the brief: a reply that only called `tool`, every call accepted, is then
    # the step's last (the llm engine's EndWhenWritten), with no closing reply
    met: Callable[[ServiceSetup], bool] | None = None


OUTPUT_DUTIES: dict[str, OutputDuty] = {
    "record_evidence": OutputDuty(
        last_call="record the evidence you have with record_evidence",
        nudge="[harness] You recorded no evidence card. If what you read answers the question, call record_evidence "
        "for each quote now; otherwise reply `{blocked} no_evidence` with the queries you tried.",
        blocked_reason="no_evidence",
        tool="record_evidence",
        met=cards_answer,
    ),
}


# ---- what each built-in service is called with and answers ------------------------------------


class CorpusSearch(Protocol):
    """`search`: the local corpus's best passages for `query` (each one registered as a source)."""

    def __call__(self, query: str, k: int = 5) -> list[SearchHit]: ...


class ReadSource(Protocol):
    """`read_source`: a window of a registered source's snapshot."""

    def __call__(self, source_id: str, offset: int = 0, length: int = 2000) -> SourceSlice: ...


class WebSearch(Protocol):
    """`web_search`: the allowed results (dicts), or with `fetch=True` the fetched ones (`SearchedResult`s)."""

    def __call__(self, query: str, k: int = 5, *, fetch: bool = False) -> list[Any]: ...


class FetchUrl(Protocol):
    """`fetch_url`: one allowed page, fetched and registered."""

    def __call__(self, url: str) -> FetchResult: ...


class RecordEvidence(Protocol):
    """`record_evidence`: (card id, where the quote is, whether the card is new); `runtime/evidence.py`."""

    def __call__(
        self,
        source_id: str,
        quote: str,
        summary: str,
        confidence: Confidence,
        limitations: list[str] | None = None,
        hint: int | None = None,
        hop: int | None = None,
        in_answer: bool = False,
    ) -> tuple[str, Located, bool]: ...


class CheckDraft(Protocol):
    """`check_draft`: the defects the Reviewer's deterministic checks find in a draft."""

    def __call__(
        self, draft: str, branches: Mapping[str, Mapping[str, Any]] | None = None, text: str | None = None
    ) -> list[dict[str, Any]]: ...


class Services:
    """The services one step was given, by tool name: `ctx.services.search(query, k)`.

    Asking for one the spec does not list is refused with a one-line error naming the tool."""

    # The built-in services, typed for the checker: annotations only, so `__getattr__` still answers each (a step
    # has only those its spec lists), as it does a service added with `register_service`.
    search: CorpusSearch
    read_source: ReadSource
    web_search: WebSearch
    fetch_url: FetchUrl
    record_evidence: RecordEvidence
    check_draft: CheckDraft
    mcp: McpService

    def __init__(self, role: str, given: dict[str, Callable[..., Any]], setup: ServiceSetup | None = None):
        self._role = role
        self._given = given
        self._setup = setup

    @property
    def duty(self) -> OutputDuty | None:
        """The output duty of the first given service that has one (None: the step writes its outputs as files)."""
        return next((OUTPUT_DUTIES[name] for name in self._given if name in OUTPUT_DUTIES), None)

    def duty_met(self) -> bool:
        """Whether the outputs this step's duty wrote so far meet its brief (`OutputDuty.met`; False without one)."""
        duty = self.duty
        return bool(duty is not None and duty.met is not None and self._setup is not None and duty.met(self._setup))

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._given[name]
        except KeyError:
            raise PermissionRefused(f"{self._role}: the {name} tool is not in this agent's spec") from None

    def __contains__(self, name: object) -> bool:
        return name in self._given

    def names(self) -> tuple[str, ...]:
        return tuple(self._given)


# ---- the services ------------------------------------------------------------------------


def _corpus(setup: ServiceSetup, tool: str) -> ResearchTools:
    if setup.run.corpus is None:
        raise PermissionRefused(f"{setup.role}: the {tool} tool is not in this agent's spec")
    return setup.run.corpus


def corpus_search(setup: ServiceSetup) -> CorpusSearch:
    def search(query: str, k: int = 5) -> list[SearchHit]:
        corpus = _corpus(setup, "search")
        setup.refuse_unless_allowed("corpus")
        return setup.budget.spend_search(lambda: corpus.search(query, k, question_id=setup.brief.question_id))

    return search


def source_reader(setup: ServiceSetup) -> ReadSource:
    def read_source(source_id: str, offset: int = 0, length: int = 2000) -> SourceSlice:
        corpus = _corpus(setup, "read_source")
        setup.budget.check_deadline()
        return corpus.read_source(source_id, offset, length)

    return read_source


def _web(setup: ServiceSetup, tool: str) -> WebTools:
    if setup.run.web is None:
        raise PermissionRefused(
            f"{tool}: neither the web nor a literature provider is on for this run (research run --web, or --search "
            "arxiv and the other literature providers, turns them on)"
        )
    return setup.run.web


def _not_allowed(setup: ServiceSetup, web: WebTools, what: str) -> PermissionRefused:
    allowed = _allowed(setup)
    offered = offered_sources(web.open_web, web.provider_names)[1:]  # what the run offers besides the corpus
    return PermissionRefused(
        f"the plan allows {', '.join(allowed or ()) or 'no'} sources for {setup.brief.question_id}, not {what} "
        f"(this run offers {', '.join(offered)}); nothing was spent"
    )


def _allowed(setup: ServiceSetup) -> list[str] | None:
    question = setup.question()
    return question.get("allowed_sources") if question else None


def _searchable(setup: ServiceSetup, web: WebTools) -> tuple[str, ...]:
    """The providers this step's question may search (`contract/search.searchable`); refused when none."""
    names = searchable(_allowed(setup), web.provider_names, web.open_web)
    if not names:
        raise _not_allowed(setup, web, "web" if web.open_web else "a literature provider")
    return names


def web_search(setup: ServiceSetup) -> WebSearch:
    """`web_search(query, k)`: the allowed results (dicts), from the providers the step's question may search (with
    --web and `web` allowed, all the run's; else the literature providers it names). With `fetch=True` (the llm
    Researcher's tool), the top results are also fetched and registered (`WebTools.search_and_fetch`:
    SearchedResults), and each result that did not become a source is named in the step's notes (its trace), with
    why. Either way one search of the budget: the pages a search fetches are part of it (at most
    `fetch.search_pages`), not charged apart."""

    def search(query: str, k: int = 5, *, fetch: bool = False) -> list[Any]:
        web = _web(setup, "web_search")
        names = _searchable(setup, web)
        k, policy = max(1, min(int(k), 10)), setup.web_policy()
        if not fetch:
            return setup.budget.spend_search(lambda: web.web_search(query, k, policy, names))
        qid = setup.brief.question_id
        results = setup.budget.spend_search(lambda: web.search_and_fetch(query, k, policy, qid, names))
        setup.notes.extend(f"web result not kept: {r.url}: {r.reason}" for r in results if r.page is None)
        return results

    return search


def url_fetcher(setup: ServiceSetup) -> FetchUrl:
    """`fetch_url(url)`: any allowed page, when the run has --web and the question allows `web`; else only a paper a
    literature search of this run found, from a provider the question allows."""

    def fetch_url(url: str) -> FetchResult:
        web = _web(setup, "fetch_url")
        if not may_browse(_allowed(setup), web.open_web):
            hit = web.found(url)
            paper = hit is not None and hit.work is not None
            if not paper or hit.provider not in searchable(_allowed(setup), web.provider_names, web.open_web):
                raise _not_allowed(setup, web, "web pages: only the papers its literature searches found")
        policy = setup.web_policy()
        policy.check(url)  # a host the plan does not allow is refused before anything is spent
        return setup.budget.spend_search(lambda: web.fetch_url(url, policy, question_id=setup.brief.question_id))

    return fetch_url


def draft_checker(setup: ServiceSetup) -> CheckDraft:
    def check(
        draft: str, branches: Mapping[str, Mapping[str, Any]] | None = None, text: str | None = None
    ) -> list[dict[str, Any]]:
        """The defects the Reviewer's deterministic checks find in `draft` (or in `text`, checked as if it were
        `draft`, before it is written): the same code the review runs."""
        from harness.evidence.checks import draft_defects

        return draft_defects(setup.workspace.reader(cache=True), draft, branches, text=text)

    return check


def evidence_recorder(setup: ServiceSetup) -> RecordEvidence:
    return EvidenceRecorder(setup).record


class McpService:
    """`mcp`: call a tool of the run's MCP servers (`mcp_<server>_<tool>`, `sources/mcp.py`); its answer is
    registered as a source. One search of the budget a call; refused, before anything is spent, unless the
    step's plan question lists `mcp:<server>` in its allowed_sources (an explicit grant: no question, no
    allowed_sources, no tools)."""

    def __init__(self, setup: ServiceSetup):
        self._setup = setup

    def _allows(self, server: str) -> bool:
        return source_name(server) in ((self._setup.question() or {}).get("allowed_sources") or ())

    def allowed(self) -> list[McpTool]:
        """The MCP tools this step may call: those of the servers its question allows."""
        mcp = self._setup.run.mcp
        return [t for t in mcp.tools() if self._allows(t.server)] if mcp is not None else []

    def __call__(self, tool: str, arguments: dict[str, Any]) -> McpResult:
        setup, mcp = self._setup, self._setup.run.mcp
        found = next((t for t in mcp.tools() if t.qualified == tool), None) if mcp is not None else None
        if found is None:
            raise PermissionRefused(f"{tool}: no such MCP tool in this run (research.yaml mcp: names the servers)")
        if not self._allows(found.server):
            allowed = (setup.question() or {}).get("allowed_sources") or []
            raise PermissionRefused(
                f"the plan allows {', '.join(allowed) or 'no'} sources for {setup.brief.question_id}, not "
                f"{source_name(found.server)}; nothing was spent"
            )
        assert mcp is not None  # the tool was found among its tools
        return setup.budget.spend_search(lambda: mcp.call(tool, arguments, question_id=setup.brief.question_id))


SERVICES: dict[str, ServiceFactory] = {
    "search": corpus_search,
    "read_source": source_reader,
    "web_search": web_search,
    "fetch_url": url_fetcher,
    "record_evidence": evidence_recorder,
    "check_draft": draft_checker,
    "mcp": McpService,
}


def register_service(name: str, factory: ServiceFactory) -> None:
    """Offer one more service to every role whose spec lists `name` among its tools."""
    SERVICES[name] = factory


def give_services(setup: ServiceSetup) -> Services:
    """The services the step's spec lists, built for this step."""
    return Services(setup.role, {name: SERVICES[name](setup) for name in setup.spec.tools if name in SERVICES}, setup)
