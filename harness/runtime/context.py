"""What an agent is handed: guarded workspace access, its tools, and its budget.

Everything an agent does goes through here, whatever its engine, so the same guards
apply to the offline engine, to an LLM subagent and to a user's own class: the role's
read/write globs, the artifact schemas and cross-file checks, the write-retry bound,
and the per-delegation, per-role and per-run budgets.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import InitVar, dataclass, field
from pathlib import Path
from typing import Any

from harness.contract.globs import matches
from harness.contract.specs import AgentSpec
from harness.errors import ArtifactInvalid, HarnessError, PathRefused, PermissionRefused
from harness.runtime.budget import DelegationBudget
from harness.runtime.interface import Brief
from harness.workspace.paths import normalize_relpath
from harness.workspace.store import ArtifactRecord, Workspace


class WriteRetriesExhausted(HarnessError):
    """An agent kept writing invalid or forbidden content past its retry bound."""


@dataclass
class AgentContext:
    workspace: InitVar[Workspace]  # kept private: every access goes through the role's guards below
    spec: AgentSpec
    brief: Brief
    engine: str
    model: str | None
    run_id: str
    budget: DelegationBudget
    tools: Any = None  # ResearchTools for the researcher, else None
    web: Any = None  # WebTools when the web extra is enabled and the plan allows it
    transforms: list[Callable[[str, Any], Any]] = field(default_factory=list)
    outputs: dict[str, str] = field(default_factory=dict)  # path -> sha256 written in this delegation
    errors: list[str] = field(default_factory=list)  # refused writes, in order
    retries: int = 0  # refused writes the agent went on to retry
    provider_retries: int = 0  # model calls retried after a provider fault (llm engine)
    provider_errors: list[str] = field(default_factory=list)
    _write_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    tokens: int = 0
    llm_calls: int = 0

    def __post_init__(self, workspace: Workspace) -> None:
        self._workspace = workspace

    @property
    def role(self) -> str:
        return self.spec.role

    # ---- workspace ---------------------------------------------------------------

    @property
    def root(self) -> Path:
        """The run folder, for an engine that mounts it through its own guarded backend (the llm engine's
        FilesystemBackend, under permission rules derived from this spec). Never read or write it directly."""
        return self._workspace.root

    def read_text(self, rel: str) -> str:
        return self._workspace.read_text(rel, self.spec.policy)

    def read_json(self, rel: str) -> Any:
        return self._workspace.read_json(rel, self.spec.policy)

    def list(self, pattern: str) -> list[str]:
        return self._workspace.list(pattern, self.spec.policy)

    def exists(self, rel: str) -> bool:
        return self.spec.policy.may_read(rel) and self._workspace.exists(rel)

    def write(self, rel: str, content: Any) -> ArtifactRecord:
        """Write through the workspace guards; a refused write counts against the retry bound."""
        try:
            rel = normalize_relpath(rel)  # transforms and checks see the path the workspace will use
            if self.spec.policy.may_write(rel) and not self.declared(rel):
                raise PermissionRefused(
                    f"{rel}: not an output of this step (the brief names {', '.join(self.brief.outputs) or 'none'})"
                )
            for transform in self.transforms:
                content = transform(rel, content)
            record = self._workspace.write(rel, content, self.spec.policy)
        except (ArtifactInvalid, PermissionRefused, PathRefused) as exc:
            limit = self.spec.limits.get("write_retries", 3)
            with self._write_lock:  # parallel tool calls must not overshoot the bound
                self.errors.append(str(exc))
                refused = len(self.errors)
                if refused <= limit:
                    self.retries += 1
            if refused > limit:
                raise WriteRetriesExhausted(
                    f"{self.role}: {refused} refused writes (limit {limit}); last: {exc}"
                ) from exc
            raise
        self.outputs[record.path] = record.sha256
        return record

    def declared(self, rel: str) -> bool:
        """Is `rel` one of the outputs the brief names? A role may write only this step's outputs,
        not everything its spec's globs allow (a Writer never rewrites a reviewed draft)."""
        if not self.brief.outputs:
            return True
        return matches(rel, [p + "**" if p.endswith("/") else p for p in self.brief.outputs])

    # ---- budget --------------------------------------------------------------------

    def before_llm_call(self, estimated_tokens: int) -> None:
        """Refuse a model call that could take any budget over its limit."""
        self.budget.check("llm_calls", 1)
        self.budget.check("tokens", estimated_tokens)

    def after_llm_call(self, tokens: int) -> None:
        self.llm_calls += 1
        self.tokens += tokens
        self.budget.charge_many({"llm_calls": 1, "tokens": tokens})

    def check_deadline(self) -> None:
        self.budget.check_deadline()

    # ---- checks the harness runs on request ------------------------------------------

    def check_draft(self, draft: str, branches: dict[str, dict] | None = None) -> list[dict[str, Any]]:
        """The defects the Reviewer's deterministic checks find in `draft` (the same code the review runs)."""
        from harness.evidence.checks import check_draft

        return check_draft(self._workspace.reader(cache=True), draft, branches)

    # ---- sources (Researcher) ------------------------------------------------------

    def search(self, query: str, k: int = 5):
        if self.tools is None or "search" not in self.spec.tools:
            raise PermissionRefused(f"{self.role}: the search tool is not in this agent's spec")
        self.budget.check("searches", 1)
        hits = self.tools.search(query, k, question_id=self.brief.question_id)
        self.budget.charge("searches", 1)
        return hits

    def read_source(self, source_id: str, offset: int = 0, length: int = 2000):
        if self.tools is None or "read_source" not in self.spec.tools:
            raise PermissionRefused(f"{self.role}: the read_source tool is not in this agent's spec")
        self.check_deadline()
        return self.tools.read_source(source_id, offset, length)
