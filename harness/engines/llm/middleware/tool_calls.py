"""What the guards share: a tool's name, an error reply to a tool call, and a virtual path as a workspace path."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import ToolMessage

from harness.errors import PathRefused
from harness.workspace.paths import normalize_relpath


def tool_name(tool: Any) -> str | None:
    if isinstance(tool, dict):
        return tool.get("name") or (tool.get("function") or {}).get("name")
    return getattr(tool, "name", None)


def error_reply(call: dict[str, Any], text: str) -> ToolMessage:
    return ToolMessage(content=text, name=call.get("name"), tool_call_id=call.get("id"), status="error")


def one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


def virtual_to_rel(path: Any) -> str:
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
