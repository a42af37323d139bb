"""`DeepAgentRole`: one role run as a deepagents agent, compiled once per run.

The agent sees its system prompt (the spec's prompt plus an output contract generated
from the artifact's JSON Schema) and one message, the brief, never the parent's
conversation. It works on the run workspace through a `FilesystemBackend` rooted there,
with `FilesystemPermission` rules from the spec's reads/writes; its writes land only
through the workspace API (`WorkspaceWriteGuard`); it is offered exactly the spec's
tools (`ToolAllowlist`); each model call is budgeted (`BudgetGuard`), and provider faults
are retried with backoff, each attempt budgeted and traced (`ProviderRetry`). Library
scratch (evicted large tool results, summarized history) goes to an in-memory
`/scratch/` route, never into the audited folders.

The compiled graph is shared by every delegation of the role in one run, concurrent
research branches included; each delegation's context and retry loop travel as the
graph's runtime context (`invocation.Invocation`), so the guards never mix them up.
"""

from __future__ import annotations

import dataclasses
import json
import re
import threading
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.messages.utils import count_tokens_approximately
from langgraph.errors import GraphRecursionError

from harness.contract import statuses
from harness.contract.formats import today
from harness.contract.globs import literal_folders
from harness.contract.layout import kind_for_path
from harness.contract.specs import AgentSpec
from harness.engines.llm.faults import ProviderError, is_context_overflow
from harness.engines.llm.file_tools import DESCRIPTIONS, FS_TOOLS, WRITE_TOOLS
from harness.engines.llm.harness_tools import build_harness_tools, build_mcp_tools
from harness.engines.llm.invocation import Invocation
from harness.engines.llm.middleware import (
    DEFAULT_MALFORMED_REPLIES,
    BudgetGuard,
    ContextWindowFit,
    EndWhenWritten,
    MalformedReplies,
    NoSubagents,
    ProviderRetry,
    ToolAllowlist,
    ToolCallCheck,
    WholeReads,
    WorkspaceWriteGuard,
    budgeted_summarization,
    malformed_sentence,
    shorten_old_results,
)
from harness.engines.llm.models import resolve_model
from harness.engines.llm.output_contract import output_contract
from harness.engines.llm.pricing import ModelPrice
from harness.engines.llm.replies import strip_reasoning
from harness.engines.llm.retry import Retrier, RetryPolicy, record_faults
from harness.errors import ArtifactInvalid, PathRefused, PermissionRefused, ProviderUnavailable
from harness.runtime.budget import BudgetExhausted
from harness.runtime.context import AgentContext
from harness.runtime.files import DEFAULT_WRITE_RETRIES
from harness.runtime.interface import AgentResult, Brief

SCRATCH = "/scratch/"
SUMMARY_CHARS = 500
BLOCKED = "BLOCKED:"


# ---- permissions ----------------------------------------------------------------------------


def _dirs_of(glob: str) -> list[str]:
    """Literal folders above a glob's first wildcard: 'sources/*.json' -> ['/', '/sources']."""
    out, prefix = ["/"], ""
    for part in literal_folders(glob):
        prefix += "/" + part
        out.append(prefix)
    return out


def permission_rules(spec: AgentSpec) -> list:
    """FilesystemPermission rules from the spec's reads/writes; the first matching rule wins."""
    from deepagents.middleware.filesystem import FilesystemPermission

    reads = ["/" + g.lstrip("/") for g in spec.reads]
    writes = ["/" + g.lstrip("/") for g in spec.writes]
    folders: list[str] = []
    for g in spec.reads:
        for d in _dirs_of(g):
            for form in (d, d.rstrip("/") + "/"):
                if form not in folders:
                    folders.append(form)
    rules = [
        FilesystemPermission(operations=["read", "write"], paths=["/.harness", "/.harness/**"], mode="deny"),
        FilesystemPermission(operations=["read"], paths=[SCRATCH.rstrip("/"), SCRATCH + "**"] + reads + folders),
    ]
    if writes:
        rules.append(FilesystemPermission(operations=["write"], paths=writes))
    rules.append(FilesystemPermission(operations=["read", "write"], paths=["/**"], mode="deny"))
    return rules


