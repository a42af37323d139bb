"""The public Python API (`import harness`): run, resume, approve, validate, open_run, and custom agent objects."""

from __future__ import annotations

import json

import pytest

import harness
from fakes.workspaces import FIXTURE_QUESTION

REVIEWED_BY = {"role": "reviewer", "engine": "custom", "model": None}


class PassEverything:
    """A Reviewer that passes every draft: the harness must still merge its own deterministic defects."""

    def __init__(self):
        self.calls = 0

    def run(self, brief: harness.Brief, ctx: harness.AgentContext) -> harness.AgentResult:
        self.calls += 1
        ctx.write(brief.outputs[0], {"verdict": "pass", "defects": [], "reviewed_by": REVIEWED_BY})
        return harness.AgentResult("completed", "pass")


class UncitedWriter:
    """A Writer whose draft states a fact without citing a claim."""

    def run(self, brief, ctx):
        ctx.write(brief.outputs[0], "# Draft\n\nfastjson is the fastest JSON parser ever written in any language.\n")
        return harness.AgentResult("completed", "wrote it")


def test_run_with_a_reviewer_object_completes_and_records_it(fixture_corpus, tmp_path):
    reviewer = PassEverything()
    result = harness.run(
        FIXTURE_QUESTION, corpus=fixture_corpus, runs_dir=tmp_path / "runs", agents={"reviewer": reviewer}
    )
    assert result.status == "completed" and result.exit_code == 0
    assert reviewer.calls >= 1
    run = harness.open_run(result.run_dir)
    review = run.read_json(run.reviews()[-1])
    assert review["reviewed_by"] == REVIEWED_BY
    config = run.run()["config"]
    assert config["engines"]["reviewer"] == "custom"
    assert config["agents"]["reviewer"] == f"python:{__name__}:PassEverything"
    assert harness.validate(result.run_dir) == []


def test_a_lenient_reviewer_object_cannot_pass_a_defective_draft(fixture_corpus, tmp_path):
    result = harness.run(
        FIXTURE_QUESTION,
        corpus=fixture_corpus,
        runs_dir=tmp_path / "runs",
        max_revisions=0,
        agents={"writer": UncitedWriter(), "reviewer": PassEverything()},
    )
    assert result.status == "needs_human"
    run = harness.open_run(result.run_dir)
    review = run.read_json(run.reviews()[-1])
    assert review["verdict"] == "revise"  # never laxer than the deterministic checks allow
    assert "missing_citation" in {d["code"] for d in review["defects"]}


def test_bad_agent_object_and_bad_config_fail_before_any_work(fixture_corpus, tmp_path):
    runs = tmp_path / "runs"
    with pytest.raises(harness.HarnessError, match=r"agents: the reviewer agent \(object\) has no run"):
        harness.run(FIXTURE_QUESTION, corpus=fixture_corpus, runs_dir=runs, agents={"reviewer": object()})
    with pytest.raises(harness.HarnessError, match="config: field /max_revisions"):
        harness.run(FIXTURE_QUESTION, corpus=fixture_corpus, runs_dir=runs, config={"max_revisions": "two"})
    assert not runs.exists() or not any(runs.iterdir())


def test_pause_approve_and_resume_from_python(fixture_corpus, tmp_path):
    paused = harness.run(FIXTURE_QUESTION, corpus=fixture_corpus, runs_dir=tmp_path / "runs", yes=False)
    assert paused.status == "awaiting_plan_approval" and paused.exit_code == 3
    assert harness.approve(paused.run_dir, plan=True, by="tester").startswith("plan approved (sha256 ")
    done = harness.resume(paused.run_dir)
    assert done.status == "completed"
    decisions = json.loads((paused.run_dir / "run.json").read_text())["decisions"]
    assert [(d["gate"], d["decision"], d["by"]) for d in decisions] == [("plan", "approved", "tester")]


