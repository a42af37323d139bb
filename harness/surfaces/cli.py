"""The `research` command line."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer
from rich.table import Table
from typer.exceptions import TyperException

from harness.contract.layout import RUN
from harness.contract.statuses import (
    BUDGET_DIMENSIONS,
    DELIVERABLE,
)
from harness.contract.version import __version__
from harness.errors import EXIT_INTERNAL, EXIT_USAGE, HarnessError
from harness.evidence.audit import validate_run
from harness.surfaces.cli_options import (
    APPROVALS,
    BUDGET,
    MODEL,
    OUTPUT,
    SOURCES,
    WEB,
    Agent,
    BudgetLlmCalls,
    BudgetSearches,
    BudgetSeconds,
    BudgetTokens,
    BudgetUsd,
    CheckpointDb,
    CitationStyle,
    Concurrency,
    ConfigFile,
    CorpusOpt,
    Engine,
    JsonEvents,
    Language,
    MaxRevisions,
    Model,
    ModelBaseUrl,
    NoFinalApproval,
    Question,
    Quiet,
    RequireFinalApproval,
    RunsDir,
    Search,
    SearchUrl,
    Web,
    WebAllowPrivate,
    WebIgnoreRobots,
    Yes,
)
from harness.surfaces.cli_output import OFFLINE_NOTE, display_for, err, finish, out
from harness.surfaces.summary import budget_amount, cost_text, dollars, summarize

# What other modules import from here; the panels live in cli_options and are named here for the help tests.
__all__ = ["APPROVALS", "BUDGET", "MODEL", "OUTPUT", "SOURCES", "WEB", "app", "main"]

app = typer.Typer(
    name="research",
    help="Workspace-file research harness: plan, research, analyze, write and review, with verified citations.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _budget(
    llm_calls: int | None, tokens: int | None, searches: int | None, seconds: float | None, usd: float | None = None
) -> dict:
    return dict(zip(BUDGET_DIMENSIONS, (llm_calls, tokens, searches, seconds, usd), strict=True))


def _run_dir(path: Path) -> Path:
    if not path.is_dir():
        raise typer.BadParameter(f"{path}: no such run folder", param_hint="RUN_DIR")
    if not (path / RUN).is_file():
        raise typer.BadParameter(f"{path}: not a run workspace (no run.json)", param_hint="RUN_DIR")
    return path


@app.command()
def validate(
    run_dir: Path = typer.Argument(..., help="The run workspace folder."),
    as_json: bool = typer.Option(False, "--json", help="Print a JSON report instead of lines."),
    export_file: Path | None = typer.Option(
        None, "--export", help="Check instead that this exported file (.md/.html/.pdf/.docx) matches the run."
    ),
) -> None:
    """Run every schema and integrity check on a workspace; exit 0 when clean, 1 otherwise."""
    run_dir = _run_dir(run_dir)
    if export_file is not None:
        from harness.surfaces.export import check_export

        found = check_export(run_dir, export_file)
        if as_json:
            print(json.dumps({"path": str(export_file), "run": str(run_dir), "ok": not found, "problems": found}))
        else:
            print("\n".join(found) or f"{export_file}: matches {run_dir}")
        raise typer.Exit(0 if not found else 1)
    problems = validate_run(run_dir)
    if as_json:
        print(
            json.dumps(
                {"path": str(run_dir), "ok": not problems, "problems": [p.as_dict() for p in problems]}, indent=2
            )
        )
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
    run_dir = _run_dir(run_dir)
    s = {"path": str(run_dir.resolve()), **summarize(run_dir)}
    if as_json:
        print(json.dumps(s, indent=2, ensure_ascii=False))
        return
    out.print(
        f"[bold]{s['run_id']}[/]  status: [bold]{s['status']}[/]"
        + (f" ({s['status_reason']})" if s["status_reason"] else "")
    )
    out.print(f"question: {s['question']}")
    _print_plan(s["plan"])
    _print_work(s)
    _print_spending(s)
    _print_answers(s.get("answers"))
    out.print(f"final report: {run_dir / s['final_report'] if s['final_report'] else 'not yet'}")


def _print_plan(plan: dict) -> None:
    """`inspect`'s plan: the research questions as a table, then what the report delivers."""
    if not plan["questions"]:
        return
    t = Table(
        title=f"plan (revision {plan['revision']}, {'approved' if plan['approved'] else 'not approved'})",
        title_justify="left",
    )
    for col in ("id", "critical", "branch", "research question"):
        t.add_column(col)
    for q in plan["questions"]:
        if q["kind"] == DELIVERABLE:  # what the report delivers, printed below, not research
            continue
        t.add_row(
            q["id"],
            "yes" if q["critical"] else "no",
            q["branch"] or "-",
            (f"[{q['tag']}] " if q["tag"] else "") + (q["text"] or ""),
        )
    out.print(t)
    for q in plan["questions"]:
        if q["kind"] == DELIVERABLE:
            out.print(f"deliverable: {q['text'] or ''}", markup=False)


