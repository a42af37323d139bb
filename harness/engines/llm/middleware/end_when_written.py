"""`EndWhenWritten`: a step whose declared outputs have all landed ends without another model call.

A Planner, Analyst, Writer or Reviewer is done by its contract once the files its brief
declares are written: each write was validated before it landed (`WorkspaceWriteGuard`),
so the call that would follow only says "done" (about 14k tokens a run, measured by
`bench/bench_web_tokens.py`). After the tool step that wrote the last of them, the loop
ends instead. A role whose outputs come through a service (a Researcher's cards, made by
`record_evidence`, `ctx.services.duty`) decides itself when it has found enough.
"""

from __future__ import annotations

from langchain.agents.middleware import AgentMiddleware
from langchain.agents.middleware.types import hook_config
from langchain_core.messages import ToolMessage

from harness.engines.llm import invocation


def _done(state, runtime) -> dict | None:
    messages = state.get("messages") or []
    if not messages or not isinstance(messages[-1], ToolMessage):
        return None  # the step's first call, or a nudge: the model is asked
    ctx = invocation.of(runtime).ctx
    if ctx.services.duty is not None or not ctx.files.declared_outputs or ctx.files.missing_outputs():
        return None
    ctx.notes.append(f"ended once {', '.join(sorted(ctx.files.outputs))} landed, without another model call")
    return {"jump_to": "end"}


class EndWhenWritten(AgentMiddleware):
    """Before a model call: when every output the brief declares is written, end the step instead."""

    @hook_config(can_jump_to=["end"])
    def before_model(self, state, runtime):
        return _done(state, runtime)

    @hook_config(can_jump_to=["end"])
    async def abefore_model(self, state, runtime):
        return _done(state, runtime)
