"""`WorkspaceWriteGuard`: `write_file` / `edit_file` land only through the step's guarded file door."""

from __future__ import annotations

from typing import Any

from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import ToolMessage

from harness.engines.llm import invocation
from harness.engines.llm.middleware.tool_calls import error_reply, one_line, virtual_to_rel
from harness.errors import ArtifactInvalid, PathRefused, PermissionRefused, WorkspaceError
from harness.runtime.context import AgentContext

WRITE_TOOLS = ("write_file", "edit_file")


class WorkspaceWriteGuard(AgentMiddleware):
    """Performs `write_file` / `edit_file` through `ctx.write` instead of the backend.

    The backend never writes to the workspace: a call is validated and landed (atomically,
    indexed in run.json) by the workspace API, or refused with a one-line error naming the
    file, the JSON pointer and the rule. `WriteRetriesExhausted` (raised by `ctx.write`
    past the spec's bound) propagates and fails the step.
    """

    def _perform(self, call: dict[str, Any], ctx: AgentContext) -> ToolMessage:
        args = call.get("args") or {}
        rel = virtual_to_rel(args.get("file_path"))
        try:
            if call["name"] == "edit_file":
                content: str | ToolMessage | None = self._edited(call, rel, args, ctx)
                if isinstance(content, ToolMessage):
                    return content
            else:
                content = args.get("content")
                if not isinstance(content, str):
                    return error_reply(call, "Error: write_file needs `content` as a string (the whole file)")
            record = ctx.write(rel, content)  # refuses paths this step's brief does not name, for every engine
        except (ArtifactInvalid, PermissionRefused, PathRefused) as exc:
            return error_reply(
                call,
                f"Error: write refused, nothing was written: {one_line(exc)}. "
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
            return error_reply(call, "Error: edit_file needs a non-empty old_string and a new_string")
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
            return error_reply(call, f"Error: {one_line(exc)}")
        count = current.count(old)
        if count == 0:
            return error_reply(call, f"Error: old_string was not found in /{rel}")
        if count > 1 and not args.get("replace_all"):
            return error_reply(
                call, f"Error: old_string occurs {count} times in /{rel}; give more context or set replace_all"
            )
        return current.replace(old, new) if args.get("replace_all") else current.replace(old, new, 1)

    def _intercept(self, request: Any) -> ToolMessage | None:
        call = request.tool_call
        if call.get("name") not in WRITE_TOOLS:
            return None
        return self._perform(call, invocation.of(request.runtime).ctx)

    def wrap_tool_call(self, request, handler):
        result = self._intercept(request)
        return result if result is not None else handler(request)

    async def awrap_tool_call(self, request, handler):
        result = self._intercept(request)
        return result if result is not None else await handler(request)
