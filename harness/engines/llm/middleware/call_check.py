"""`ToolCallCheck`: a reply whose tool calls cannot be run gets an error naming what to fix, and another turn.

What a weaker model (a 7-14B open model behind vLLM or Ollama) sends, and what it is told:

- arguments that are not one JSON object (`invalid_tool_calls`): which tool, what the parser
  said, the arguments the tool takes;
- a reply cut off at the output limit (`finish_reason: length`), in the middle of a call's
  arguments or of its text: that nothing in it was used, and to send less at once;
- an argument name the tool does not take, or a required one missing (`path=` for
  `write_file`'s `file_path=`): the names it got and the names it takes — before the call
  runs, so no guard ever sees an empty path and no write is counted as refused;
- a tool that does not exist: the tools it has.

Each bad call is answered with an error `ToolMessage` in place of a result; the calls of the
same reply that are fine run as usual. A reply none of whose calls can run does not end the
step (langchain's loop would end it, and the step would spend its one nudge): the model is
asked again. Such replies count against a bound of their own (`malformed_replies` in the
spec's limits, stated in the prompt), in a row: a usable reply resets it. Past it,
`MalformedReplies` ends the step with what it has, and says so.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from typing import Annotated, Any, NotRequired

from langchain.agents.middleware import AgentMiddleware
from langchain.agents.middleware.types import AgentState, PrivateStateAttr, hook_config
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from harness.errors import HarnessError

DEFAULT_MALFORMED_REPLIES = 4


class MalformedReplies(HarnessError):
    """A step's model sent `n` replies in a row none of whose tool calls could be run."""

    def __init__(self, n: int):
        self.n = n
        super().__init__(f"its last {n} replies held only malformed tool calls")


class CallCheckState(AgentState):
    malformed_replies: NotRequired[Annotated[int, PrivateStateAttr]]  # in a row, this step


def _signature(tool: Any) -> tuple[dict[str, Any], list[str]]:
    """(argument name -> JSON schema, required names) of a tool, as the model is offered it."""
    schema = getattr(tool, "tool_call_schema", None)
    if isinstance(schema, dict):
        doc = schema
    elif schema is not None and hasattr(schema, "model_json_schema"):
        doc = schema.model_json_schema()
    else:
        doc = {"properties": getattr(tool, "args", {}) or {}}
    doc = doc.get("parameters", doc)
    return dict(doc.get("properties") or {}), list(doc.get("required") or [])


def _arguments(props: dict[str, Any], required: list[str]) -> str:
    return ", ".join(f"`{k}`" + (" (required)" if k in required else "") for k in props) or "none"


def finish_reason(message: Any) -> str | None:
    meta = getattr(message, "response_metadata", None) or {}
    reason = meta.get("finish_reason") or meta.get("stop_reason")
    return str(getattr(reason, "name", reason)).lower() if reason else None


def _cut_off(message: Any) -> bool:
    return finish_reason(message) in ("length", "max_tokens")


