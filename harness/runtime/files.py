"""The guarded file door of one step: reads, writes and listings under the role's spec and the step's brief.

Every read and write an agent makes goes through here, whatever its engine: the role's
read/write globs, the outputs the brief names, the artifact schemas and cross-file checks
(the workspace's), and the write-retry bound (a file refused once too often ends the step).
"""

from __future__ import annotations

import builtins
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness.contract.globs import matches
from harness.contract.specs import AgentSpec
from harness.errors import ArtifactInvalid, HarnessError, PathRefused, PermissionRefused
from harness.workspace.paths import normalize_relpath
from harness.workspace.store import ArtifactRecord, Workspace

DEFAULT_WRITE_RETRIES = 3


class WriteRetriesExhausted(HarnessError):
    """An agent kept writing invalid or forbidden content to one file past its retry bound."""


def _as_glob(pattern: str) -> str:
    """A brief's output 'source-cards/' means every file under it."""
    return pattern + "**" if pattern.endswith("/") else pattern


class GuardedFiles:
    """Read, write and list the run folder as one role, for one step's brief."""

    def __init__(
        self,
        workspace: Workspace,
        spec: AgentSpec,
        outputs: tuple[str, ...],
        transforms: list[Callable[[str, Any], Any]] | None = None,
    ):
        self._workspace = workspace  # private: every access goes through the role's guards below
        self.spec = spec
        self.declared_outputs = outputs
        self.transforms = list(transforms or [])
        self.outputs: dict[str, str] = {}  # path -> sha256 written in this step
        self.errors: list[str] = []  # refused writes (and refused evidence), in order
        self.retries = 0  # refusals the agent went on to retry
        self._refused: dict[str, int] = {}  # file (or evidence target) -> refusals
        self._lock = threading.Lock()

    @property
    def role(self) -> str:
        return self.spec.role

    @property
    def write_retries(self) -> int:
        """Refusals one file may get; the next refusal of that same file ends the step."""
        return int(self.spec.limits.get("write_retries", DEFAULT_WRITE_RETRIES))

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
        """Write through the workspace guards; a refused write counts against its file's retry bound."""
        try:
            rel = normalize_relpath(rel)  # transforms and checks see the path the workspace will use
            if self.spec.policy.may_write(rel) and not self.declared(rel):
                raise PermissionRefused(
                    f"{rel}: not an output of this step (the brief names {', '.join(self.declared_outputs) or 'none'})"
                )
            for transform in self.transforms:
                content = transform(rel, content)
            record = self._workspace.write(rel, content, self.spec.policy)
        except (ArtifactInvalid, PermissionRefused, PathRefused) as exc:
            self.refused(rel, exc)
            raise
        self.outputs[record.path] = record.sha256
        return record

    def refused(self, target: str, exc: Exception) -> None:
        """Count one refusal of `target` (a file, or what an evidence call aimed at); past the bound the step ends."""
        with self._lock:  # parallel tool calls must not overshoot the bound
            self.errors.append(str(exc))
            n = self._refused[target] = self._refused.get(target, 0) + 1
            if n <= self.write_retries:
                self.retries += 1
        if n > self.write_retries:
            raise WriteRetriesExhausted(
                f"{self.role}: {target} was refused {n} times (limit {self.write_retries}); last: {exc}"
            ) from exc

    def declared(self, rel: str) -> bool:
        """Is `rel` one of the outputs the brief names? A role may write only this step's outputs,
        not everything its spec's globs allow (a Writer never rewrites a reviewed draft)."""
        if not self.declared_outputs:
            return True
        return matches(rel, [_as_glob(p) for p in self.declared_outputs])

    def missing_outputs(self) -> builtins.list[str]:
        """The brief's outputs this step has not written (a glob counts as written once one file matches it)."""
        return [p for p in self.declared_outputs if not any(matches(rel, [_as_glob(p)]) for rel in self.outputs)]

    def counted_existing(self, rel: str) -> None:
        """Count a file already on disk as this step's output (the same evidence recorded again)."""
        self.outputs.setdefault(rel, self._workspace.sha256(rel) or "")