# ---- the role ---------------------------------------------------------------------------------


def budget_sentence(limits: dict[str, Any]) -> str:
    """The limits that judge one step of a role, in words (its spec's `limits`)."""
    parts = [
        f"{limits[k]} {label}"
        for k, label in (
            ("llm_calls", "model calls"),
            ("searches", "searches"),
            ("tokens", "tokens"),
            ("wall_seconds", "seconds"),
        )
        if limits.get(k)
    ]
    return (
        "This step may spend at most " + ", ".join(parts) + ". Tool replies end with what is left "
        "(e.g. `[search 3 of 8; 21 model calls left]`). When one model call is left you are told so: use it to "
        "write what you have. A step that runs out ends with what it has written; nothing else is kept."
    )


def _final_text(messages: list[Any]) -> str:
    """The last reply's text without its reasoning blocks: what is read as a status or a document."""
    for m in reversed(messages):
        if isinstance(m, AIMessage):
            return strip_reasoning(m.text or "")
    return ""


class DeepAgentRole:
    """A role on the llm engine: `DeepAgentRole(spec, model).run(brief, ctx) -> AgentResult`.

    `model` is a chat model or a `provider:name` string (checked by `preflight` now, so
    a missing key or package is reported before any work). Options: `evict_tokens`
    (tool results larger than this go to /scratch/, default 20000), `retry` (a
    `RetryPolicy` for provider faults; default `RetryPolicy.from_env()`), `empty_retries`
    (re-asks after an empty reply or MALFORMED_FUNCTION_CALL; overrides the policy's
    `empty_attempts - 1`), `sleep` (how backoff waits; tests pass a recorder), `price` (the
    model's price, `pricing.role_price`; None: its calls are counted as unpriced).
    """

    def __init__(
        self,
        spec: AgentSpec,
        model: BaseChatModel | str,
        *,
        evict_tokens: int | None = 20000,
        empty_retries: int | None = None,
        retry: RetryPolicy | None = None,
        sleep: Any = None,
        mcp_tools: Any = (),
        price: ModelPrice | None = None,
    ):
        self.spec = spec
        self.price = price  # the model's price (pricing.role_price); None: unknown, its calls counted as unpriced
        self.mcp_tools = tuple(mcp_tools)  # the run's MCP tools (sources/mcp.McpTool), when the spec lists `mcp`
        self.model = resolve_model(model) if isinstance(model, str) else model
        self.evict_tokens = evict_tokens
        policy = retry or RetryPolicy.from_env()
        if empty_retries is not None:
            policy = dataclasses.replace(policy, empty_attempts=empty_retries + 1)
        self.retry = policy
        self.sleep = sleep
        self.retrier: Retrier | None = (
            None  # the most recently started delegation's (for tests; branches run concurrently)
        )
        self._compiled: tuple[tuple[str, str, str | None], Any] | None = None  # (workspace, run id, model) -> graph
        self._compile_lock = threading.Lock()

    # The pieces, public so tests and the orchestrator's trace can show them.

    def system_prompt(self, ctx: AgentContext) -> str:
        return self._system_prompt(ctx.run_id, ctx.model)

    def _system_prompt(self, run_id: str, model: str | None) -> str:
        """The spec's prompt, then only what holds for the tools the role is offered (every call resends it):
        the output contract and the write rules for a role that writes files (a Researcher's cards are made by
        `record_evidence`, not written), the file-tool conventions for one that has file tools."""
        spec = self.spec
        tools = set(self.offered_tools())
        writes = bool(tools & set(WRITE_TOOLS))
        retries = int(spec.limits.get("write_retries", DEFAULT_WRITE_RETRIES))
        workspace = ["## Workspace"]
        if tools & set(FS_TOOLS):
            workspace.append(
                "Paths are relative to the run workspace, whose root is `/` for the file tools (e.g. `/plan.json`)."
                + (" `read_file` returns the whole file unless you pass `limit`." if "read_file" in tools else "")
            )
            workspace.append(f"You may read: {', '.join(spec.reads) or 'nothing'}.")
        if writes:
            identity = json.dumps({"role": spec.role, "engine": "llm", "model": model})
            workspace += [
                f"You may write: {', '.join(spec.writes) or 'nothing'}. Every write is validated before it lands; a "
                f"refused write says what is wrong and writes nothing. The same file may be refused {retries} times: "
                "its next refusal ends the step.",
                f"Record yourself as {identity} wherever an artifact asks who produced it (`extracted_by`, "
                f"`reviewed_by`); the run id is {run_id}.",
            ]
        workspace += [
            f"Today is {today()}. If you cannot do the task, reply with one line starting `{BLOCKED}` followed by "
            "the reason.",
            malformed_sentence(self.malformed_bound()),
            "",
            "## Budget",
            budget_sentence(spec.limits),
        ]
        contract = [output_contract(spec.output_schema)] if writes else []
        return "\n\n".join([spec.prompt.strip(), *contract, "\n".join(workspace)])

    def offered_tools(self) -> tuple[str, ...]:
        """The spec's tools, its `mcp` entry standing for each tool of the run's MCP servers (mcp_<server>_<tool>)."""
        names = [t for t in self.spec.tools if t != "mcp"]
        if "mcp" in self.spec.tools:
            names += [t.qualified for t in self.mcp_tools]
        return tuple(names)

    def malformed_bound(self) -> int:
        return int(self.spec.limits.get("malformed_replies", DEFAULT_MALFORMED_REPLIES))

    def build(self, ctx: AgentContext):
        """The compiled agent for `ctx`'s run: built by the first delegation, reused by the rest.

        Invoke it with `context=Invocation(ctx, retrier)`. What it is compiled from is the
        same for every delegation of the role in one run (spec, model, the run's workspace
        and id); a context from another run or workspace gets a graph of its own.
        """
        return self.prepare(ctx.files.root, ctx.run_id, ctx.model)

    def prepare(self, root: Path, run_id: str, model: str | None):
        """Compile the agent for this run now (the runner calls it ahead, while other roles wait on
        their models) and size its tools' schemas; a later `build` for the same run reuses it."""
        key = (str(root), run_id, model)
        with self._compile_lock:  # parallel branches: one compiles, the others wait for it
            if self._compiled is None or self._compiled[0] != key:
                agent = self._compile(root, run_id, model)
                tools = agent.nodes["tools"].bound.tools_by_name.values()
                count_tokens_approximately([], tools=list(tools))  # the schemas every call's token count needs
                self._compiled = (key, agent)
            return self._compiled[1]

    def _compile(self, root: Path, run_id: str, model: str | None):
        from deepagents import create_deep_agent
        from deepagents.backends import CompositeBackend, FilesystemBackend, StateBackend
        from deepagents.middleware.filesystem import FilesystemMiddleware, FsToolName
        from deepagents.middleware.subagents import CompiledSubAgent
        from langchain_core.runnables import RunnableLambda

        spec = self.spec
        backend = CompositeBackend(
            default=FilesystemBackend(root_dir=root, virtual_mode=True),
            routes={SCRATCH: StateBackend()},
            artifacts_root=SCRATCH.rstrip("/"),
        )
        fs_tools: list[FsToolName] = [t for t in FS_TOOLS if t in spec.tools]
        if "read_file" not in fs_tools:  # deepagents requires it; ToolAllowlist hides it when the spec omits it
            fs_tools.insert(0, "read_file")
        # A placeholder "general-purpose" entry stops create_deep_agent from building the default
        # general-purpose subagent; NoSubagents then takes the SubAgentMiddleware slot, so no `task` tool.
        placeholder: CompiledSubAgent = {
            "name": "general-purpose",
            "description": "unused",
            "runnable": RunnableLambda(lambda _state: {"messages": []}),
        }
        filesystem = FilesystemMiddleware(
            backend=backend,
            tools=fs_tools,
            custom_tool_descriptions=DESCRIPTIONS,
            tool_token_limit_before_evict=self.evict_tokens,
        )
        harness_tools = build_harness_tools(spec) + build_mcp_tools(self.mcp_tools if "mcp" in spec.tools else ())
        offered = [t for t in [*filesystem.tools, *harness_tools] if t.name in self.offered_tools()]
        middleware = [
            filesystem,
            NoSubagents(),
            EndWhenWritten(),  # before summarization: a step that is done summarizes nothing either
            budgeted_summarization(self.model, backend, self.price),
            shorten_old_results(),  # before the budget guard: a call is estimated and charged as it is sent
            ToolAllowlist(self.offered_tools(), spec.role, per_step={t.qualified for t in self.mcp_tools}),
            ToolCallCheck(offered, self.malformed_bound(), spec.role),  # before any guard sees a call's arguments
            WorkspaceWriteGuard(),
            WholeReads(),
            ContextWindowFit(),  # outside the retries: a prompt too long is cut, not retried as is
            ProviderRetry(),  # outside BudgetGuard: every attempt is checked and charged
            BudgetGuard(price=self.price),
        ]
        return create_deep_agent(
            model=self.model,
            tools=harness_tools,
            system_prompt=self._system_prompt(run_id, model),
            middleware=middleware,
            subagents=[placeholder],
            permissions=permission_rules(spec),
            backend=backend,
            name=f"{spec.role}-llm",
            context_schema=Invocation,
            # A delegation is one unit of work for the parent: it restarts from its brief on
            # resume, so it must not inherit the parent's checkpointer (which would resume it
            # mid-conversation after its partial outputs were cleaned up).
            checkpointer=False,
        )

    def new_retrier(self, ctx: AgentContext) -> Retrier:
        """One delegation's retry loop. An empty reply after the step wrote its outputs is its final word."""
        return Retrier(
            self.retry, ctx, sleep=self.sleep, accept_empty=lambda _msg: bool(ctx.files.outputs), label=self.spec.role
        )

    def recursion_limit(self) -> int:
        calls = int(self.spec.limits.get("llm_calls") or 50)
        # each model call is the check that the step is not already done (EndWhenWritten.before_model), a model
        # step, the check of its tool calls (ToolCallCheck.after_model) and a tool step; each retry of an empty
        # reply stays in one step
        return 4 * calls + 10

    def _invoke(self, agent: Any, messages: list[Any], ctx: AgentContext, retrier: Retrier) -> list[Any]:
        try:
            result = agent.invoke(
                {"messages": messages},
                config={"recursion_limit": self.recursion_limit()},
                context=Invocation(ctx, retrier),
            )
        except GraphRecursionError:
            raise BudgetExhausted(
                f"{self.spec.role}: the agent ran past its step limit ({self.recursion_limit()} steps)", "delegation"
            ) from None
        return result.get("messages", [])

    def run(self, brief: Brief, ctx: AgentContext) -> AgentResult:
        retrier = self.new_retrier(ctx)  # one per delegation: parallel research branches share this role object
        self.retrier = retrier
        agent = self.build(ctx)
        try:
            messages = self._invoke(agent, [HumanMessage(brief.render())], ctx, retrier)
            text = _final_text(messages)
            if not text.startswith(BLOCKED) and ctx.files.missing_outputs() and not _write_from_reply(text, ctx):
                # One nudge, naming what is missing; the conversation goes on where it stopped.
                messages = self._invoke(agent, [*messages, HumanMessage(missing_notice(ctx, messages))], ctx, retrier)
                text = _final_text(messages)
                if not text.startswith(BLOCKED) and ctx.files.missing_outputs():
                    _write_from_reply(text, ctx)
        except MalformedReplies as exc:  # the model kept sending calls that cannot run: it ends with what it has
            if ctx.files.missing_outputs():
                return AgentResult(statuses.FAILED, summary=f"{self.spec.role}: {exc}", blocked_reason=str(exc))
            return AgentResult(statuses.COMPLETED, summary=f"stopped with its outputs written: {exc}")
        except ProviderError as exc:  # the provider kept failing past the retry bound
            if isinstance(exc, ProviderUnavailable):
                raise  # an outage: the run waits at this step (`interrupted`) and a resume runs it again
            return AgentResult(
                statuses.FAILED, summary=f"{self.spec.role}: {exc}"[:SUMMARY_CHARS], blocked_reason=str(exc)
            )
        except Exception as exc:
            if not is_context_overflow(exc):
                raise
            return _out_of_context(exc, ctx)  # cut and compacted, it still does not fit: it ends with what it has
        finally:
            record_faults(ctx, retrier.faults)  # after the agent stopped: never counted as refused writes
        if text.startswith(BLOCKED):
            reason = text[len(BLOCKED) :].strip() or "blocked (no reason given)"
            return AgentResult(statuses.BLOCKED, summary=text[:SUMMARY_CHARS], blocked_reason=reason)
        if missing := ctx.files.missing_outputs():
            why = f"wrote no {', '.join(missing)}" + (
                f"; its last reply: {text[:200]}" if text else " and replied with nothing"
            )
            return AgentResult(statuses.FAILED, summary=text[:SUMMARY_CHARS], blocked_reason=why)
        summary = text or f"wrote {', '.join(sorted(ctx.files.outputs))}"  # ended once its outputs landed
        return AgentResult(statuses.COMPLETED, summary=summary[:SUMMARY_CHARS])


