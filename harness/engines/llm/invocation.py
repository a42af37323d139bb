"""What changes from one delegation to the next of a role's compiled agent.

A role's deepagents graph is compiled once per run (compiling costs several ms, and
research branches run the same role many times, concurrently). Everything that belongs
to one delegation — its `AgentContext` (brief, budget, outputs, refused writes) and its
provider-retry loop — travels as LangGraph's runtime context
(`agent.invoke(..., context=Invocation(ctx, retrier))`), so concurrent branches share the
graph and its middleware but never each other's state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.engines.llm.retry import Retrier
from harness.errors import HarnessError
from harness.runtime.context import AgentContext


@dataclass(frozen=True)
class Invocation:
    ctx: AgentContext
    retrier: Retrier


def of(runtime: Any) -> Invocation:
    """The delegation a middleware hook or tool call belongs to (from `request.runtime` or a `ToolRuntime`)."""
    context = getattr(runtime, "context", None)
    if not isinstance(context, Invocation):
        raise HarnessError(
            "llm engine: the agent was invoked without its delegation (pass context=Invocation(ctx, retrier) to invoke)"
        )
    return context


def current() -> Invocation:
    """The delegation of the graph run this thread is executing (for hooks that are not handed a runtime)."""
    from langgraph.runtime import get_runtime

    return of(get_runtime())
