"""`WholeReads`: `read_file` returns whole files unless the model asks for a window."""

from __future__ import annotations

from typing import Any

from langchain.agents.middleware import AgentMiddleware

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
