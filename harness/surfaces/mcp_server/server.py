"""The MCP server itself: the tools (typed, each described for a model) and the run resources, over a `ResearchDesk`.

Built on the official SDK's `MCPServer`. Tools refuse bad input with a tool error whose text
starts with the argument's name; a tool that waits sends the run's trace as MCP progress
notifications. Resources are `research://runs/{run_id}/report`, `…/cards/{card_id}`,
`…/sources/{source_id}` (the provenance record) and `…/sources/{source_id}/snapshot` (the
stored text every quote comes from); `resources/list` names each run's report.
"""

# No `from __future__ import annotations`: the SDK reads the tools' annotations at run time.

from typing import Annotated, Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError, UnexpectedToolError
from mcp_types import Resource as McpResource
from mcp_types import ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from harness.contract.layout import FINAL_REPORT, card_path, snapshot_path, source_record_path
from harness.contract.version import __version__
from harness.errors import UsageError
from harness.surfaces import agent_door
from harness.surfaces.mcp_server.desk import MAX_WAIT_S, PlanDecision, ResearchDesk
from harness.surfaces.serve import runs
from harness.surfaces.viewer.server import servable_file

SCHEME = "research://runs"
INSTRUCTIONS = (
    "Verified research: every sentence of a report cites claims whose evidence cards quote a stored source "
    "verbatim, at a recorded span. Start with start_research, wait with research_status (wait_seconds), decide "
    "the plan with decide_plan, then read get_report and check a claim with get_evidence."
)


class Budget(BaseModel):
    """Run limits; each one left out takes the server's default, so a run is always bounded."""

    model_config = ConfigDict(extra="forbid")
    llm_calls: int | None = Field(None, gt=0, description="Most model calls the run may make.")
    tokens: int | None = Field(None, gt=0, description="Most model tokens the run may spend.")
    searches: int | None = Field(None, gt=0, description="Most searches (corpus, web, MCP) the run may make.")
    wall_seconds: float | None = Field(None, gt=0, description="Most wall-clock seconds the run may take.")


RunId = Annotated[str, Field(description="The run id start_research or ask_followup returned.")]


def run_uri(run_id: str, *parts: str) -> str:
    return "/".join((SCHEME, run_id, *parts))


def _tool_error(exc: UsageError) -> ToolError:
    return ToolError(str(exc))


class ResearchMcpServer(MCPServer):
    """`MCPServer` whose `resources/list` also names the report of every run in the runs folder."""

    desk: ResearchDesk

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        """As the SDK's, but a refusal is the harness's one line, starting with the argument's name: a tool's own
        refusal without the SDK's "Error executing tool …" wrapper, a schema refusal in one line (pydantic's is a page).
        """
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, ValidationError):
                lines = [f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in cause.errors()]
                raise ToolError("; ".join(lines)) from cause
            if isinstance(cause, ToolError) and not isinstance(exc, UnexpectedToolError):
                raise ToolError(str(cause)) from cause
            raise

    async def list_resources(self) -> list[McpResource]:
        listed = await super().list_resources()
        for run_id in runs.run_ids(self.desk.runs_dir):
            if (self.desk.runs_dir / run_id / FINAL_REPORT).is_file():
                listed.append(
                    McpResource(
                        uri=run_uri(run_id, "report"),
                        name=f"report-{run_id}",
                        title=f"Final report of run {run_id}",
                        mime_type="text/markdown",
                    )
                )
        return listed


def _read(desk: ResearchDesk, run_id: str, rel: str) -> str:
    """A file of a run for a resource: only ids that name a run, only inside its folder."""
    try:
        run_dir = desk.run_dir(run_id)
    except UsageError as exc:
        raise ResourceError(str(exc)) from None
    target = servable_file(run_dir, rel)
    if target is None:
        raise ResourceError(f"{rel}: not in run {run_id}")
    return target.read_text(encoding="utf-8", errors="replace")


def _checked(pattern, value: str, argument: str) -> str:
    if not pattern.fullmatch(value):
        raise ResourceError(f"{argument}: {value!r} is not a {argument.replace('_', ' ')}")
    return value