def _print_work(s: dict) -> None:
    """`inspect`'s counts of what the run wrote: sources, cards, claims, drafts, and each review's verdict."""
    src = s["sources"]
    out.print(
        f"sources: {src['total']} ({src['primary']} primary, {src['secondary']} secondary, {src['flagged']} flagged with {src.get('flagged_sentences', 0)} instruction-like sentence(s), {src['duplicates']} duplicate hits)"
    )
    out.print(f"cards: {s['cards']}")
    claims = s["claims"]
    out.print(
        "claims: "
        + str(claims["total"])
        + " ("
        + ", ".join(f"{k} {v}" for k, v in claims.items() if k != "total")
        + ")"
    )
    out.print(f"drafts: {', '.join(s['drafts']) or 'none'}")
    for r in s["reviews"]:
        codes = ", ".join(f"{c}×{n}" for c, n in sorted(r["codes"].items()))
        out.print(
            f"  {r['path']} on {r['draft']}: {r['verdict']} ({r['errors']} errors, {r['warnings']} warnings{'; ' + codes if codes else ''})"
        )


def _print_spending(s: dict) -> None:
    """`inspect`'s budget (spent against each limit) and cost by role, each when the run has one."""
    spent, limits = s["budget"]["spent"], s["budget"]["limits"]
    if spent or limits:
        out.print(
            "budget: "
            + ", ".join(
                f"{k} {budget_amount(k, spent.get(k, 0))}/{budget_amount(k, limits.get(k))}" for k in BUDGET_DIMENSIONS
            )
        )
    if s["cost"] is not None:
        out.print(cost_text(s["cost"]))
        out.print(
            "  by role: "
            + ", ".join(f"{role} {dollars(r['usd'])}" for role, r in s["cost"]["roles"].items() if r["delegations"])
        )


def _print_answers(answers: dict | None) -> None:
    """`inspect`'s table of the answer check's verdicts, one row per research question, when there are any."""
    if not answers:
        return
    cov = answers["coverage"]
    t = Table(
        title=f"answers (the answer check): {answers['answered']}/{answers['questions_total']} answered"
        + (f", coverage {cov:.0%}" if isinstance(cov, (int, float)) else ""),
        title_justify="left",
    )
    for col in ("id", "verdict", "reason", "reviewer"):
        t.add_column(col, overflow="fold")
    for a in answers["questions"]:
        judged = a.get("reviewer") or {}
        t.add_row(a["question_id"], a["verdict"], a["reason"], judged.get("verdict") or "-")
    out.print(t)


