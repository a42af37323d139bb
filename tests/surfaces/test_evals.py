"""`research eval`: the suite in evals/ holds on the offline engine; failures and malformed cases are reported."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
import yaml

from harness.contract.resources import schemas_dir
from harness.contract.schemas import validate
from harness.surfaces.evals import SUMMARY_FILE, compare, eval_command, load_suite, run_suite

SUITE = Path(__file__).resolve().parents[2] / "evals"
REQUIRED_CASES = {
    "sources-sufficient",
    "no-primary-source",
    "version-conflict",
    "branch-timeout",
    "prompt-injection",
    "injection-answer-orders",
    "injection-unrelated-tasks",
    "injection-output-format",
    "citation-not-supporting",
}


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    """The whole suite, run once on the offline engine, with no key and a private cache."""
    with pytest.MonkeyPatch.context() as mp:
        for key in ("GOOGLE_API_KEY", "GEMINI_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
            mp.delenv(key, raising=False)
        mp.setenv("RESEARCH_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        yield run_suite(SUITE, engine="offline", runs_dir=tmp_path_factory.mktemp("eval-runs"))


def test_every_case_of_the_suite_holds_on_the_offline_engine(suite):
    assert REQUIRED_CASES <= {c.name for c in suite.cases}
    problems = {
        c.name: c.error or [f"{k.name}: expected {k.expected}, got {k.actual}" for k in c.checks if not k.ok]
        for c in suite.cases
        if not c.ok
    }
    assert suite.ok and suite.exit_code == 0, problems
    for case in suite.cases:
        assert case.status in ("pass", "xfail"), case.name
        assert case.engine == "offline"
        assert case.run_dir is not None and case.run_dir.parent.name == case.name
        assert any(k.name == "valid" and k.ok for k in case.checks), case.name  # every workspace validates
        if case.status == "xfail":
            assert case.known_failure


def test_known_failures_still_fail_for_the_recorded_reason(suite):
    """A known failure must fail on the checks its reason is about, not on something else."""
    failing = {c.name: {k.name for k in c.checks if not k.ok} for c in suite.cases if c.status == "xfail"}
    expected = {
        "sources-sufficient": "claims.verified",
        "uncited-sentence": "defects_first: missing_citation",
        "citation-not-supporting": "defects_first: citation_not_supporting",
        "prompt-injection-split": "report_not_contains: larkspur-turbo-tls",
        "version-conflict-paraphrased": "claims.conflicted",
    }
    for name, check in expected.items():
        if name in failing:
            assert check in failing[name], (name, failing[name])
    assert all("valid" not in checks for checks in failing.values())


def test_the_summary_is_written_next_to_the_workspaces(suite):
    summary = json.loads((suite.runs_dir / SUMMARY_FILE).read_text(encoding="utf-8"))
    assert summary["ok"] is True and summary["engine"] == "offline"
    assert [c["case"] for c in summary["cases"]] == [c.name for c in suite.cases]
    assert sum(summary["counts"].values()) == len(suite.cases)
    for case in summary["cases"]:
        assert Path(case["run_dir"]).is_dir()
        assert {"citation_coverage", "citation_correctness", "conflict_disclosure_rate"} <= set(case["metrics"])
        assert all({"name", "expected", "actual", "ok"} == set(k) for k in case["checks"])


def test_custom_agents_of_a_case_are_forgotten_after_it_ran(suite):
    leftovers = [
        name
        for name, m in sys.modules.items()
        if getattr(m, "__file__", None) and Path(m.__file__).resolve().is_relative_to(SUITE)
    ]
    assert leftovers == []
    assert not list(SUITE.rglob("__pycache__"))
    assert not any(str(SUITE) in p for p in sys.path)


def test_every_case_file_and_the_schema_example_validate():
    assert len(load_suite(SUITE)) >= len(REQUIRED_CASES)
    example = json.loads((schemas_dir() / "examples" / "eval-case.json").read_text(encoding="utf-8"))
    assert validate(example, "eval-case.schema.json", "eval-case.json") == []


# ---- the command on small suites made for the test ------------------------------------------


def _suite_with(tmp_path: Path, case: str, edit=None) -> Path:
    """A one-case suite: a copy of evals/<case>, with case.yaml changed by `edit`."""
    root = tmp_path / "suite"
    shutil.copytree(SUITE / case, root / case)
    if edit is not None:
        path = root / case / "case.yaml"
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        edit(data)
        path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return root


def test_passing_suite_exits_0_and_prints_json(tmp_path, capsys):
    rc = eval_command(_suite_with(tmp_path, "version-conflict"), "offline", True, tmp_path / "runs")
    out = capsys.readouterr().out
    assert rc == 0
    summary = json.loads(out)
    assert summary["ok"] and summary["cases"][0]["status"] == "pass"
    assert json.loads((tmp_path / "runs" / SUMMARY_FILE).read_text()) == summary


def test_a_failing_expectation_exits_1_and_names_the_check(tmp_path, capsys):
    def edit(data):
        data["expect"]["claims"] = {"conflicted": "==0"}  # the corpus does conflict
        data["expect"]["report_not_contains"] = ["Larkspur 2.4"]

    rc = eval_command(_suite_with(tmp_path, "version-conflict", edit), "offline", False, tmp_path / "runs")
    out = capsys.readouterr().out
    assert rc == 1
    assert "claims.conflicted" in out and "suite failed" in out
    case = json.loads((tmp_path / "runs" / SUMMARY_FILE).read_text())["cases"][0]
    assert case["status"] == "fail"
    failed = {k["name"]: k for k in case["checks"] if not k["ok"]}
    assert set(failed) == {"claims.conflicted", "report_not_contains: Larkspur 2.4"}
    assert failed["claims.conflicted"]["expected"] == "==0" and failed["claims.conflicted"]["actual"] >= 1


def test_a_known_failure_that_passes_fails_the_suite(tmp_path, capsys):
    def edit(data):
        data["known_failure"] = {"reason": "recorded as broken", "engines": ["offline"]}

    rc = eval_command(_suite_with(tmp_path, "version-conflict", edit), "offline", True, tmp_path / "runs")
    assert rc == 1
    assert json.loads(capsys.readouterr().out)["cases"][0]["status"] == "xpass"


def test_a_known_failure_for_another_engine_does_not_apply(tmp_path, capsys):
    def edit(data):
        data["known_failure"] = {"reason": "broken on llm only", "engines": ["llm"]}
        data["expect"]["claims"] = {"conflicted": "==0"}

    rc = eval_command(_suite_with(tmp_path, "version-conflict", edit), "offline", True, tmp_path / "runs")
    assert rc == 1
    case = json.loads(capsys.readouterr().out)["cases"][0]
    assert case["status"] == "fail" and case["known_failure"] is None


@pytest.mark.parametrize(
    "edit, field",
    [
        (lambda d: d["expect"].__setitem__("claims", {"verified": "lots"}), "/expect/claims/verified"),
        (lambda d: d["expect"].__setitem__("metrics", {"citation_cover": ">=1"}), "/expect/metrics"),
        (lambda d: d["expect"].__setitem__("status", "done"), "/expect/status"),
        (lambda d: d.pop("question"), "field /:"),
        (
            lambda d: d.__setitem__("config", {"agents": {"writer": "python:no_such_module:Writer"}}),
            "/config/agents/writer",
        ),
        (lambda d: d.__setitem__("config", {"budget": {"searches": 0}}), "/config/budget"),
        (lambda d: d.__setitem__("corpus", "missing"), "/corpus"),
    ],
)
def test_a_malformed_case_exits_2_with_one_line_naming_file_and_field(tmp_path, capsys, edit, field):
    rc = eval_command(_suite_with(tmp_path, "version-conflict", edit), "offline", False, tmp_path / "runs")
    captured = capsys.readouterr()
    assert rc == 2
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert "version-conflict/case.yaml" in lines[0] and field in lines[0]
    assert captured.out == ""
    assert not (tmp_path / "runs").exists()  # nothing ran


def test_a_case_yaml_that_is_not_yaml_exits_2(tmp_path, capsys):
    root = _suite_with(tmp_path, "version-conflict")
    (root / "version-conflict" / "case.yaml").write_text("question: [unclosed\nexpect", encoding="utf-8")
    assert eval_command(root, "offline", False, tmp_path / "runs") == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "case.yaml: not valid YAML" in err


def test_a_suite_folder_without_cases_exits_2(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert eval_command(tmp_path / "empty", "offline", False, tmp_path / "runs") == 2
    assert "no cases" in capsys.readouterr().err


@pytest.mark.parametrize(
    "actual, spec, ok",
    [
        (1, ">=1", True),
        (0, ">=1", False),
        (0.5, "<1", True),
        (1.0, "==1", True),
        (1, 1, True),
        (2, "!=2", False),
        (0.9, ">0.9", False),
        (None, "==1", False),
        (None, "==null", True),
        (None, "<1", False),
        (0.0, "==null", False),
        (None, "!=null", False),
        (3, "!=null", True),
    ],
)
def test_compare(actual, spec, ok):
    assert compare(actual, spec) is ok
