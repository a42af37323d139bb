"""Eval suites: small cases, each a question with a corpus written for it, run end to end and checked.

A suite is a folder of cases; a case is a folder with ``case.yaml`` (question, optional
configuration overrides, expectations; schema: schemas/eval-case.schema.json) and
``corpus/`` (the documents the run may search). ``run_suite`` runs every case in its own
workspace and checks the expectations against the files the run left behind — run.json,
claims.json, reviews, metrics.json, the report — so a case judges the harness exactly as
an auditor would. ``eval_command`` is ``research eval SUITE_DIR``: a table, a JSON summary
(``<runs_dir>/eval-summary.json``) and an exit code (0 all hold, 1 a case failed, 2 the
suite is malformed). The case format and the metrics are described in docs/metrics.md.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from harness.contract.formats import dump_json
from harness.contract.layout import FINAL_REPORT, METRICS
from harness.contract.schemas import validate
from harness.errors import HarnessError, UsageError
from harness.evidence.audit import validate_run
from harness.evidence.metrics import compute_metrics
from harness.surfaces.summary import summarize
from harness.workspace.reader import RunReader

CASE_FILE = "case.yaml"
SCHEMA = "eval-case.schema.json"
SUMMARY_FILE = "eval-summary.json"
KEY_METRICS = (
    "citation_coverage",
    "citation_correctness",
    "primary_source_ratio",
    "conflict_disclosure_rate",
    "plan_coverage",
    "answer_coverage",
)
_CMP = re.compile(r"^\s*(==|!=|>=|<=|>|<)?\s*(-?[0-9]+(?:\.[0-9]+)?|null)\s*$")
_CONFIG_KEYS = ("max_revisions", "concurrency", "agents", "budget", "role_budgets", "sources")


class SuiteError(UsageError):
    """The suite is malformed: a missing folder, a case.yaml that is not valid, a bad override (exit 2)."""


# ---- the case format -------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    name: str
    dir: Path
    question: str
    corpus: Path
    config: dict[str, Any]
    expect: dict[str, Any]
    description: str = ""
    known_failure: dict[str, Any] | None = None

    @property
    def file(self) -> Path:
        return self.dir / CASE_FILE


def _str_keys(value: Any) -> Any:
    """YAML reads `1:` as an int key; the schema (like JSON) speaks of string keys."""
    if isinstance(value, dict):
        return {str(k): _str_keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_str_keys(v) for v in value]
    return value


def load_case(case_dir: Path) -> Case:
    """Read and validate one case folder; raise SuiteError naming the file and field."""
    path = case_dir / CASE_FILE
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SuiteError(f"{path}: cannot read ({exc.strerror})") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise SuiteError(f"{path}: not valid YAML{where} ({getattr(exc, 'problem', None) or exc})") from None
    data = _str_keys(data)
    problems = validate(data, SCHEMA, str(path))
    if problems:
        p = problems[0]
        raise SuiteError(f"{path}: field {p.pointer}: {p.message} [{p.rule}]")
    corpus = case_dir / data.get("corpus", "corpus")
    if not corpus.is_dir():
        raise SuiteError(f"{path}: field /corpus: {corpus} is not a folder (each case needs its own corpus)")
    return Case(
        case_dir.name,
        case_dir,
        data["question"],
        corpus,
        data.get("config") or {},
        data["expect"],
        data.get("description", ""),
        data.get("known_failure"),
    )


def load_suite(suite_dir: Path) -> list[Case]:
    """Every case of the suite (its subfolders with a case.yaml), or the one case `suite_dir` is."""
    suite_dir = Path(suite_dir)
    if not suite_dir.is_dir():
        raise SuiteError(f"{suite_dir}: no such suite folder")
    if (suite_dir / CASE_FILE).is_file():
        return [load_case(suite_dir)]
    cases = [
        load_case(d)
        for d in sorted(suite_dir.iterdir())
        if d.is_dir() and not d.name.startswith((".", "_")) and (d / CASE_FILE).is_file()
    ]
    if not cases:
        raise SuiteError(f"{suite_dir}: no cases (a case is a folder with {CASE_FILE} and corpus/)")
    return cases


# ---- running a case ------------------------------------------------------------------


@contextmanager
def _case_imports(case: Case) -> Iterator[None]:
    """The case folder on sys.path (for python:module:Class agents), its modules forgotten afterwards.

    Cases may reuse module names, so a module imported from one case folder must not be
    found in sys.modules by the next; and nothing is compiled into the suite's folders.
    """
    root = str(case.dir.resolve())
    sys.path.insert(0, root)
    bytecode = sys.dont_write_bytecode
    sys.dont_write_bytecode = True
    try:
        yield
    finally:
        sys.dont_write_bytecode = bytecode
        if root in sys.path:
            sys.path.remove(root)
        for name, module in list(sys.modules.items()):
            file = getattr(module, "__file__", None)
            if file and Path(file).resolve().is_relative_to(root):
                del sys.modules[name]


@contextmanager
def _config_file(case: Case) -> Iterator[Path]:
    """The case's overrides as a research.yaml of its own, so ./research.yaml never leaks into a case."""
    with tempfile.TemporaryDirectory(prefix="research-eval-") as tmp:
        path = Path(tmp) / "research.yaml"
        path.write_text(yaml.safe_dump({k: case.config[k] for k in _CONFIG_KEYS if k in case.config}), encoding="utf-8")
        yield path