@app.command()
def run(
    question: Question,
    corpus: CorpusOpt = None,
    runs_dir: RunsDir = None,
    engine: Engine = None,
    model: Model = None,
    model_base_url: ModelBaseUrl = None,
    agent: Agent = [],  # noqa: B006 - Typer's default for a repeatable option, never mutated
    config: ConfigFile = None,
    yes: Yes = False,
    max_revisions: MaxRevisions = None,
    concurrency: Concurrency = None,
    budget_llm_calls: BudgetLlmCalls = None,
    budget_tokens: BudgetTokens = None,
    budget_searches: BudgetSearches = None,
    budget_seconds: BudgetSeconds = None,
    budget_usd: BudgetUsd = None,
    require_final_approval: RequireFinalApproval = False,
    no_final_approval: NoFinalApproval = False,
    web: Web = None,
    web_allow_private: WebAllowPrivate = None,
    web_ignore_robots: WebIgnoreRobots = None,
    search: Search = None,
    search_url: SearchUrl = None,
    language: Language = None,
    citation_style: CitationStyle = None,
    checkpoint_db: CheckpointDb = None,
    quiet: Quiet = False,
    as_json: JsonEvents = False,
) -> None:
    """Start a run: plan, research, analyze, write and review; prints where the final report is."""
    from harness.orchestrator.config import RunOptions, build_config

    if require_final_approval and no_final_approval:
        raise typer.BadParameter("choose one", param_hint="--require-final-approval/--no-final-approval")
    options = RunOptions(
        question,
        corpus=corpus,
        runs_dir=runs_dir,
        engine=engine,
        model=model,
        model_base_url=model_base_url,
        agents=agent,
        config=config,
        yes=yes,
        max_revisions=max_revisions,
        concurrency=concurrency,
        budget=_budget(budget_llm_calls, budget_tokens, budget_searches, budget_seconds, budget_usd),
        require_final_approval=True if require_final_approval else False if no_final_approval else None,
        web=web,
        web_allow_private=web_allow_private,
        web_robots=None if web_ignore_robots is None else not web_ignore_robots,
        search=search,
        search_url=search_url,
        language=language,
        citation_style=citation_style,
        checkpoint_db=checkpoint_db,
    )
    _start(build_config(options), quiet, as_json, checkpoint_db=options.checkpoint_db)


def _start(cfg, quiet: bool, as_json: bool, **start: Any) -> None:
    """What `run` and `ask` do once the configuration is built, said once: the notes, the display, the terminal
    approver, the run itself (`start`: what only one of them passes to `start_run`), and the ending."""
    from harness.orchestrator.config import offline_language_note
    from harness.orchestrator.lifecycle import start_run
    from harness.surfaces.interactive import TerminalApprover

    if cfg.all_offline and not quiet:
        err.print(OFFLINE_NOTE)
    if (note := offline_language_note(cfg)) and not quiet:
        err.print(note)
    display = display_for(quiet, as_json)
    approver = TerminalApprover() if sys.stdin.isatty() and not as_json else None
    try:
        result = start_run(cfg, approver=approver, events=display, on_created=display.attach, **start)
    finally:
        display.close()
    finish(result, as_json)


@app.command()
def ask(
    run_dir: Path = typer.Argument(..., help="The run to follow up (its folder)."),
    question: str = typer.Argument(..., help="The follow-up question."),
    yes: Yes = False,
    runs_dir: str | None = typer.Option(
        None, "--runs-dir", help="Where the new run goes (default: next to the parent).", rich_help_panel=OUTPUT
    ),
    quiet: Quiet = False,
    as_json: JsonEvents = False,
) -> None:
    """Start a follow-up run that begins with the parent's sources and cards and researches only what is new."""
    from harness.orchestrator.followup import followup_config

    run_dir = _run_dir(run_dir)
    cfg = followup_config(run_dir, question, yes=yes, runs_dir=runs_dir)
    _start(cfg, quiet, as_json, parent=run_dir)