class ToolCallCheck(AgentMiddleware):
    """Answer the tool calls of a reply that cannot be run with errors naming what to fix (see the module)."""

    state_schema = CallCheckState

    def __init__(self, tools: Iterable[Any], bound: int = DEFAULT_MALFORMED_REPLIES, role: str = "agent"):
        super().__init__()
        self.signatures = {t.name: _signature(t) for t in tools}
        self.bound = bound
        self.role = role

    # ---- what is wrong with one call ---------------------------------------------------------

    def problem(self, call: Mapping[str, Any]) -> str | None:
        """Why `call` cannot run, in one line naming what to fix, or None."""
        name = call.get("name")
        if name not in self.signatures:
            return (
                f"Error: there is no tool named {name!r} for the {self.role}; your tools are: "
                f"{', '.join(self.signatures) or 'none'}. Nothing was run."
            )
        props, required = self.signatures[name]
        args = call.get("args")
        if not isinstance(args, dict):
            return f"Error: {name} was not run: its arguments must be one JSON object. It takes: {_arguments(props, required)}."
        unknown = [k for k in args if k not in props]
        missing = [k for k in required if k not in args]
        if not unknown and not missing:
            return None
        parts = []
        if unknown:
            parts.append("it takes no argument " + ", ".join(f"`{k}`" for k in unknown))
        if missing:
            parts.append("it needs " + ", ".join(f"`{k}`" for k in missing))
        hint = f" (use `{missing[0]}` for what you sent as `{unknown[0]}`)" if len(unknown) == len(missing) == 1 else ""
        return (
            f"Error: {name} was not run: {'; '.join(parts)}{hint}. Its arguments are: {_arguments(props, required)}. "
            f"Call {name} again with those names."
        )

    def _unparsed(self, bad: Mapping[str, Any], cut: bool) -> str:
        name = bad.get("name") or "the tool"
        props, required = self.signatures.get(name, ({}, []))
        takes = f" It takes: {_arguments(props, required)}." if props else ""
        if cut:
            return (
                f"Error: your reply was cut off at the output limit in the middle of {name}'s arguments, so nothing "
                f"was run. Send less in one call (a shorter file or quote) and call {name} again.{takes}"
            )
        why = " ".join(str(bad.get("error") or "not valid JSON").split())[:200]
        return (
            f"Error: {name} was not run: its arguments are not one valid JSON object ({why}). Send them again as "
            f'JSON, double-quoted, e.g. {{"name": "value"}}.{takes}'
        )

    # ---- the hook ----------------------------------------------------------------------------

    def _check(self, state: dict[str, Any]) -> dict[str, Any] | None:
        messages = state.get("messages") or []
        message = messages[-1] if messages else None
        if not isinstance(message, AIMessage):
            return None
        cut = _cut_off(message)
        answers: list[Any] = []
        usable = 0
        for call in message.tool_calls:
            why = self.problem(call)
            if why is None:
                usable += 1
            else:
                answers.append(ToolMessage(why, tool_call_id=call["id"], name=call.get("name"), status="error"))
        for bad in message.invalid_tool_calls:
            answers.append(
                ToolMessage(
                    self._unparsed(bad, cut),
                    tool_call_id=bad.get("id") or f"call-{uuid.uuid4().hex[:12]}",
                    name=bad.get("name") or "unknown",
                    status="error",
                )
            )
        text_cut = cut and not message.tool_calls and not message.invalid_tool_calls
        if usable or (not answers and not text_cut):
            return {"messages": answers, "malformed_replies": 0} if answers or state.get("malformed_replies") else None
        n = int(state.get("malformed_replies") or 0) + 1
        if n >= self.bound:
            raise MalformedReplies(n)
        count = f" [malformed reply {n} in a row; {self.bound} in a row end this step]"
        if text_cut:
            answers = [
                HumanMessage(
                    "[harness] Your last reply was cut off at the output limit, so nothing in it was used. Send less "
                    "at once: call one tool with short arguments, or write a shorter file." + count
                )
            ]
        else:
            last = answers[-1]
            answers[-1] = ToolMessage(
                str(last.content) + count, tool_call_id=last.tool_call_id, name=last.name, status="error"
            )
        return {"messages": answers, "malformed_replies": n, "jump_to": "model"}

    @hook_config(can_jump_to=["model"])
    def after_model(self, state, runtime):
        return self._check(state)

    @hook_config(can_jump_to=["model"])
    async def aafter_model(self, state, runtime):
        return self._check(state)


def malformed_sentence(bound: int) -> str:
    """What the system prompt says about malformed replies."""
    return (
        "A tool call that cannot be run (arguments that are not one JSON object, an argument name the tool does not "
        "take, a tool you do not have, a reply cut off at the output limit) is answered with an error naming what to "
        f"fix, and nothing in it is run; {bound} such replies in a row end the step."
    )