def test_open_run_refuses_a_folder_that_is_not_a_run(tmp_path):
    with pytest.raises(harness.HarnessError, match="not a run workspace"):
        harness.open_run(tmp_path)


def test_unknown_public_name_is_an_attribute_error():
    with pytest.raises(AttributeError):
        harness.no_such_thing  # noqa: B018


def test_the_readme_example_runs_as_written(tmp_path):
    """The README's Python API example: copied out of the README and run in a fresh process."""
    import os
    import re
    import subprocess
    import sys
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Python API") :]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert code.count("\n") <= 14  # short enough to read at a glance
    r = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": ""},
    )
    assert r.returncode == 0, r.stderr
    status, reviews = r.stdout.split(" ", 1)
    assert status == "completed" and "reviews/review-1.json" in reviews


def test_run_takes_concurrency_and_checkpoint_db_as_the_cli_does(fixture_corpus, tmp_path):
    runs = tmp_path / "runs"
    with pytest.raises(harness.HarnessError, match=r"^--checkpoint-db mysql://\S+: expected a postgresql://"):
        harness.run(FIXTURE_QUESTION, corpus=fixture_corpus, runs_dir=runs, checkpoint_db="mysql://db.invalid/x")
    with pytest.raises(harness.HarnessError, match="--concurrency 0: must be a whole number from 1 to 64"):
        harness.run(FIXTURE_QUESTION, corpus=fixture_corpus, runs_dir=runs, concurrency=0)
    assert not runs.exists() or not any(runs.iterdir())  # refused before any work
    done = harness.run(FIXTURE_QUESTION, corpus=fixture_corpus, runs_dir=runs, concurrency=1)
    assert done.status == "completed"
    assert json.loads((done.run_dir / "run.json").read_text())["config"]["concurrency"] == 1


def test_resume_raises_a_spent_budget_from_python(fixture_corpus, tmp_path):
    stopped = harness.run(FIXTURE_QUESTION, corpus=fixture_corpus, runs_dir=tmp_path / "runs", budget={"searches": 1})
    assert stopped.status == "budget_exhausted", stopped.reason
    assert harness.resume(stopped.run_dir).status == "budget_exhausted"  # no raise: it stays where it is
    done = harness.resume(stopped.run_dir, budget={"searches": 50})
    assert done.status == "completed", done.reason
    assert json.loads((done.run_dir / "run.json").read_text())["budget"]["limits"]["searches"] == 50


def test_run_takes_the_web_language_and_endpoint_flags_as_the_cli_does(fixture_corpus, tmp_path):
    runs = tmp_path / "runs"
    with pytest.raises(harness.HarnessError, match=r"^--search: the web is off for this run \(add --web\)"):
        harness.run(FIXTURE_QUESTION, corpus=fixture_corpus, runs_dir=runs, search="searxng")
    with pytest.raises(harness.HarnessError, match="--model-base-url"):
        harness.run(FIXTURE_QUESTION, corpus=fixture_corpus, runs_dir=runs, engine="llm", model_base_url="not a url")
    assert not runs.exists() or not any(runs.iterdir())  # refused before any work
    done = harness.run(FIXTURE_QUESTION, corpus=fixture_corpus, runs_dir=runs, language="en-GB")
    assert done.status == "completed", done.reason
    assert json.loads((done.run_dir / "run.json").read_text())["config"]["language"] == "en-GB"


def test_a_model_endpoint_for_a_run_without_llm_roles_is_refused(fixture_corpus, tmp_path):
    runs = tmp_path / "runs"
    with pytest.raises(harness.HarnessError, match=r"^--model-base-url http://127\.0\.0\.1:9/v1: no role .*llm engine"):
        harness.run(FIXTURE_QUESTION, corpus=fixture_corpus, runs_dir=runs, model_base_url="http://127.0.0.1:9/v1")
    assert not runs.exists() or not any(runs.iterdir())
