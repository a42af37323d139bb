"""`ProviderRetry`: provider faults are retried with backoff, bounded; each attempt passes `BudgetGuard`."""

from __future__ import annotations

from langchain.agents.middleware import AgentMiddleware

from harness.engines.llm import invocation


class ProviderRetry(AgentMiddleware):
    """Retry a model call on provider faults (429, 5xx, timeouts, empty replies, MALFORMED_FUNCTION_CALL).

    Bounded and backed off by the delegation's `Retrier` (see `retry.py`); it sits outside
    `BudgetGuard`, so each attempt is checked and charged like any call. Past the bound,
    `ProviderError` ends the step.
    """

    def wrap_model_call(self, request, handler):
        return invocation.of(request.runtime).retrier.call(lambda: handler(request))

    async def awrap_model_call(self, request, handler):
        return await invocation.of(request.runtime).retrier.acall(lambda: handler(request))
