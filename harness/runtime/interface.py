"""The agent interface: what every role implementation (offline, llm or your own class) provides.

An agent is any object with one method::

    def run(self, brief: Brief, ctx: AgentContext) -> AgentResult

`brief` says what to do and which files to read; `ctx` is the only door to the
workspace (guarded reads and writes under the role's spec), to the source tools
(Researcher only) and to the budget. A custom agent is named on the command line as
``--agent ROLE=python:package.module:Class``; the class is constructed with the role's
`AgentSpec` (or with no arguments if its constructor takes none).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from harness.contract.statuses import AgentStatus

if TYPE_CHECKING:
    from harness.runtime.context import AgentContext


@dataclass(frozen=True)
class Brief:
    """A delegation: the task in words, the files to read, the files to write. Never the parent's messages."""

    role: str
    task: str
    inputs: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()
    question_id: str | None = None
    feedback: str | None = None
    facts: dict[str, Any] = field(default_factory=dict)  # small structured hints (draft number, blocked branches)
    material: str = ""  # what the step needs from the workspace, given whole (digests, tables, the numbered draft)

    def render(self) -> str:
        """The brief as the one message an LLM subagent receives."""
        lines = [self.task.strip(), ""]
        if self.question_id:
            lines.append(f"Plan question: {self.question_id}")
        if self.inputs:
            lines.append("Read these files (paths are relative to the workspace root):")
            lines += [f"- {p}" for p in self.inputs]
        if self.outputs:
            lines.append("Write these files:")
            lines += [f"- {p}" for p in self.outputs]
        for key, value in self.facts.items():
            lines.append(
                f"{key}: {json.dumps(value, ensure_ascii=False) if isinstance(value, (dict, list)) else value}"
            )
        if self.feedback:
            lines += ["", "Feedback to address:", self.feedback.strip()]
        if self.material:
            lines += ["", self.material.strip()]
        return "\n".join(lines).strip() + "\n"


@dataclass
class AgentResult:
    status: AgentStatus
    summary: str = ""
    blocked_reason: str | None = None


@runtime_checkable
class Agent(Protocol):
    def run(self, brief: Brief, ctx: AgentContext) -> AgentResult: ...
