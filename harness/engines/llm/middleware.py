"""The llm engine's guards, one middleware per concern.

- `WorkspaceWriteGuard`: `write_file` / `edit_file` land only through `ctx.write` (role
  globs, the brief's declared outputs, schema, cross-file checks, atomic write, run.json
  index); a refusal goes back to the model as an error it can fix, and the retry bound
  ends the step.
- `ToolAllowlist`: the model is offered exactly the spec's tools and may call nothing else.
- `WholeReads`: `read_file` returns whole files unless the model asks for a window.
- `BudgetGuard`: every model call is checked against the budgets before it is made and
  charged after (a failed call too).
- `ProviderRetry`: provider faults (429, 5xx, timeouts, dropped connections, empty replies,
  MALFORMED_FUNCTION_CALL) are retried with backoff, bounded; each attempt passes `BudgetGuard`.
- `NoSubagents`: takes the `SubAgentMiddleware` slot of a deep agent, so there is no
  `task` tool and no general-purpose subagent.
- `budgeted_summarization`: deepagents' summarization, with its model calls charged too.

Each provides sync and async hooks (langchain calls `awrap_*` under `ainvoke`/`astream`).
The middleware is built once per role and run and shared by concurrent delegations: what
belongs to one delegation (its `AgentContext`, its retry loop) comes from the runtime
context of the call (`delegation.of(request.runtime)`), never from an attribute.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from langchain.agents.middleware import AgentMiddleware
from langchain.agents.middleware.types import ModelRequest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage, get_buffer_string

from harness.engines.llm import delegation
from harness.engines.llm.faults import ai_message, is_empty_message
from harness.engines.llm.models import max_output_tokens
from harness.errors import ArtifactInvalid, HarnessError, PathRefused, PermissionRefused, WorkspaceError
from harness.runtime.budget import DelegationTimeout
from harness.runtime.context import AgentContext
from harness.workspace.paths import normalize_relpath

WRITE_TOOLS = ("write_file", "edit_file")
DEFAULT_OUTPUT_ALLOWANCE = 4096  # tokens reserved per call when the model has no output bound
TOOL_SCHEMA_ALLOWANCE = 150  # tokens per offered tool schema, on top of its description


# ---- helpers --------------------------------------------------------------------------


def _tool_name(tool: Any) -> str | None:
    if isinstance(tool, dict):
        return tool.get("name") or (tool.get("function") or {}).get("name")
    return getattr(tool, "name", None)


def _error(call: dict[str, Any], text: str) -> ToolMessage:
    return ToolMessage(content=text, name=call.get("name"), tool_call_id=call.get("id"), status="error")


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


def _virtual_to_rel(path: Any) -> str:
    """The canonical workspace-relative form of a tool's virtual path ('/claims.json' -> 'claims.json').

    Canonical ('/reviews/./review-1.json' -> 'reviews/review-1.json'), because the guards that
    act on one path (the review guard, the declared-outputs check) compare path strings. A
    path that cannot be normalized is passed on as given; the workspace refuses it.
    """
    if not isinstance(path, str):
        return ""
    rel = path.strip().lstrip("/")
    try:
        return normalize_relpath(rel)
    except PathRefused:
        return rel


# ---- writes -------------------------------------------------------------------------------


class WorkspaceWriteGuard(AgentMiddleware):
    """Performs `write_file` / `edit_file` through `ctx.write` instead of the backend.

    The backend never writes to the workspace: a call is validated and landed (atomically,
    indexed in run.json) by the workspace API, or refused with a one-line error naming the
    file, the JSON pointer and the rule. `WriteRetriesExhausted` (raised by `ctx.write`
    past the spec's bound) propagates and fails the step.
    """

    def _perform(self, call: dict[str, Any], ctx: AgentContext) -> ToolMessage:
        args = call.get("args") or {}
        rel = _virtual_to_rel(args.get("file_path"))
        try:
            if call["name"] == "edit_file":
                content = self._edited(call, rel, args, ctx)
                if isinstance(content, ToolMessage):
                    return content
            else:
                content = args.get("content")
                if not isinstance(content, str):
                    return _error(call, "Error: write_file needs `content` as a string (the whole file)")
            record = ctx.write(rel, content)  # refuses paths this step's brief does not name, for every engine
        except (ArtifactInvalid, PermissionRefused, PathRefused) as exc:
            return _error(
                call,
                f"Error: write refused, nothing was written: {_one_line(exc)}. "
                f"Fix what it names and write the whole file again.",
            )
        return ToolMessage(
            content=f"Wrote /{record.path} ({record.size} bytes, sha256 {record.sha256[:12]}); it passed validation.",
            name=call["name"],
            tool_call_id=call.get("id"),
            status="success",
        )

    def _edited(self, call: dict[str, Any], rel: str, args: dict[str, Any], ctx: AgentContext) -> str | ToolMessage:
        old, new = args.get("old_string"), args.get("new_string")
        if not isinstance(old, str) or not isinstance(new, str) or not old:
            return _error(call, "Error: edit_file needs a non-empty old_string and a new_string")
        if not ctx.spec.policy.may_read(rel):
            raise PermissionRefused(
                f"{rel}: role '{ctx.role}' may not read this path, so it cannot edit it; "
                f"write the whole file with write_file"
            )
        try:
            current = ctx.read_text(rel)
        except WorkspaceError as exc:
            if isinstance(exc, (PermissionRefused, PathRefused)):
                raise
            return _error(call, f"Error: {_one_line(exc)}")
        count = current.count(old)
        if count == 0:
            return _error(call, f"Error: old_string was not found in /{rel}")
        if count > 1 and not args.get("replace_all"):
            return _error(
                call, f"Error: old_string occurs {count} times in /{rel}; give more context or set replace_all"
            )
        return current.replace(old, new) if args.get("replace_all") else current.replace(old, new, 1)

    def _intercept(self, request: Any) -> ToolMessage | None:
        call = request.tool_call
        if call.get("name") not in WRITE_TOOLS:
            return None
        return self._perform(call, delegation.of(request.runtime).ctx)

    def wrap_tool_call(self, request, handler):
        result = self._intercept(request)
        return result if result is not None else handler(request)

    async def awrap_tool_call(self, request, handler):
        result = self._intercept(request)
        return result if result is not None else await handler(request)


# ---- reads ----------------------------------------------------------------------------------

READ_LINES = 5000  # lines a read_file call returns when the model names no limit (deepagents' own default is 100)


class WholeReads(AgentMiddleware):
    """`read_file` returns the whole file unless the model asks for a window, so no artifact is cut off silently.

    deepagents reads 100 lines by default, which cuts claims.json or plan.json off after a few
    entries. Past READ_LINES lines, or past the tool-result size bound (then the result is
    evicted to /scratch/ with a preview), the reply says so and how to page on.
    """

    @staticmethod
    def _whole(request: Any) -> Any:
        call = request.tool_call
        if call.get("name") != "read_file" or (call.get("args") or {}).get("limit") is not None:
            return request
        return request.override(tool_call={**call, "args": {**(call.get("args") or {}), "limit": READ_LINES}})

    def wrap_tool_call(self, request, handler):
        return handler(self._whole(request))

    async def awrap_tool_call(self, request, handler):
        return await handler(self._whole(request))


# ---- tools ----------------------------------------------------------------------------------


class ToolAllowlist(AgentMiddleware):
    """Offer the model exactly `allowed` and refuse a call to anything else (nothing inherited, no `task`).

    `per_step` names tools offered only to the steps whose context allows them: the MCP tools, shown to a
    research branch only when its plan question allows their server (`AgentContext.mcp_tools`); a call to
    one anyway is refused by the context."""

    def __init__(self, allowed: Iterable[str], role: str, per_step: Iterable[str] = ()):
        super().__init__()
        self.allowed = tuple(allowed)
        self.role = role
        self.per_step = frozenset(per_step)

    def _filter(self, request: ModelRequest) -> ModelRequest:
        offered = set(self.allowed)
        if self.per_step:
            mine = {t.qualified for t in delegation.of(request.runtime).ctx.mcp_tools()}
            offered -= self.per_step - mine
        tools = [t for t in request.tools if _tool_name(t) in offered]
        return request.override(tools=tools) if len(tools) != len(request.tools) else request

    def _refusal(self, request: Any) -> ToolMessage | None:
        call = request.tool_call
        if call.get("name") in self.allowed:
            return None
        return _error(
            call,
            f"Error: there is no tool named {call.get('name')!r} for the {self.role}; "
            f"your tools are: {', '.join(self.allowed) or 'none'}",
        )

    def wrap_model_call(self, request, handler):
        return handler(self._filter(request))

    async def awrap_model_call(self, request, handler):
        return await handler(self._filter(request))

    def wrap_tool_call(self, request, handler):
        refusal = self._refusal(request)
        return refusal if refusal is not None else handler(request)

    async def awrap_tool_call(self, request, handler):
        refusal = self._refusal(request)
        return refusal if refusal is not None else await handler(request)


# ---- budget ---------------------------------------------------------------------------------


def estimate_tokens(
    messages: Iterable[BaseMessage], tools: Iterable[Any] = (), output_allowance: int = DEFAULT_OUTPUT_ALLOWANCE
) -> int:
    """A conservative bound on a call's tokens: input characters / 3, tool schemas, plus the output allowance."""
    chars = 0
    for m in messages:
        content = m.content
        chars += len(content) if isinstance(content, str) else len(str(content))
        for call in getattr(m, "tool_calls", None) or []:
            chars += len(str(call.get("name"))) + len(str(call.get("args")))
    tool_tokens = 0
    for t in tools:
        tool_tokens += (
            TOOL_SCHEMA_ALLOWANCE
            + len(str(getattr(t, "description", "") or (t.get("description", "") if isinstance(t, dict) else ""))) // 3
        )
    return math.ceil(chars / 3) + tool_tokens + output_allowance


def _used_tokens(message: AIMessage | None) -> int | None:
    usage = getattr(message, "usage_metadata", None) if message is not None else None
    if not usage:
        return None
    total = usage.get("total_tokens") or (usage.get("input_tokens", 0) + usage.get("output_tokens", 0))
    return int(total) if total else None


def _thinking_tokens(message: AIMessage | None) -> int:
    """The reasoning tokens a reply reports (Gemini's thoughts, OpenAI's reasoning): part of its total, shown apart."""
    usage = getattr(message, "usage_metadata", None) if message is not None else None
    details = (usage or {}).get("output_token_details") or {}
    return int(details.get("reasoning") or 0)


def last_call_notice(ctx: AgentContext) -> str:
    """What the model is told when the coming call is the last its step's budget allows."""
    missing = ctx.missing_outputs()
    todo = (
        "record the evidence you have with record_evidence"
        if "record_evidence" in ctx.spec.tools
        else f"write {', '.join(missing)} now"
        if missing
        else "finish"
    )
    return (
        f"[harness] This is your last model call in this step: your budget allows no more after it "
        f"({ctx.budget_line()}). Do not search or read further: {todo}, in this reply. "
        "Anything not written by the end of this reply is lost."
    )


class BudgetGuard(AgentMiddleware):
    """Check each model call against the budgets before it is made; charge what it used after.

    The estimate (input chars / 3 + tool schemas + the model's output bound, or a fixed
    allowance) is checked against every limit before the call, so a call that could take
    a budget over its limit is refused with BudgetExhausted. Usage metadata is charged when
    the provider reports it, else the estimate (only its input part for an empty reply). A
    call that fails (HTTP error, timeout, dropped connection) is charged too, as one call
    and its input estimate: the provider may have processed the prompt. Retries are
    `ProviderRetry`'s, which sits outside this guard, so every attempt passes through here.
    """

    def __init__(self, *, output_allowance: int | None = None):
        super().__init__()
        self.output_allowance = output_allowance

    def _estimate(self, request: ModelRequest) -> tuple[int, int]:
        """(whole estimate, its output allowance)."""
        allowance = self.output_allowance or max_output_tokens(request.model) or DEFAULT_OUTPUT_ALLOWANCE
        messages = ([request.system_message] if request.system_message is not None else []) + list(request.messages)
        return estimate_tokens(messages, request.tools, allowance), allowance

    def _before(self, request: ModelRequest, ctx: AgentContext) -> tuple[ModelRequest, tuple[int, int, dict]]:
        ctx.check_deadline()
        estimate, allowance = self._estimate(request)
        held = ctx.before_llm_call(estimate)
        if ctx.budget.left("llm_calls") == 0:  # this call is the last its budget allows: one turn to save the work
            request = request.override(messages=[*request.messages, HumanMessage(last_call_notice(ctx))])
        return request, (estimate, allowance, held)

    @staticmethod
    def _after(response: Any, estimate: tuple[int, int, dict], ctx: AgentContext) -> None:
        message = ai_message(response)
        whole, allowance, held = estimate
        ctx.after_llm_call(
            _used_tokens(message) or (whole - allowance if is_empty_message(message) else whole),
            _thinking_tokens(message),
            held,
        )

    @staticmethod
    def _failed(exc: BaseException, estimate: tuple[int, int, dict], ctx: AgentContext) -> None:
        whole, allowance, held = estimate
        if isinstance(exc, (HarnessError, DelegationTimeout)):
            ctx.release(held)  # stopped before the provider saw it
        else:
            ctx.after_llm_call(whole - allowance, 0, held)

    def wrap_model_call(self, request, handler):
        ctx = delegation.of(request.runtime).ctx
        request, estimate = self._before(request, ctx)
        try:
            response = handler(request)
        except Exception as exc:
            self._failed(exc, estimate, ctx)
            raise
        self._after(response, estimate, ctx)
        return response

    async def awrap_model_call(self, request, handler):
        ctx = delegation.of(request.runtime).ctx
        request, estimate = self._before(request, ctx)
        try:
            response = await handler(request)
        except Exception as exc:
            self._failed(exc, estimate, ctx)
            raise
        self._after(response, estimate, ctx)
        return response


class ProviderRetry(AgentMiddleware):
    """Retry a model call on provider faults (429, 5xx, timeouts, empty replies, MALFORMED_FUNCTION_CALL).

    Bounded and backed off by the delegation's `Retrier` (see `retry.py`); it sits outside
    `BudgetGuard`, so each attempt is checked and charged like any call. Past the bound,
    `ProviderError` ends the step.
    """

    def wrap_model_call(self, request, handler):
        return delegation.of(request.runtime).retrier.call(lambda: handler(request))

    async def awrap_model_call(self, request, handler):
        return await delegation.of(request.runtime).retrier.acall(lambda: handler(request))


# ---- structure ------------------------------------------------------------------------------


class NoSubagents(AgentMiddleware):
    """Occupies the `SubAgentMiddleware` slot of `create_deep_agent`, so the agent has no `task` tool."""

    tools = ()

    @property
    def name(self) -> str:
        return "SubAgentMiddleware"


def budgeted_summarization(model: Any, backend: Any):
    """deepagents' SummarizationMiddleware whose summary calls go through the same budget checks and retries."""
    from deepagents.middleware.summarization import DEEPAGENTS_DEFAULT_SUMMARY_PROMPT, create_summarization_middleware

    allowance = max_output_tokens(model) or DEFAULT_OUTPUT_ALLOWANCE

    def summarize(messages: list[BaseMessage]) -> str:
        # called inside the model node, which is not handed a runtime: read the graph run's own
        current = delegation.current()
        ctx, retrier = current.ctx, current.retrier
        prompt = DEEPAGENTS_DEFAULT_SUMMARY_PROMPT.format(messages=get_buffer_string(messages, format="xml")).rstrip()
        estimate = estimate_tokens([HumanMessage(prompt)], (), allowance)

        def attempt():
            ctx.check_deadline()
            held = ctx.before_llm_call(estimate)
            try:
                reply = model.invoke(prompt)
            except Exception as exc:
                if isinstance(exc, (HarnessError, DelegationTimeout)):
                    ctx.release(held)
                else:
                    ctx.after_llm_call(estimate - allowance, 0, held)
                raise
            tokens = _used_tokens(reply) or (estimate - allowance if is_empty_message(reply) else estimate)
            ctx.after_llm_call(tokens, _thinking_tokens(reply), held)
            return reply

        reply = retrier.call(attempt, accept_empty=True)
        return (reply.text or "").strip() or "No summary was produced."

    return create_summarization_middleware(model, backend, summarizer=summarize, token_counter=_token_counter())


def _token_counter():
    """deepagents' approximate token count, with each tool set's schema size counted once per compiled agent
    (the default re-serializes every tool schema before every model call)."""
    from langchain_core.messages.utils import count_tokens_approximately

    schema_tokens: dict[tuple[int, ...], int] = {}

    def count(messages, *, tools=None, **kw) -> int:
        n = count_tokens_approximately(messages, **kw)
        if tools:
            key = tuple(id(t) for t in tools)
            if key not in schema_tokens:
                schema_tokens[key] = count_tokens_approximately([], tools=list(tools))
            n += schema_tokens[key]
        return n

    return count
