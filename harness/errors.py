"""Errors the harness raises, each printable as one line, and the exit codes they map to."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass

EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_USAGE = 2
EXIT_INCOMPLETE = 3


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an artifact: which file, where in it (JSON pointer or line), which rule."""

    file: str
    pointer: str
    rule: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.pointer}" if self.pointer else self.file
        return f"{where}: {self.message} [{self.rule}]"

    def as_dict(self) -> dict[str, str]:
        return {"file": self.file, "pointer": self.pointer, "rule": self.rule, "message": self.message}


class HarnessError(Exception):
    """Base class: an error with a one-line message and an exit code."""

    exit_code = EXIT_INTERNAL


class UsageError(HarnessError):
    """Bad flags, configuration or input: exit 2. `field`: the run option it is about (a `RunOptions` field, or a
    part of one such as `budget.usd`; contract/options.py), for a form to show the message beside it."""

    exit_code = EXIT_USAGE

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


class WorkspaceError(HarnessError):
    """A workspace operation was refused (bad path, permission, corrupt workspace)."""

    exit_code = EXIT_USAGE


class StorageError(WorkspaceError):
    """The disk refused a write (full, read-only, no permission); nothing was half-written."""


class PathRefused(WorkspaceError):
    """A path resolves outside the workspace, or is absolute, or crosses '..'."""


class PermissionRefused(WorkspaceError):
    """The acting role may not read or write this path."""


SHOWN_PROBLEMS = 10  # how many problems one refusal lists (the rest are counted)


def problems_line(problems: list[Problem], limit: int = SHOWN_PROBLEMS) -> str:
    """Up to `limit` problems on one line, "; "-separated, then how many more there are."""
    shown = "; ".join(str(p) for p in problems[:limit])
    more = f" (+{len(problems) - limit} more)" if len(problems) > limit else ""
    return shown + more


class ArtifactInvalid(WorkspaceError):
    """Content failed its schema or a cross-file integrity check; nothing was written."""

    def __init__(self, problems: list[Problem]):
        self.problems = list(problems)
        super().__init__(problems_line(self.problems) if self.problems else "invalid artifact")


class BudgetExhausted(HarnessError):
    """A budget would be exceeded by the next call.

    `scope` says whose budget: "run" (only this stops the run), "role" or "delegation"
    (the step ends with what it has; see orchestrator/delegate.py).
    """

    exit_code = EXIT_INCOMPLETE

    def __init__(self, message: str, scope: str = "run"):
        super().__init__(message)
        self.scope = scope


class ProviderUnavailable(HarnessError):
    """The model provider stayed unreachable or overloaded past the retry bound (429, 5xx, timeouts, dropped
    connections). Retrying later can fix it, so the run waits at the step it cut, status `interrupted`, and
    `research resume` goes on once the provider is back (orchestrator/nodes.py `stop`)."""

    exit_code = EXIT_INCOMPLETE


def install_hint(extra: str) -> str:
    """How to install one optional extra of pyproject.toml: the one wording every "not installed" line ends with."""
    return f"pip install 'research-harness[{extra}]'"


def extra_missing(what: str, extra: str, missing: str) -> UsageError:
    """The one-line error for an optional extra that is not installed: who needs it (`what`: a flag, a command or
    a file's field), which extra, which module is missing, and the install command."""
    return UsageError(f"{what} needs the '{extra}' extra ({missing} missing): {install_hint(extra)}")


def module_installed(module: str) -> bool:
    """Whether `module` (dotted names too) can be found, without importing it."""
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a dotted name whose parent package is missing
        return False


def require_extra(what: str, extra: str, modules: tuple[str, ...]) -> None:
    """Raise `extra_missing` when any of `modules` is not installed: checked before any work, so nothing stops
    halfway for want of a package."""
    missing = [m for m in modules if not module_installed(m)]
    if missing:
        raise extra_missing(what, extra, ", ".join(missing))