@app.command()
def resume(
    run_dir: Path = typer.Argument(..., help="The run workspace folder."),
    yes: bool = typer.Option(
        False, "--yes", "-y", help="Approve a pending plan without asking.", rich_help_panel=APPROVALS
    ),
    budget_llm_calls: BudgetLlmCalls = None,
    budget_tokens: BudgetTokens = None,
    budget_searches: BudgetSearches = None,
    budget_seconds: BudgetSeconds = None,
    budget_usd: BudgetUsd = None,
    checkpoint_db: CheckpointDb = None,
    model_base_url: ModelBaseUrl = None,
    quiet: Quiet = False,
    as_json: JsonEvents = False,
) -> None:
    """Continue a paused, crashed or killed run from its last checkpoint; --budget-* raises a spent run's limits."""
    from harness.orchestrator.lifecycle import resume_run
    from harness.surfaces.interactive import TerminalApprover

    display = display_for(quiet, as_json)
    try:
        result = resume_run(
            _run_dir(run_dir),
            yes=yes,
            budget=_budget(budget_llm_calls, budget_tokens, budget_searches, budget_seconds, budget_usd),
            approver=TerminalApprover() if sys.stdin.isatty() and not as_json else None,
            events=display,
            on_opened=display.attach,
            checkpoint_db=checkpoint_db,
            model_base_url=model_base_url,
        )
    finally:
        display.close()
    finish(result, as_json)


@app.command()
def approve(
    run_dir: Path = typer.Argument(..., help="The run workspace folder."),
    plan: bool = typer.Option(False, "--plan", help="Approve the pending plan."),
    plan_file: Path | None = typer.Argument(None, help="With --plan: an edited plan.json to approve instead."),
    final: bool = typer.Option(False, "--final", help="Sign off the final draft."),
    version: str | None = typer.Option(
        None, "--version", help="With --final: the sha256 of the draft you read (at least 12 hex digits)."
    ),
    reject: str | None = typer.Option(
        None, "--reject", help="With --plan: reject with this feedback instead of approving."
    ),
    by: str | None = typer.Option(None, "--by", help="Who decides (default: your user name)."),
) -> None:
    """Record a human decision on a paused run from another process; then `research resume` continues it."""
    import getpass

    from harness.orchestrator.approvals import record_decision

    if plan == final:
        raise typer.BadParameter("choose exactly one of --plan or --final", param_hint="--plan/--final")
    if final and version is None:
        raise typer.BadParameter(
            "--final needs --version SHA (the sha256 of the draft you approve)", param_hint="--version"
        )
    text = None
    if plan and plan_file is not None:
        try:
            text = plan_file.read_text(encoding="utf-8")
        except OSError as exc:
            raise typer.BadParameter(f"{plan_file}: {exc.strerror}", param_hint="PLAN_FILE") from None
    out.print(
        record_decision(
            _run_dir(run_dir),
            plan=plan,
            plan_text=text,
            reject=reject if plan else None,
            final_version=version if final else None,
            by=by or getpass.getuser(),
        )
    )
    out.print(f"continue with: research resume {run_dir}")


@app.command()
def view(
    run_dir: Path = typer.Argument(..., help="The run workspace folder."),
    serve: bool = typer.Option(False, "--serve", help="Serve the viewer on 127.0.0.1 and print its URL; Ctrl-C stops."),
    port: int = typer.Option(0, "--port", help="With --serve: the port to listen on (default: any free port)."),
) -> None:
    """Write index.html, a self-contained viewer of the run (open it from disk), or serve it with --serve."""
    from harness.surfaces.viewer import view_command

    raise typer.Exit(view_command(_run_dir(run_dir), serve, port))