def _out_of_context(exc: Exception, ctx: AgentContext) -> AgentResult:
    """A step whose prompt no longer fits the model's context window: completed when its outputs are written,
    else blocked with that reason (a Researcher's as no_evidence), never failed: a larger model can do it."""
    first = " ".join(str(exc).split())[:160]
    if not ctx.files.missing_outputs():
        return AgentResult(
            statuses.COMPLETED, summary=f"stopped with its outputs written: the context window is full ({first})"
        )
    prefix = "no_evidence: " if ctx.services.duty is not None else ""
    reason = f"{prefix}the prompt no longer fits the model's context window, even cut and compacted ({first})"
    return AgentResult(statuses.BLOCKED, summary=reason[:SUMMARY_CHARS], blocked_reason=reason)


def missing_notice(ctx: AgentContext, messages: list[Any] | None = None) -> str:
    """The one nudge a step gets when it stops without writing its outputs (after a reply in text, it says
    such a reply is not saved; after anything else, only what is missing)."""
    missing = ctx.files.missing_outputs()
    if (duty := ctx.services.duty) is not None:  # its outputs come through a service (a Researcher's cards)
        return duty.nudge.format(blocked=BLOCKED)
    why = ": a reply in text is not saved" if _final_text(messages or []) else " yet"
    return (
        f"[harness] You have not written {', '.join(missing)}{why}. Write it now with "
        f"write_file (the whole file), or reply `{BLOCKED}` with the reason you cannot."
    )


