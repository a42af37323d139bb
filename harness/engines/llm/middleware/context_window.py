"""`ContextWindowFit`: a prompt too long for the model's context window is cut, and the call made again.

A provider's "input too long" error (`context_length_exceeded`, "maximum context length", ...,
recognised as deepagents' summarization recognises it: `faults.is_context_overflow`) is not a
fault to retry as is, nor a rejection to fail the step on. The step reads less instead: the
largest message of the prompt (a long tool result, the brief's card digest) is cut to half, at
a line, with a note saying what was cut and how to read less (a smaller `read_source` window,
fewer search results, the files themselves), and the call is made again; up to `MAX_CUTS`
times a call. A cut, once made, holds for the rest of the step (by message id), so later calls
do not hit the same wall. When nothing is left to cut, the error goes on to deepagents'
summarization (it compacts the history and tries again) and, past that, `DeepAgentRole.run`
ends the step with what it has written.
"""

from __future__ import annotations

import threading
from typing import Any

from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from harness.engines.llm.faults import is_context_overflow

MAX_CUTS = 6  # cuts per model call before the error goes on
MIN_CHARS = 400  # a message this short is not cut further


def _note(message: BaseMessage, kept: int, total: int) -> str:
    if isinstance(message, ToolMessage):
        how = "ask for less at once (read_source with a smaller length, search with a smaller k)"
    else:
        how = "read the files it names for the rest, a part at a time"
    return f"\n[harness] Cut to {kept} of {total} characters to fit the model's context window; {how}."


def _cut_to(text: str, keep: int) -> str:
    """The first `keep` characters of `text`, ended at a line break when there is one in the second half."""
    head = text[:keep]
    at = head.rfind("\n")
    return head[:at] if at > keep // 2 else head


class ContextWindowFit(AgentMiddleware):
    """Cut the largest message of a prompt that does not fit, and ask again (see the module)."""

    def __init__(self, max_cuts: int = MAX_CUTS):
        super().__init__()
        self.max_cuts = max_cuts
        self._kept: dict[str, int] = {}  # message id -> characters kept (ids are unique across delegations)
        self._lock = threading.Lock()

    def _apply(self, messages: list[BaseMessage]) -> list[BaseMessage]:
        out = []
        for m in messages:
            keep = self._kept.get(m.id or "")
            if keep is not None and isinstance(m.content, str) and len(m.content) > keep:
                m = m.model_copy(update={"content": _cut_to(m.content, keep) + _note(m, keep, len(m.content))})
            out.append(m)
        return out

    def _cut(self, request: Any) -> Any | None:
        """The request with its largest message cut to half (remembered for the step), or None."""
        sizes = [
            (len(m.content), i)
            for i, m in enumerate(request.messages)
            if isinstance(m.content, str) and not isinstance(m, AIMessage) and len(m.content) > MIN_CHARS
        ]
        if not sizes:
            return None
        size, i = max(sizes)
        m = request.messages[i]
        keep = size // 2
        if m.id:
            with self._lock:
                self._kept[m.id] = min(keep, self._kept.get(m.id, keep))
        cut = m.model_copy(update={"content": _cut_to(m.content, keep) + _note(m, keep, size)})
        return request.override(messages=[*request.messages[:i], cut, *request.messages[i + 1 :]])

    def wrap_model_call(self, request, handler):
        request = request.override(messages=self._apply(list(request.messages)))
        for _ in range(self.max_cuts):
            try:
                return handler(request)
            except Exception as exc:
                if not is_context_overflow(exc) or (smaller := self._cut(request)) is None:
                    raise
                request = smaller
        return handler(request)

    async def awrap_model_call(self, request, handler):
        request = request.override(messages=self._apply(list(request.messages)))
        for _ in range(self.max_cuts):
            try:
                return await handler(request)
            except Exception as exc:
                if not is_context_overflow(exc) or (smaller := self._cut(request)) is None:
                    raise
                request = smaller
        return await handler(request)