def _build(case: Case, engine: str | None, runs_dir: Path):
    from harness.orchestrator.config import build_config

    with _config_file(case) as cfg_file:
        try:
            return build_config(
                case.question,
                corpus=str(case.corpus),
                runs_dir=str(runs_dir),
                engine=engine,
                config=cfg_file,
                yes=True,
            )
        except UsageError as exc:
            if str(exc).startswith("--engine"):
                raise
            message = str(exc)
            if message.startswith("research.yaml agents: "):
                raise SuiteError(
                    f"{case.file}: field /config/agents: {message.removeprefix('research.yaml agents: ')}"
                ) from None
            raise SuiteError(f"{case.file}: field /config: {message}") from None


def _precheck(case: Case, cfg) -> None:
    """Fail before any run when the case cannot start: a budget too small, a role that cannot run."""
    from harness.orchestrator.agents import _load_custom, preflight
    from harness.orchestrator.lifecycle import check_budget_fits

    try:
        check_budget_fits(cfg)
    except UsageError as exc:
        raise SuiteError(f"{case.file}: field /config/budget: {exc}") from None
    preflight(cfg)  # a missing key or provider concerns --engine, not the case: its own one-line error
    with _case_imports(case):
        for role, choice in cfg.roles.items():
            if choice.engine == "custom":
                try:
                    _load_custom(choice)
                except UsageError as exc:
                    raise SuiteError(f"{case.file}: field /config/agents/{role}: {exc}") from None


def _run_engine(cfg) -> str:
    engines = {c.engine for c in cfg.roles.values() if c.engine != "custom"}
    return engines.pop() if len(engines) == 1 else "mixed"


@dataclass
class Check:
    name: str
    expected: Any
    actual: Any
    ok: bool

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "expected": self.expected, "actual": self.actual, "ok": self.ok}


@dataclass
class CaseResult:
    name: str
    status: str  # pass, fail, xfail (a known failure that failed), xpass (a known failure that passed), error
    description: str = ""
    run_dir: Path | None = None
    run_status: str | None = None
    run_reason: str | None = None
    engine: str | None = None
    checks: list[Check] = field(default_factory=list)
    metrics: dict[str, Any] = field(default_factory=dict)
    known_failure: str | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.status in ("pass", "xfail")

    def as_dict(self) -> dict[str, Any]:
        return {
            "case": self.name,
            "status": self.status,
            "ok": self.ok,
            "description": self.description,
            "run_dir": str(self.run_dir) if self.run_dir else None,
            "run_status": self.run_status,
            "run_reason": self.run_reason,
            "engine": self.engine,
            "known_failure": self.known_failure,
            "error": self.error,
            "checks": [c.as_dict() for c in self.checks],
            "metrics": self.metrics,
        }


@dataclass
class SuiteResult:
    suite_dir: Path
    runs_dir: Path
    engine: str | None
    cases: list[CaseResult]

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.cases)

    @property
    def exit_code(self) -> int:
        return 0 if self.ok else 1

    def counts(self) -> dict[str, int]:
        out = {k: 0 for k in ("pass", "fail", "xfail", "xpass", "error")}
        for c in self.cases:
            out[c.status] += 1
        return out

    def as_dict(self) -> dict[str, Any]:
        return {
            "suite": str(self.suite_dir),
            "runs_dir": str(self.runs_dir),
            "engine": self.engine,
            "ok": self.ok,
            "counts": self.counts(),
            "cases": [c.as_dict() for c in self.cases],
        }


