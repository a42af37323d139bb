"""`BudgetGuard`: every model call is checked against the budgets before it is made and charged after, in tokens
and, at the model's price (`pricing.py`), in dollars."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from langchain.agents.middleware import AgentMiddleware
from langchain.agents.middleware.types import ModelRequest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from harness.engines.llm import invocation
from harness.engines.llm.faults import ai_message, is_empty_message
from harness.engines.llm.models import max_output_tokens
from harness.engines.llm.pricing import CallUsage, ModelPrice
from harness.errors import HarnessError
from harness.runtime.budget import Amounts, DelegationTimeout
from harness.runtime.context import AgentContext

DEFAULT_OUTPUT_ALLOWANCE = 4096  # tokens reserved per call when the model has no output bound
TOOL_SCHEMA_ALLOWANCE = 150  # tokens per offered tool schema, on top of its description


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


def worst_case_usd(price: ModelPrice | None, estimate: int, allowance: int) -> float | None:
    """The most a call estimated at `estimate` tokens, `allowance` of them output, can cost (None: price unknown)."""
    return None if price is None else price.worst_case(estimate - allowance, allowance)


def before_call(ctx: AgentContext, estimate: int, allowance: int, price: ModelPrice | None) -> Amounts:
    """Check and hold a call's worst case in every budget: its tokens and, at the model's price, its dollars."""
    return ctx.budget.before_llm_call(estimate, worst_case_usd(price, estimate, allowance))


def charge_reply(
    reply: Any,
    estimate: int,
    allowance: int,
    held: Amounts,
    ctx: AgentContext,
    price: ModelPrice | None = None,
) -> None:
    """Charge a model call that answered: the usage it reports (its dollars priced from that usage, cached input
    at the cached price), else its estimate (only the input part, for an empty reply) at full price."""
    message = ai_message(reply)
    usage = CallUsage.from_metadata(getattr(message, "usage_metadata", None) if message is not None else None)
    used = _used_tokens(message)
    if used:
        usd = None if price is None or usage is None else price.cost(usage)  # `used`: usage was reported
    else:
        input_only = is_empty_message(message)
        used = estimate - allowance if input_only else estimate
        usd = None if price is None else price.worst_case(estimate - allowance, 0 if input_only else allowance)
    ctx.budget.after_llm_call(
        used, _thinking_tokens(message), held, usd=usd, cached=usage.cached if usage is not None else 0
    )


def charge_failed_call(
    exc: BaseException,
    estimate: int,
    allowance: int,
    held: Amounts,
    ctx: AgentContext,
    price: ModelPrice | None = None,
) -> None:
    """Charge a model call that failed. The harness's own stops (budget, deadline) came before the provider saw
    it: what it held is given back. Any other failure (HTTP error, timeout, dropped connection) is charged as
    one call and its input estimate, at the full input price: the provider may have processed the prompt."""
    if isinstance(exc, (HarnessError, DelegationTimeout)):
        ctx.budget.release(held)
    else:
        usd = None if price is None else price.worst_case(estimate - allowance, 0)
        ctx.budget.after_llm_call(estimate - allowance, 0, held, usd=usd)


def last_call_notice(ctx: AgentContext) -> str:
    """What the model is told when the coming call is the last its step's budget allows."""
    missing = ctx.files.missing_outputs()
    duty = ctx.services.duty
    todo = duty.last_call if duty is not None else f"write {', '.join(missing)} now" if missing else "finish"
    return (
        f"[harness] This is your last model call in this step: your budget allows no more after it "
        f"({ctx.budget.line()}). Do not search or read further: {todo}, in this reply. "
        "Anything not written by the end of this reply is lost."
    )


class BudgetGuard(AgentMiddleware):
    """Check each model call against the budgets before it is made; charge what it used after.

    The estimate (input chars / 3 + tool schemas + the model's output bound, or a fixed
    allowance), and its worst-case dollars at the model's price, are checked against every
    limit before the call, so a call that could take a budget over its limit is refused
    with BudgetExhausted. What it used is charged by
    `charge_reply`, a failed call by `charge_failed_call` (the summaries' calls are charged by
    the same two). Retries are
    `ProviderRetry`'s, which sits outside this guard, so every attempt passes through here.
    """

    def __init__(self, *, output_allowance: int | None = None, price: ModelPrice | None = None):
        super().__init__()
        self.output_allowance = output_allowance
        self.price = price  # the model's price (None: unknown; its calls are counted as unpriced)

    def _estimate(self, request: ModelRequest) -> tuple[int, int]:
        """(whole estimate, its output allowance)."""
        allowance = self.output_allowance or max_output_tokens(request.model) or DEFAULT_OUTPUT_ALLOWANCE
        messages = ([request.system_message] if request.system_message is not None else []) + list(request.messages)
        return estimate_tokens(messages, request.tools, allowance), allowance

    def _before(self, request: ModelRequest, ctx: AgentContext) -> tuple[ModelRequest, tuple[int, int, dict]]:
        ctx.budget.check_deadline()
        estimate, allowance = self._estimate(request)
        held = before_call(ctx, estimate, allowance, self.price)
        if ctx.budget.left("llm_calls") == 0:  # this call is the last its budget allows: one turn to save the work
            request = request.override(messages=[*request.messages, HumanMessage(last_call_notice(ctx))])
        return request, (estimate, allowance, held)

    def wrap_model_call(self, request, handler):
        ctx = invocation.of(request.runtime).ctx
        request, estimate = self._before(request, ctx)
        try:
            response = handler(request)
        except Exception as exc:
            charge_failed_call(exc, *estimate, ctx, self.price)
            raise
        charge_reply(response, *estimate, ctx, self.price)
        return response

    async def awrap_model_call(self, request, handler):
        ctx = invocation.of(request.runtime).ctx
        request, estimate = self._before(request, ctx)
        try:
            response = await handler(request)
        except Exception as exc:
            charge_failed_call(exc, *estimate, ctx, self.price)
            raise
        charge_reply(response, *estimate, ctx, self.price)
        return response
