"""What the `research` command line prints around a run: its consoles, the progress display it picks, and how
a run's end is told (what to do next at each status), shared by `run`, `ask` and `resume`."""

from __future__ import annotations

import json

import typer
from rich.console import Console

from harness.contract.statuses import (
    AWAITING_APPROVAL,
    AWAITING_PLAN_APPROVAL,
    BUDGET_EXHAUSTED,
    COMPLETED,
    INTERRUPTED,
)
from harness.surfaces.summary import cost_line

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)
OFFLINE_NOTE = "research: no model configured and no GOOGLE_API_KEY: every role runs on the offline engine."


def display_for(quiet: bool, as_json: bool):
    """How a run shows its progress: JSON events, nothing, or the live display on stderr."""
    from harness.surfaces.progress import JsonEvents, LiveProgress, Quiet

    if as_json:
        return JsonEvents()
    return Quiet() if quiet else LiveProgress(err)


def finish(result, as_json: bool = False) -> None:
    """Say how a run ended and what to do next (or one JSON event), then exit with its exit code."""
    if as_json:
        print(
            json.dumps(
                {
                    "event": "run_ended",
                    "status": result.status,
                    "reason": result.reason,
                    "path": str(result.run_dir),
                    "exit_code": result.exit_code,
                }
            )
        )
        raise typer.Exit(result.exit_code)
    if (line := cost_line(result.run_dir)) is not None:
        out.print(line)
    if result.status == COMPLETED:
        out.print(f"final report: {result.run_dir / 'final-report.md'}")
    elif result.status in AWAITING_APPROVAL:
        gate = "--plan" if result.status == AWAITING_PLAN_APPROVAL else "--final --version SHA"
        err.print(
            f"paused at {result.status}. Approve with: research approve {result.run_dir} {gate}; then: research resume {result.run_dir}"
        )
    elif result.status == INTERRUPTED:
        err.print(
            f"interrupted: the model provider is unavailable ({result.reason or 'no reason recorded'}). Everything so "
            f"far is kept; once it is back go on with: research resume {result.run_dir}"
        )
    elif result.status == BUDGET_EXHAUSTED:
        err.print(
            f"stopped: the run's budget is spent ({result.reason or 'no reason recorded'}). Everything so far is kept; "
            f"go on with: research resume {result.run_dir} --budget-llm-calls N (or --budget-tokens/-searches/-seconds/-usd)"
        )
    else:
        err.print(f"run ended {result.status}: {result.reason or 'no reason recorded'}")
    out.print(f"workspace: {result.run_dir}")
    raise typer.Exit(result.exit_code)
