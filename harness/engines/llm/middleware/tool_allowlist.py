"""`ToolAllowlist`: the model is offered exactly the spec's tools and may call nothing else."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from langchain.agents.middleware import AgentMiddleware
from langchain.agents.middleware.types import ModelRequest
from langchain_core.messages import ToolMessage

from harness.engines.llm import invocation
from harness.engines.llm.middleware.tool_calls import error_reply, tool_name


class ToolAllowlist(AgentMiddleware):
    """Offer the model exactly `allowed` and refuse a call to anything else (nothing inherited, no `task`).

    `per_step` names tools offered only to the steps whose services allow them: the MCP tools, shown to a
    research branch only when its plan question allows their server (`services.mcp.allowed()`); a call to
    one anyway is refused by that service, without cost."""

    def __init__(self, allowed: Iterable[str], role: str, per_step: Iterable[str] = ()):
        super().__init__()
        self.allowed = tuple(allowed)
        self.role = role
        self.per_step = frozenset(per_step)

    def _filter(self, request: ModelRequest) -> ModelRequest:
        offered = set(self.allowed)
        if self.per_step:
            services = invocation.of(request.runtime).ctx.services
            mine = {t.qualified for t in services.mcp.allowed()} if "mcp" in services else set()
            offered -= self.per_step - mine
        tools = [t for t in request.tools if tool_name(t) in offered]
        return request.override(tools=tools) if len(tools) != len(request.tools) else request

    def _refusal(self, request: Any) -> ToolMessage | None:
        call = request.tool_call
        if call.get("name") in self.allowed:
            return None
        return error_reply(
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
