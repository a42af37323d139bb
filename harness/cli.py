"""The `research` command line."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table
from typer.exceptions import TyperException

from . import __version__
from .errors import EXIT_INTERNAL, EXIT_USAGE, HarnessError
from .summary import summarize
from .validate import validate_workspace

app = typer.Typer(
    name="research",
    help="Workspace-file research harness: plan, research, analyze, write and review, with verified citations.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


def _run_dir(path: Path) -> Path:
    if not path.is_dir():
        raise typer.BadParameter(f"{path}: no such run folder", param_hint="RUN_DIR")
    if not (path / "run.json").is_file():
        raise typer.BadParameter(f"{path}: not a run workspace (no run.json)", param_hint="RUN_DIR")
    return path


@app.command()
def validate(
    run_dir: Path = typer.Argument(..., help="The run workspace folder."),
    as_json: bool = typer.Option(False, "--json", help="Print a JSON report instead of lines."),
) -> None:
    """Run every schema and integrity check on a workspace; exit 0 when clean, 1 otherwise."""
    run_dir = _run_dir(run_dir)
    problems = validate_workspace(run_dir)
    if as_json:
        print(json.dumps({"path": str(run_dir), "ok": not problems, "problems": [p.as_dict() for p in problems]}, indent=2))
    else:
        for p in problems:
            print(str(p))
        if not problems:
            print(f"{run_dir}: valid")
        else:
            print(f"{run_dir}: {len(problems)} problem(s)", file=sys.stderr)
    raise typer.Exit(0 if not problems else 1)


@app.command()
def inspect(
    run_dir: Path = typer.Argument(..., help="The run workspace folder."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
) -> None:
    """Show a run at a glance: status, plan, sources, cards, claims, drafts, reviews, budget."""
    s = summarize(_run_dir(run_dir))
    if as_json:
        print(json.dumps(s, indent=2, ensure_ascii=False))
        return
    out.print(f"[bold]{s['run_id']}[/]  status: [bold]{s['status']}[/]" + (f" ({s['status_reason']})" if s["status_reason"] else ""))
    out.print(f"question: {s['question']}")
    plan = s["plan"]
    if plan["questions"]:
        t = Table(title=f"plan (revision {plan['revision']}, {'approved' if plan['approved'] else 'not approved'})", title_justify="left")
        for col in ("id", "kind", "critical", "branch", "text"):
            t.add_column(col)
        for q in plan["questions"]:
            t.add_row(q["id"], q["kind"], "yes" if q["critical"] else "no", q["branch"] or "-",
                      (f"[{q['tag']}] " if q["tag"] else "") + (q["text"] or ""))
        out.print(t)
    src = s["sources"]
    out.print(f"sources: {src['total']} ({src['primary']} primary, {src['secondary']} secondary, {src['flagged']} flagged, {src['duplicates']} duplicate hits)")
    out.print(f"cards: {s['cards']}")
    claims = s["claims"]
    out.print("claims: " + str(claims["total"]) + " (" + ", ".join(f"{k} {v}" for k, v in claims.items() if k != "total") + ")")
    out.print(f"drafts: {', '.join(s['drafts']) or 'none'}")
    for r in s["reviews"]:
        codes = ", ".join(f"{c}×{n}" for c, n in sorted(r["codes"].items()))
        out.print(f"  {r['path']} on {r['draft']}: {r['verdict']} ({r['errors']} errors, {r['warnings']} warnings{'; ' + codes if codes else ''})")
    spent, limits = s["budget"]["spent"], s["budget"]["limits"]
    if spent or limits:
        out.print("budget: " + ", ".join(f"{k} {spent.get(k, 0)}/{limits.get(k) if limits.get(k) is not None else '∞'}" for k in ("llm_calls", "tokens", "searches", "wall_seconds")))
    out.print(f"final report: {s['final_report'] or 'not yet'}")


def _version(value: bool) -> None:
    if value:
        print(f"research {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: Optional[bool] = typer.Option(None, "--version", callback=_version, is_eager=True, help="Show the version and exit.")) -> None:
    """Workspace-file research harness."""


def main() -> None:
    try:
        rc = app(standalone_mode=False)
    except HarnessError as exc:
        print(f"research: error: {exc}", file=sys.stderr)
        sys.exit(exc.exit_code)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except typer.Abort:
        print("research: aborted", file=sys.stderr)
        sys.exit(EXIT_USAGE)
    except KeyboardInterrupt:
        print("research: interrupted", file=sys.stderr)
        sys.exit(130)
    except TyperException as exc:  # usage errors (bad flags, bad RUN_DIR): one line, exit 2
        message = " ".join((exc.format_message() if hasattr(exc, "format_message") else str(exc)).split())
        if message:  # NoArgsIsHelp has already printed the help
            print(f"research: error: {message}", file=sys.stderr)
        sys.exit(getattr(exc, "exit_code", EXIT_USAGE) or EXIT_USAGE)
    except Exception as exc:
        print(f"research: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        sys.exit(EXIT_INTERNAL)
    sys.exit(rc if isinstance(rc, int) else 0)


if __name__ == "__main__":
    main()
