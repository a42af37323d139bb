"""`EndWhenWritten`: a step whose outputs meet its brief ends without another model call.

A Planner, Analyst, Writer or Reviewer is done by its contract once the files its brief
declares are written: each write was validated before it lands (`WorkspaceWriteGuard`),
so the call that would follow only says "done" (about 14k tokens a run, measured by
`bench/bench_web_tokens.py`). After the tool step that wrote the last of them, the loop
ends instead.

A role whose outputs come through a service (a Researcher's cards, made by `record_evidence`:
`ctx.services.duty`) ends the same way after a reply that only called that service, every
call accepted, once what it wrote meets the brief (`OutputDuty.met`: the step's cards answer
its question by the answer check's rule). It chooses to go on by sending a read or a search
in the same reply; a reply that also did anything else, or a refused card, asks it again.
"""

from __future__ import annotations

from typing import Any

from langchain.agents.middleware import AgentMiddleware
from langchain.agents.middleware.types import hook_config
from langchain_core.messages import AIMessage, ToolMessage

from harness.engines.llm import invocation


def _only_called(messages: list[Any], tool: str) -> bool:
    """The last reply called only `tool`, and every one of those calls was accepted (no error result)."""
    for i in range(len(messages) - 1, -1, -1):
        if isinstance(messages[i], AIMessage):
            calls, results = messages[i].tool_calls, messages[i + 1 :]
            return (
                bool(calls)
                and all(c["name"] == tool for c in calls)
                and len(results) == len(calls)
                and all(isinstance(r, ToolMessage) and r.status != "error" for r in results)
            )
    return False


def _done(state, runtime) -> dict | None:
    messages = state.get("messages") or []
    if not messages or not isinstance(messages[-1], ToolMessage):
        return None  # the step's first call, or a nudge: the model is asked
    ctx = invocation.of(runtime).ctx
    if (duty := ctx.services.duty) is not None:
        if not duty.tool or not _only_called(messages, duty.tool) or not ctx.services.duty_met():
            return None
        ctx.notes.append(
            f"ended once its {len(ctx.files.outputs)} output(s) met the brief ({duty.tool} only, every call "
            "accepted), without a closing reply"
        )
        return {"jump_to": "end"}
    if not ctx.files.declared_outputs or ctx.files.missing_outputs():
        return None
    ctx.notes.append(f"ended once {', '.join(sorted(ctx.files.outputs))} landed, without another model call")
    return {"jump_to": "end"}


class EndWhenWritten(AgentMiddleware):
    """Before a model call: when the step's outputs meet its brief, end the step instead."""

    @hook_config(can_jump_to=["end"])
    def before_model(self, state, runtime):
        return _done(state, runtime)

    @hook_config(can_jump_to=["end"])
    async def abefore_model(self, state, runtime):
        return _done(state, runtime)
