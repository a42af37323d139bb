"""A weak model over the OpenAI protocol: what a 7-14B open model behind vLLM or Ollama sends.

`WeakShape(seed)` is an `OpenAIDispatch` shape: it takes what a role's policy means to do and,
now and then, sends it the way a weak model does:

- `bad_json`: tool-call arguments that are not valid JSON (a brace missing, single quotes);
- `wrong_name`: an argument under another name (`path=` for `file_path=`, `q=` for `query=`);
- `extra_arg`: an argument the tool does not take;
- `unknown_tool`: a call to a tool that does not exist (`save_file`, `search_corpus`);
- `cut`: the reply cut off at the length limit (`finish_reason: length`), its arguments or text
  incomplete;
- `parallel`: the same call twice in one message;
- `think`: a `<think>...</think>` block before the text or beside the calls (always harmless).

A malformed reply is followed, often, by the intended one (the model reads the error), but a
weak model may slip again: `p_first` is the chance of a slip on a fresh turn, `p_again` right
after a slip. Deterministic per (seed, role, brief, turn), so a run replays exactly.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from dataclasses import dataclass, field

from fakes.openai_stub import text, tool_calls
from fakes.scripted import Call, Say, Turn

SLIPS = ("bad_json", "wrong_name", "extra_arg", "unknown_tool", "cut")
RENAMES = {"file_path": "path", "query": "q", "source_id": "source", "content": "text", "quote": "text"}
NO_SUCH_TOOL = {"write_file": "save_file", "search": "search_corpus", "record_evidence": "add_evidence"}
THINK = "<think>\nThe user wants me to do the task. Let me think about which tool to use first.\n</think>\n"


def _after_a_slip(turn: Turn) -> bool:
    """Did the harness just answer a malformed reply (an error naming what to fix, or a notice)?"""
    last = turn.last
    if last and all(r.error for r in last):
        return True
    return bool(turn.notices) and turn.notices[-1].startswith("[harness] Your last reply")


@dataclass
class WeakShape:
    seed: int
    p_first: float = 0.25
    p_again: float = 0.2
    p_think: float = 0.5
    slips: Counter = field(default_factory=Counter)  # what it sent, for the report
    intended: dict[str, tuple[str, dict]] = field(default_factory=dict)  # tool-call id -> the call it meant

    def _rng(self, role: str, turn: Turn, req) -> random.Random:
        key = f"{self.seed}|{role}|{turn.brief}|{len(req.messages)}"
        return random.Random(hashlib.sha256(key.encode()).hexdigest())

    def _sent(self, reply, meant: list[tuple[str, dict]]):
        for call, intended in zip(reply.body["choices"][0]["message"]["tool_calls"], meant):
            self.intended[call["id"]] = intended
        return reply

    def __call__(self, role: str, turn: Turn, action: Call | Say, req):
        r = self._rng(role, turn, req)
        think = THINK if r.random() < self.p_think else ""
        slip = r.choice(SLIPS) if r.random() < (self.p_again if _after_a_slip(turn) else self.p_first) else None
        if isinstance(action, Say):
            if think:
                self.slips["think"] += 1
            if slip == "cut" and len(action.text) > 40:
                self.slips["cut_text"] += 1
                return text(think + action.text[: len(action.text) // 2], finish_reason="length")
            return text(think + action.text)
        calls: list[tuple[str, dict | str]] = [(n, dict(a)) for n, a in action.calls]
        name, args = calls[0]
        if slip == "bad_json":
            raw = json.dumps(args)
            calls[0] = (name, raw[:-1] if r.random() < 0.5 else raw.replace('"', "'"))
        elif slip == "wrong_name" and any(k in args for k in RENAMES):
            old = next(k for k in RENAMES if k in args)
            calls[0] = (name, {(RENAMES[old] if k == old else k): v for k, v in args.items()})
        elif slip == "extra_arg":
            calls[0] = (name, {**args, "reasoning": "This is the next step."})
        elif slip == "unknown_tool":
            calls[0] = (NO_SUCH_TOOL.get(name, name + "_tool"), args)
        elif slip == "cut":
            raw = json.dumps(args)
            self.slips["cut"] += 1
            reply = tool_calls([(name, raw[: max(1, len(raw) // 2)])], content=think or None, finish_reason="length")
            return self._sent(reply, [(name, args)])
        else:
            slip = None
        if slip:
            self.slips[slip] += 1
        meant = [(n, dict(a)) for n, a in action.calls]
        if not slip and r.random() < 0.15:  # several calls in one message
            calls, meant = calls + [calls[-1]], meant + [meant[-1]]
            self.slips["parallel"] += 1
        if think:
            self.slips["think"] += 1
        return self._sent(tool_calls(calls, content=think or None), meant)