def build_server(desk: ResearchDesk) -> ResearchMcpServer:
    """The MCP server over `desk`'s runs folder: its tools, in the order `tools/list` names them, and the run
    resources. Each tool is declared by its own function, as a closure over the desk."""
    server = ResearchMcpServer("research-harness", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING")
    server.desk = desk
    for add_tool in (
        _add_start_research,
        _add_research_status,
        _add_decide_plan,
        _add_get_report,
        _add_get_evidence,
        _add_ask_followup,
        _add_validate_run,
    ):
        add_tool(server, desk)
    _add_run_resources(server, desk)
    return server


def _add_start_research(server: ResearchMcpServer, desk: ResearchDesk) -> None:
    """The tool that starts a run in its own process and answers with its id at once."""

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, open_world_hint=True))
    async def start_research(
        question: Annotated[str, Field(description="The research question, in plain words.")],
        corpus: Annotated[
            str | None,
            Field(
                description="A folder of documents under one of the server's corpus roots, or 'python-docs' "
                "(the default, when the server allows it)."
            ),
        ] = None,
        web: Annotated[bool | None, Field(description="Also search and fetch web pages (off by default).")] = None,
        search: Annotated[
            str | None,
            Field(description="Web search provider when web is on: ddgs, tavily, exa, brave, searxng, gemini."),
        ] = None,
        language: Annotated[str | None, Field(description="Report language code, e.g. en, fr, pt-BR.")] = None,
        budget: Annotated[
            Budget | None, Field(description="Run limits; any left out take the server's default.")
        ] = None,
    ) -> dict[str, Any]:
        """Start a verified research run and return its run_id at once; the run goes on in its own process.

        The harness plans sub-questions, searches the corpus (and the web if asked), records evidence cards
        whose quotes are checked verbatim against stored sources, and writes a report in which every sentence
        cites claims backed by those cards. A new run first stops at the plan gate (status
        awaiting_plan_approval): call research_status with wait_seconds to wait for it, read the plan's
        questions, then call decide_plan. Every run is bounded by a budget; limits you leave out take the
        server's defaults.
        """
        try:
            return await desk.start(
                question, corpus, web, search, language, budget.model_dump() if budget is not None else None
            )
        except UsageError as exc:
            raise _tool_error(exc) from None


def _add_research_status(server: ResearchMcpServer, desk: ResearchDesk) -> None:
    """The tool that tells where a run is, waiting (with progress notifications) when asked to."""

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    async def research_status(
        run_id: RunId,
        ctx: Context,
        wait_seconds: Annotated[
            float,
            Field(
                ge=0,
                le=MAX_WAIT_S,
                description="Wait up to this many seconds for the run to pause at a gate or end (0: answer now).",
            ),
        ] = 0,
    ) -> dict[str, Any]:
        """Tell where a run is: its status, its current stage, the budget used and left, and at the plan gate the
        plan's questions; `next` says what you can do now.

        With wait_seconds it waits until no process works on the run any more (it paused at the plan gate,
        completed, or stopped) or the time is up, sending each step of the run as a progress notification.
        Call it again to keep waiting; it answers at any time.
        """
        try:
            if not wait_seconds:
                return desk.status(run_id)

            async def progress(step: int, message: str) -> None:
                await ctx.report_progress(step, None, message)

            return await desk.wait(run_id, wait_seconds, progress)
        except UsageError as exc:
            raise _tool_error(exc) from None


def _add_decide_plan(server: ResearchMcpServer, desk: ResearchDesk) -> None:
    """The tool that decides a run's plan at the plan gate, as `research approve` does."""

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False))
    async def decide_plan(
        run_id: RunId,
        decision: Annotated[
            PlanDecision,
            Field(description="approve the plan as it is, reject it with feedback, or edit it (send the edited plan)."),
        ],
        feedback: Annotated[
            str | None, Field(description="With reject: what the Planner should change; it refines the plan.")
        ] = None,
        plan: Annotated[
            dict[str, Any] | None,
            Field(description="With edit: the whole edited plan.json (as the run's plan resource holds it)."),
        ] = None,
    ) -> dict[str, Any]:
        """Decide a run's plan at the plan gate, exactly as a person does with `research approve`: the decision is
        bound to the plan's hash and recorded in run.json, then the run continues in its own process.

        A rejection makes the Planner refine the plan with your feedback (the run comes back to the plan gate);
        an edit approves the plan you send once it passes the plan's schema and checks. Then wait with
        research_status.
        """
        try:
            return await anyio.to_thread.run_sync(lambda: desk.decide_plan(run_id, decision, feedback, plan))
        except UsageError as exc:
            raise _tool_error(exc) from None