def run_case(case: Case, engine: str | None, runs_dir: Path) -> CaseResult:
    """Run one case in a workspace under `runs_dir`/<case name>/ and check its expectations."""
    from harness.orchestrator.lifecycle import start_run

    result = CaseResult(case.name, "error", case.description)
    cfg = _build(case, engine, runs_dir / case.name)
    result.engine = _run_engine(cfg)
    known = case.known_failure
    if known and result.engine in known.get("engines", [result.engine]):
        result.known_failure = known["reason"]
    try:
        with _case_imports(case):
            run = start_run(cfg)
    except HarnessError as exc:
        result.error = f"{type(exc).__name__}: {exc}"
        return result
    except Exception as exc:  # a harness bug must not hide the other cases' results
        result.error = f"internal error: {type(exc).__name__}: {exc}"
        return result
    result.run_dir, result.run_status, result.run_reason = run.run_dir, run.status, run.reason
    result.checks = check_expectations(run.run_dir, case.expect)
    result.metrics = _key_metrics(run.run_dir)
    held = all(c.ok for c in result.checks)
    if result.known_failure:
        result.status = "xpass" if held else "xfail"
    else:
        result.status = "pass" if held else "fail"
    return result


def run_suite(suite_dir: Path, engine: str | None = None, runs_dir: Path | None = None) -> SuiteResult:
    """Run every case of the suite at `suite_dir`; write <runs_dir>/eval-summary.json.

    Raises SuiteError (a UsageError, exit 2) before running anything when the suite is malformed.
    """
    suite_dir = Path(suite_dir)
    cases = load_suite(suite_dir)
    if runs_dir is None:
        runs_dir = Path("runs") / ("eval-" + datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ"))
    runs_dir = Path(runs_dir)
    for case in cases:  # every case is checked before any runs
        _precheck(case, _build(case, engine, runs_dir / case.name))
    results = [run_case(case, engine, runs_dir) for case in cases]
    suite = SuiteResult(suite_dir, runs_dir, engine, results)
    runs_dir.mkdir(parents=True, exist_ok=True)
    (runs_dir / SUMMARY_FILE).write_text(dump_json(suite.as_dict()), encoding="utf-8")
    return suite


# ---- checking expectations -----------------------------------------------------------


def compare(actual: Any, spec: Any) -> bool:
    """Does `actual` satisfy a comparison such as ">=1", "==0.5", 3 or "==null"?"""
    if isinstance(spec, bool):
        return actual == spec
    target: float | None  # None: "==null"
    if isinstance(spec, (int, float)):
        op, target = "==", float(spec)
    else:
        m = _CMP.match(str(spec))
        if not m:
            return False
        op, raw = m.group(1) or "==", m.group(2)
        target = None if raw == "null" else float(raw)
    if target is None or actual is None:
        same = actual is None and target is None
        return same if op in ("==", ">=", "<=") else (not same) if op == "!=" else False
    a = float(actual)
    return {
        "==": abs(a - target) < 1e-9,
        "!=": abs(a - target) >= 1e-9,
        ">=": a >= target - 1e-9,
        "<=": a <= target + 1e-9,
        ">": a > target + 1e-9,
        "<": a < target - 1e-9,
    }[op]


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def _pick(items: list[Any], which: str) -> Any:
    if not items:
        return None
    if which == "first":
        return items[0]
    if which == "last":
        return items[-1]
    n = int(which)
    return items[n - 1] if 0 < n <= len(items) else None


def _report(reader: RunReader) -> str:
    """The final report, else the last draft."""
    final = reader.read_text(FINAL_REPORT)
    if final is not None:
        return final
    drafts = reader.drafts()
    return (reader.read_text(drafts[-1]) or "") if drafts else ""


def _limitations(report: str) -> str:
    m = re.search(r"^#{1,6}\s+Limitations\b.*?$(.*?)(?=^#{1,6}\s|^---\s*$|\Z)", report, re.M | re.S | re.I)
    return m.group(1) if m else ""


def _ratios(metrics: dict | None) -> dict[str, Any]:
    return {k: v.get("value") for k, v in ((metrics or {}).get("ratios") or {}).items()}


def _key_metrics(root: Path) -> dict[str, Any]:
    ratios = _ratios(RunReader(root).read_json(METRICS))
    return {k: ratios.get(k) for k in KEY_METRICS}


def _one_of(actual: Any, expected: Any) -> bool:
    return actual in expected if isinstance(expected, list) else actual == expected


def _judged(name: str, expected: Any, actual: Any, judge: Callable[[Any, Any], bool]) -> Check:
    """A Check of `actual` against `expected` by `judge`: `compare` for a number, `_one_of` for a status."""
    return Check(name, expected, actual, bool(judge(actual, expected)))


def _each(expect: dict[str, Any], section: str, actual_of: Callable[[str], Any], judge=compare) -> list[Check]:
    """One Check per entry (name -> expected) of a section of expectations, named `section.name`."""
    return [_judged(f"{section}.{k}", spec, actual_of(k), judge) for k, spec in (expect.get(section) or {}).items()]


def _defect_checks(reviews: list[dict], expect: dict[str, Any]) -> list[Check]:
    """The defect codes expected present in (or absent from) the first review, the final one or any: a run with no
    review fails each, as nothing was checked."""
    codes = [sorted({d.get("code") for d in r.get("defects", [])}) for r in reviews]
    first, last = (codes[0], codes[-1]) if codes else ([], [])
    seen_any = sorted(set().union(*codes)) if codes else []
    checks: list[Check] = []
    for key, pool, want in (
        ("defects_first", first, "present"),
        ("defects_final", last, "present"),
        ("defects_any", seen_any, "present"),
        ("defects_absent_final", last, "absent"),
        ("defects_absent_any", seen_any, "absent"),
    ):
        for code in expect.get(key) or []:
            found = "present" if code in pool else "absent"
            checks.append(Check(f"{key}: {code}", want, found, found == want and bool(reviews)))
    return checks


def _metric_checks(reader: RunReader, branches: dict, expect: dict[str, Any]) -> list[Check]:
    """The final report's ratios (metrics.json), then a chosen draft's, computed from it as the report's are."""
    checks = _each(expect, "metrics", _ratios(reader.read_json(METRICS)).get)
    drafts = reader.drafts()
    for which, thresholds in (expect.get("draft_metrics") or {}).items():
        draft = _pick(drafts, which)
        values = _ratios(compute_metrics(reader, draft, branches)) if draft else {}
        checks += [
            _judged(f"draft_metrics.{which}.{k}", spec, values.get(k), compare) for k, spec in thresholds.items()
        ]
    return checks


def _report_checks(report: str, expect: dict[str, Any]) -> list[Check]:
    """Phrases the report must (or must not) contain, and those its Limitations section must; whitespace and case
    are normalized (`_norm`), so a line break in the report does not fail a case."""
    text, limits = _norm(report), _norm(_limitations(report))
    checks: list[Check] = []
    for key, where, want in (
        ("report_contains", text, "present"),
        ("report_not_contains", text, "absent"),
        ("limitations_contain", limits, "present"),
    ):
        for s in expect.get(key) or []:
            found = "present" if _norm(s) in where else "absent"
            checks.append(Check(f"{key}: {s}", want, found, found == want))
    return checks


def _refused_write_checks(reader: RunReader, expect: dict[str, Any]) -> list[Check]:
    """Writes refused per role (the retries of its delegations in the trace); the trace is read only when asked."""
    if not expect.get("refused_writes"):
        return []
    refused: dict[str | None, int] = {}  # by the delegation's agent, as the trace names it
    for event in reader.events():
        if event.get("event") == "delegation":
            refused[event.get("agent")] = refused.get(event.get("agent"), 0) + int(event.get("retries") or 0)
    return _each(expect, "refused_writes", lambda role: refused.get(role, 0))


def check_expectations(root: Path, expect: dict[str, Any]) -> list[Check]:
    """One Check per expectation, judged from the workspace files alone, kind by kind in this order."""
    reader = RunReader(root, cache=True)
    run = reader.run()
    summary = summarize(reader)
    reviews = [reader.read_json(rel) or {} for rel in reader.reviews()]
    branches = run.get("branches") or {}
    checks = [_judged("status", expect["status"], run.get("status"), _one_of)] if "status" in expect else []
    checks += _each(expect, "claims", lambda status: summary["claims"].get(status, 0))
    checks += _each(expect, "branches", lambda qid: (branches.get(qid) or {}).get("status"), _one_of)
    checks += [_judged("reviews", expect["reviews"], len(reviews), compare)] if "reviews" in expect else []
    checks += _each(expect, "verdicts", lambda which: (_pick(reviews, which) or {}).get("verdict"), _one_of)
    checks += _defect_checks(reviews, expect) + _metric_checks(reader, branches, expect)
    checks += _report_checks(_report(reader), expect)
    checks += _each(expect, "sources", lambda kind: summary["sources"].get(kind, 0))
    checks += _refused_write_checks(reader, expect)
    want_valid = expect.get("valid", True)
    problems = validate_run(root)
    found = "clean" if not problems else f"{len(problems)} problem(s), first: {problems[0]}"
    return [*checks, Check("valid", "clean" if want_valid else "problems", found, (not problems) == want_valid)]


# ---- the command ---------------------------------------------------------------------


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def _first_sentence(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    m = re.search(r"(?<=[.:])\s", text)
    first = text[: m.start()] if m else text
    return first if len(first) <= limit else first[: limit - 1] + "…"


_STYLE = {"pass": "green", "xfail": "yellow", "fail": "red", "xpass": "red", "error": "red"}
_SHORT = {
    "citation_coverage": "coverage",
    "citation_correctness": "correct",
    "primary_source_ratio": "primary",
    "conflict_disclosure_rate": "disclosed",
    "plan_coverage": "plan",
    "answer_coverage": "answered",
}


def _tables(suite: SuiteResult):
    """One row per expectation (grouped by case), then one row of key metrics per case."""
    from rich.markup import escape
    from rich.table import Table

    checks = Table(title=escape(f"eval {suite.suite_dir} ({suite.engine or 'default engine'})"), title_justify="left")
    for col in ("case", "status", "expectation", "expected", "actual"):
        checks.add_column(col, overflow="fold")
    for c in suite.cases:
        head = [c.name, f"[{_STYLE[c.status]}]{c.status}[/]"]
        rows = (
            [("[red]error[/]", "", escape(c.error))]
            if c.error
            else [
                (
                    ("[green]✓[/] " if k.ok else "[red]✗[/] ") + escape(k.name),
                    escape(_fmt(k.expected)),
                    escape(_fmt(k.actual)),
                )
                for k in c.checks
            ]
        )
        if c.known_failure:
            rows.append(("[yellow]known failure[/]", "", escape(_first_sentence(c.known_failure)) + " (see case.yaml)"))
        for i, row in enumerate(rows):
            checks.add_row(*(head if i == 0 else ["", ""]), *row, end_section=i == len(rows) - 1)
    metrics = Table(title="runs", title_justify="left")
    for col in ("case", "run status", *(_SHORT[k] for k in KEY_METRICS)):
        metrics.add_column(col, overflow="fold")
    for c in suite.cases:
        run = (c.run_status or "-") + (f" ({escape(c.run_reason)})" if c.run_reason else "")
        metrics.add_row(c.name, run, *(_fmt(c.metrics.get(k)) for k in KEY_METRICS))
    return checks, metrics


def eval_command(suite_dir: Path, engine: str | None, as_json: bool, runs_dir: Path | None) -> int:
    """`research eval SUITE_DIR [--engine offline|llm] [--json] [--runs-dir DIR]`: 0 all hold, 1 a case failed, 2 malformed."""
    from rich.console import Console
    from rich.markup import escape

    try:
        suite = run_suite(Path(suite_dir), engine, Path(runs_dir) if runs_dir is not None else None)
    except UsageError as exc:
        print(f"research: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    summary = suite.as_dict()
    if as_json:
        print(json.dumps(summary, indent=2, ensure_ascii=False))
    else:
        out = Console(highlight=False)
        for table in _tables(suite):
            out.print(table)
        counts = ", ".join(f"{n} {k}" for k, n in summary["counts"].items() if n)
        verdict = "[green]suite passed[/]" if suite.ok else "[red]suite failed[/]"
        note = " (xfail: a known failure, still failing; xpass: a known failure that now passes: remove its mark)"
        out.print(
            f"{len(suite.cases)} case(s): {counts}; {verdict}"
            + (note if summary["counts"]["xfail"] + summary["counts"]["xpass"] else "")
        )
        out.print(
            f"workspaces: {escape(str(suite.runs_dir))}/<case>/<run id>; summary: {escape(str(suite.runs_dir / SUMMARY_FILE))}"
        )
    return suite.exit_code
