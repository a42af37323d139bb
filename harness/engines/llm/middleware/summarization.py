"""`budgeted_summarization`: deepagents' summarization, with its model calls budgeted and retried like any other."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AnyMessage, HumanMessage, get_buffer_string

from harness.engines.llm import invocation
from harness.engines.llm.middleware.budget_guard import (
    DEFAULT_OUTPUT_ALLOWANCE,
    before_call,
    charge_failed_call,
    charge_reply,
    estimate_tokens,
)
from harness.engines.llm.models import max_output_tokens
from harness.engines.llm.pricing import ModelPrice


def budgeted_summarization(model: Any, backend: Any, price: ModelPrice | None = None):
    """deepagents' SummarizationMiddleware whose summary calls go through the same budget checks (tokens and, at
    `price`, dollars) and retries."""
    from deepagents.middleware.summarization import DEEPAGENTS_DEFAULT_SUMMARY_PROMPT, create_summarization_middleware

    allowance = max_output_tokens(model) or DEFAULT_OUTPUT_ALLOWANCE

    def summarize(messages: list[AnyMessage]) -> str:
        # called inside the model node, which is not handed a runtime: read the graph run's own
        current = invocation.current()
        ctx, retrier = current.ctx, current.retrier
        prompt = DEEPAGENTS_DEFAULT_SUMMARY_PROMPT.format(messages=get_buffer_string(messages, format="xml")).rstrip()
        estimate = estimate_tokens([HumanMessage(prompt)], (), allowance)

        def attempt():
            ctx.budget.check_deadline()
            held = before_call(ctx, estimate, allowance, price)
            try:
                reply = model.invoke(prompt)
            except Exception as exc:
                charge_failed_call(exc, estimate, allowance, held, ctx, price)
                raise
            charge_reply(reply, estimate, allowance, held, ctx, price)
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