def _add_get_report(server: ResearchMcpServer, desk: ResearchDesk) -> None:
    """The tool that reads a completed run's report, its cited claims and its validation."""

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    async def get_report(run_id: RunId) -> dict[str, Any]:
        """Get a completed run's final report as Markdown, with the claims it cites, the per-question answer
        verdicts where the run records them, and the result of `research validate` on the run folder.

        Each citation in the report links a claim id (C1, C2, …) to its evidence cards; call get_evidence with
        a claim id to see the verbatim quotes and their sources before you rely on a sentence. The report is
        also the resource research://runs/{run_id}/report.
        """
        try:
            out = await anyio.to_thread.run_sync(lambda: agent_door.report(desk.run_dir(run_id)))
        except UsageError as exc:
            raise _tool_error(exc) from None
        out["uri"] = run_uri(run_id, "report")
        return out


def _add_get_evidence(server: ResearchMcpServer, desk: ResearchDesk) -> None:
    """The tool that shows one claim's evidence cards, each with its resource addresses."""

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    async def get_evidence(
        run_id: RunId,
        claim_id: Annotated[str, Field(description="A claim id the report cites, e.g. C1.")],
    ) -> dict[str, Any]:
        """Get the evidence behind one claim: its statement and status, and for each of its evidence cards the
        verbatim quote, its character span in the stored source text, whether it still matches there, and the
        source's title and URL or path.

        Use it to check a sentence of the report before quoting or relying on it; each card and source is also
        a resource (research://runs/{run_id}/cards/{card_id}, …/sources/{source_id}/snapshot).
        """
        try:
            out = agent_door.evidence(desk.run_dir(run_id), claim_id)
        except UsageError as exc:
            raise _tool_error(exc) from None
        for card in out["cards"]:
            card["uri"] = run_uri(run_id, "cards", str(card["card_id"]))
            source = card.get("source")
            if source:
                source["uri"] = run_uri(run_id, "sources", source["source_id"])
                source["snapshot_uri"] = run_uri(run_id, "sources", source["source_id"], "snapshot")
        return out


def _add_ask_followup(server: ResearchMcpServer, desk: ResearchDesk) -> None:
    """The tool that starts a follow-up run on a completed one."""

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, open_world_hint=True))
    async def ask_followup(
        run_id: RunId,
        question: Annotated[str, Field(description="The follow-up question.")],
    ) -> dict[str, Any]:
        """Ask a follow-up question about a completed run: a new run starts with the parent's sources and evidence
        cards, researches only what is new, and carries the parent's budget limits.

        Returns the new run's id at once; like any run it stops at its plan gate (wait with research_status, then
        decide_plan).
        """
        try:
            return await desk.followup(run_id, question)
        except UsageError as exc:
            raise _tool_error(exc) from None


def _add_validate_run(server: ResearchMcpServer, desk: ResearchDesk) -> None:
    """The tool that re-checks a run folder as `research validate` does."""

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    async def validate_run(run_id: RunId) -> dict[str, Any]:
        """Re-check a run folder as `research validate` does: every file against its schema, every quote verbatim
        in its stored source at its span, every citation resolving to claims, cards and sources, and every
        approval bound to what was approved. Returns clean or the list of problems, one line each.
        """
        try:
            run_dir = desk.run_dir(run_id)
        except UsageError as exc:
            raise _tool_error(exc) from None
        return {"run_id": run_id, **(await anyio.to_thread.run_sync(lambda: agent_door.validation(run_dir)))}


def _add_run_resources(server: ResearchMcpServer, desk: ResearchDesk) -> None:
    """The run resources: a run's report, an evidence card, a source's provenance record and its stored text."""

    @server.resource(f"{SCHEME}/{{run_id}}/report", mime_type="text/markdown", title="A run's final report")
    def report_resource(run_id: str) -> str:
        return _read(desk, run_id, FINAL_REPORT)

    @server.resource(f"{SCHEME}/{{run_id}}/cards/{{card_id}}", mime_type="application/json", title="An evidence card")
    def card_resource(run_id: str, card_id: str) -> str:
        return _read(desk, run_id, card_path(_checked(agent_door.CARD_ID, card_id, "card_id")))

    @server.resource(
        f"{SCHEME}/{{run_id}}/sources/{{source_id}}", mime_type="application/json", title="A source's provenance"
    )
    def source_resource(run_id: str, source_id: str) -> str:
        return _read(desk, run_id, source_record_path(_checked(agent_door.SOURCE_ID, source_id, "source_id")))

    @server.resource(
        f"{SCHEME}/{{run_id}}/sources/{{source_id}}/snapshot",
        mime_type="text/plain",
        title="A source's stored text (every quote comes from it)",
    )
    def snapshot_resource(run_id: str, source_id: str) -> str:
        return _read(desk, run_id, snapshot_path(_checked(agent_door.SOURCE_ID, source_id, "source_id")))
