"""`research validate`'s whole re-check: the workspace's own checks (invariants 1–5 and 9,
`workspace/validate.py`) and the answer verdicts (invariant 10, `evidence/answers.py`), which
need the evidence layer the workspace layer sits under."""

from __future__ import annotations

from pathlib import Path

from harness.errors import Problem
from harness.evidence.answers import answer_problems
from harness.workspace.reader import RunReader
from harness.workspace.validate import validate_workspace


def validate_run(run_dir: Path | str) -> list[Problem]:
    """Every problem `research validate` reports on the run folder `run_dir`."""
    problems = validate_workspace(Path(run_dir))
    if any(p.file in ("metrics.json", "plan.json", "claims.json") for p in problems):
        return problems  # the verdicts cannot be re-checked on files already found broken
    return problems + answer_problems(RunReader(run_dir, cache=True))