@app.command()
def serve(
    runs_dir: Path = typer.Option(Path("runs"), "--runs-dir", help="The runs folder the app lists and starts runs in."),
    host: str = typer.Option(
        "127.0.0.1", "--host", help="Address to listen on (off loopback, serve HTTPS or sit behind a TLS proxy)."
    ),
    port: int = typer.Option(8000, "--port", help="Port to listen on (0: any free port)."),
    corpus_root: list[str] = typer.Option(
        [],
        "--corpus-root",
        help="A folder a corpus may come from, or python-docs (repeatable; default: . and python-docs).",
    ),
    max_active_runs: int | None = typer.Option(
        None, "--max-active-runs", help="Run processes at once; more wait in a queue (default: 2 per core)."
    ),
    token_file: Path | None = typer.Option(
        None, "--token-file", help="Keep the login token in this file (created if missing); default: new at each start."
    ),
    certfile: Path | None = typer.Option(None, "--certfile", help="Serve HTTPS with this certificate (PEM)."),
    keyfile: Path | None = typer.Option(None, "--keyfile", help="The certificate's private key (PEM)."),
) -> None:
    """Serve a local web app to launch, steer and audit runs (the JSON API under it is in the README)."""
    from harness.surfaces.serve import serve_command

    raise typer.Exit(
        serve_command(
            runs_dir,
            host,
            port,
            corpus_root or None,
            max_active_runs=max_active_runs,
            token_file=token_file,
            certfile=certfile,
            keyfile=keyfile,
        )
    )


@app.command()
def mcp(
    runs_dir: Path = typer.Option(
        Path("runs"), "--runs-dir", help="The runs folder the server starts and reads runs in."
    ),
    corpus_root: list[str] = typer.Option(
        [],
        "--corpus-root",
        help="A folder a corpus may come from, or python-docs (repeatable; default: . and python-docs).",
    ),
    http: bool = typer.Option(False, "--http", help="Serve streamable HTTP at /mcp instead of stdio."),
    host: str | None = typer.Option(
        None, "--host", help="With --http: address to listen on (default 127.0.0.1; any other needs a token)."
    ),
    port: int = typer.Option(8765, "--port", help="With --http: port to listen on (0: any free port)."),
) -> None:
    """Serve verified research to other agents over MCP (stdio, or streamable HTTP with --http)."""
    from harness.surfaces.mcp_server import mcp_command

    raise typer.Exit(mcp_command(runs_dir, corpus_root or None, http, host, port))


@app.command()
def export(
    run_dir: Path = typer.Argument(..., help="The run workspace folder (a completed run)."),
    fmt: str = typer.Option(
        ..., "--format", help="pdf, docx, html or md; bibtex or csl-json for the references of the cited papers."
    ),
    out_file: Path | None = typer.Option(
        None, "--out", help="The file to write (default RUN_DIR/exports/<run_id>.<format>)."
    ),
    citation_style: CitationStyle = None,
) -> None:
    """Export the final report with its evidence and sources as an appendix (the file records the run and draft),
    or the references of the papers it cites. The bibliography is in the run's citation style unless
    --citation-style names another."""
    from harness.orchestrator.config import check_citation_style
    from harness.surfaces.export import export_run

    style = check_citation_style(citation_style) if citation_style is not None else None
    out.print(f"exported: {export_run(_run_dir(run_dir), fmt, out_file, style)}")


@app.command(name="eval")
def eval_(
    suite_dir: Path = typer.Argument(
        ..., help="Folder of eval cases (each with case.yaml and corpus/), or one case folder."
    ),
    engine: str | None = typer.Option(None, "--engine", help="offline or llm for every role a case does not set."),
    as_json: bool = typer.Option(False, "--json", help="Print the JSON summary instead of the tables."),
    runs_dir: Path | None = typer.Option(
        None, "--runs-dir", help="Where workspaces and eval-summary.json go (default runs/eval-<UTC time>)."
    ),
) -> None:
    """Run an evaluation suite; exit 0 when every expectation holds, 1 otherwise, 2 for a malformed suite."""
    from harness.surfaces.evals import eval_command

    raise typer.Exit(eval_command(suite_dir, engine, as_json, runs_dir))


def _version(value: bool) -> None:
    if value:
        print(f"research {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool | None = typer.Option(
        None, "--version", callback=_version, is_eager=True, help="Show the version and exit."
    ),
) -> None:
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
