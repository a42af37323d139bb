"""What an agent is handed for one step: who it is, its brief, and three doors.

- `files`: the guarded file door (`runtime/files.py`): reads, writes and listings under the
  role's globs, the brief's outputs, the artifact schemas and the write-retry bound;
- `budget`: the step's budget (`runtime/budget.py`), layered on its role's and the run's;
- `services`: what the role may ask the harness to do, one per tool its spec lists
  (`runtime/services.py`: search, web, evidence recording, draft checks, and whatever
  is registered there).

Everything an agent does goes through these, whatever its engine, so the same guards
apply to the offline engine, to an LLM subagent and to a user's own class. An agent that
only reads and writes files can use the shortcuts `ctx.read_text`, `ctx.read_json`,
`ctx.list`, `ctx.exists` and `ctx.write`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from harness.contract.specs import AgentSpec
from harness.runtime.budget import DelegationBudget
from harness.runtime.files import GuardedFiles
from harness.runtime.interface import Brief
from harness.runtime.services import Services, give_services
from harness.runtime.step import RunServices, ServiceSetup
from harness.workspace.store import ArtifactRecord, Workspace


@dataclass
class AgentContext:
    spec: AgentSpec
    brief: Brief
    engine: str
    model: str | None
    run_id: str
    files: GuardedFiles
    budget: DelegationBudget
    services: Services
    notes: list[str] = field(default_factory=list)  # what the harness did for the agent (traced with the delegation)
    provider_retries: int = 0  # model calls retried after a provider fault (llm engine)
    provider_errors: list[str] = field(default_factory=list)  # one line per provider fault, for the trace

    @property
    def role(self) -> str:
        return self.spec.role

    # the file door's common calls, for agents that only read and write
    def read_text(self, rel: str) -> str:
        return self.files.read_text(rel)

    def read_json(self, rel: str) -> Any:
        return self.files.read_json(rel)

    def list(self, pattern: str) -> list[str]:
        return self.files.list(pattern)

    def exists(self, rel: str) -> bool:
        return self.files.exists(rel)

    def write(self, rel: str, content: Any) -> ArtifactRecord:
        return self.files.write(rel, content)

    def check_deadline(self) -> None:
        self.budget.check_deadline()


def open_context(
    workspace: Workspace,
    spec: AgentSpec,
    brief: Brief,
    *,
    engine: str,
    model: str | None,
    run_id: str,
    budget: DelegationBudget,
    run: RunServices | None = None,
    transforms: list[Callable[[str, Any], Any]] | None = None,
) -> AgentContext:
    """One step's context: its file door, its budget and the services its spec's tools name."""
    files = GuardedFiles(workspace, spec, brief.outputs, transforms)
    notes: list[str] = []
    setup = ServiceSetup(
        spec=spec,
        brief=brief,
        files=files,
        budget=budget,
        workspace=workspace,
        run=run or RunServices(),
        identity={"role": spec.role, "engine": engine, "model": model},
        run_id=run_id,
        notes=notes,
    )
    return AgentContext(spec, brief, engine, model, run_id, files, budget, give_services(setup), notes)