def _write_from_reply(text: str, ctx: AgentContext) -> bool:
    """When a step's last reply is itself the document its one missing output needs (models often answer in text),
    write it through the same guards; traced as written from the reply. True when it landed."""
    missing = ctx.files.missing_outputs()
    if len(missing) != 1 or any(ch in missing[0] for ch in "*?[{"):
        return False
    rel = missing[0]
    kind = kind_for_path(rel)
    document = document_in_reply(text, kind.fmt if kind else "")
    if document is None:
        return False
    try:
        ctx.write(rel, document)
    except (ArtifactInvalid, PermissionRefused, PathRefused):
        return False  # refused like any write (and counted); the nudge asks for it properly
    ctx.notes.append(f"{rel}: written from the {ctx.role}'s reply (it answered in text instead of calling write_file)")
    return True


_FENCE = re.compile(r"^\s*```[\w-]*\s*\n(.*?)\n\s*```\s*$", re.S)


def document_in_reply(text: str, fmt: str) -> Any | None:
    """The document a text reply carries: a JSON object for a JSON artifact, a Markdown document for a draft."""
    if not text:
        return None
    fenced = _FENCE.match(text)
    body = fenced.group(1) if fenced else text
    if fmt == "json":
        start, end = body.find("{"), body.rfind("}")
        if start < 0 or end <= start:
            return None
        try:
            doc = json.loads(body[start : end + 1])
        except ValueError:
            return None
        return doc if isinstance(doc, dict) else None
    if fmt == "markdown":
        lines = [ln for ln in body.strip().splitlines() if ln.strip()]
        return body.strip() + "\n" if len(lines) >= 3 and (lines[0].startswith("#") or "[@" in body) else None
    return None
