"""The parent graph on the offline engine: approvals, the bounded revise loop, budgets, resume, swapping."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import harness.engines.offline as offline
from fakes.workspaces import FIXTURE_QUESTION, normalized_artifacts
from harness.errors import UsageError
from harness.orchestrator.config import build_config
from harness.orchestrator.lifecycle import resume_run, start_run
from harness.workspace.validate import validate_workspace

TESTS = Path(__file__).resolve().parents[1]  # tests/: where `fakes` is importable from


def cfg(corpus, runs, **kw):
    kw.setdefault("yes", True)
    return build_config(FIXTURE_QUESTION, corpus=str(corpus), runs_dir=str(runs), **kw)


def load(root: Path, rel: str):
    return json.loads((root / rel).read_text(encoding="utf-8"))


def events(root: Path) -> list[dict]:
    return [json.loads(line) for line in (root / "trace.jsonl").read_text().splitlines()]


def cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "harness", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**__import__("os").environ, "PYTHONPATH": str(TESTS)},
    )


# ---- plan approval -----------------------------------------------------------------------


def test_plan_approved_by_a_human_is_recorded_and_bound(fixture_corpus, tmp_path):
    seen = []

    def approver(ws, payload):
        seen.append(payload)
        return {"decision": "approve", "by": "alice"}

    result = start_run(cfg(fixture_corpus, tmp_path, yes=False), approver=approver)
    assert result.status == "completed"
    assert seen[0]["gate"] == "plan" and len(seen[0]["plan_sha256"]) == 64
    plan = load(result.run_dir, "plan.json")
    assert plan["approval"]["by"] == "alice" and plan["approval"]["plan_sha256"] == seen[0]["plan_sha256"]
    decisions = load(result.run_dir, "run.json")["decisions"]
    assert [(d["gate"], d["decision"], d["by"]) for d in decisions] == [("plan", "approved", "alice")]


def test_plan_edited_by_a_human_is_revalidated_and_used(fixture_corpus, tmp_path):
    def approver(ws, payload):
        plan = json.loads((ws.root / "plan.json").read_text())
        plan["questions"] = [q for q in plan["questions"] if q["id"] != "Q3"]  # drop ghostlib
        return {"decision": "edit", "plan_text": json.dumps(plan), "by": "bob"}

    result = start_run(cfg(fixture_corpus, tmp_path, yes=False), approver=approver)
    assert result.status == "completed"
    run = load(result.run_dir, "run.json")
    assert "Q3" not in run["branches"]
    decision = run["decisions"][0]
    assert decision["decision"] == "edited" and '-      "id": "Q3"' in decision["diff"]
    assert load(result.run_dir, "plan.json")["approval"]["edited"] is True
    assert validate_workspace(result.run_dir) == []


def test_an_invalid_edit_is_refused_with_the_field_named(fixture_corpus, tmp_path):
    def approver(ws, payload):
        plan = json.loads((ws.root / "plan.json").read_text())
        plan["questions"][0]["kind"] = "essay"
        return {"decision": "edit", "plan_text": json.dumps(plan)}

    with pytest.raises(Exception, match=r"plan.json:/questions/0/kind"):
        start_run(cfg(fixture_corpus, tmp_path, yes=False), approver=approver)


def test_plan_rejected_with_feedback_is_refined_with_tags(fixture_corpus, tmp_path):
    answers = iter(
        [
            {"decision": "reject", "feedback": "Also cover licensing.", "by": "carol"},
            {"decision": "approve", "by": "carol"},
        ]
    )
    result = start_run(cfg(fixture_corpus, tmp_path, yes=False), approver=lambda ws, p: next(answers))
    assert result.status == "completed"
    plan = load(result.run_dir, "plan.json")
    assert plan["revision"] == 2
    new = [q for q in plan["questions"] if q["tag"] == "NEW"]
    assert len(new) == 1 and "licensing" in new[0]["text"]
    assert plan["refinement"]["feedback"] == "Also cover licensing."
    assert [d["decision"] for d in load(result.run_dir, "run.json")["decisions"]] == ["rejected", "approved"]
    planner_runs = [e for e in events(result.run_dir) if e["event"] == "delegation" and e["agent"] == "planner"]
    assert len(planner_runs) == 2


def test_plan_rejected_with_feedback_every_time_stops_at_the_plan_round_bound(fixture_corpus, tmp_path):
    from harness.orchestrator.graph import MAX_PLAN_ROUNDS

    result = start_run(
        cfg(fixture_corpus, tmp_path, yes=False),
        approver=lambda ws, p: {"decision": "reject", "feedback": "Narrower, please.", "by": "carol"},
    )
    assert result.status == "rejected" and result.exit_code == 3
    assert result.reason == f"the plan was rejected after {MAX_PLAN_ROUNDS} revisions"
    assert [d["decision"] for d in load(result.run_dir, "run.json")["decisions"]] == ["rejected"] * MAX_PLAN_ROUNDS
    planner_runs = [e for e in events(result.run_dir) if e["event"] == "delegation" and e["agent"] == "planner"]
    assert len(planner_runs) == MAX_PLAN_ROUNDS
    assert not (result.run_dir / "claims.json").exists()


def test_plan_rejected_without_feedback_ends_the_run(fixture_corpus, tmp_path):
    result = start_run(
        cfg(fixture_corpus, tmp_path, yes=False), approver=lambda ws, p: {"decision": "reject", "feedback": ""}
    )
    assert result.status == "rejected" and result.exit_code == 3
    assert not (result.run_dir / "claims.json").exists()


def test_paused_plan_is_approved_from_another_process_then_resumed(fixture_corpus, tmp_path):
    result = start_run(cfg(fixture_corpus, tmp_path, yes=False), approver=None)
    assert result.status == "awaiting_plan_approval" and result.exit_code == 3
    assert not list((result.run_dir / "source-cards").iterdir())
    r = cli("approve", str(result.run_dir), "--plan", "--by", "dana")
    assert r.returncode == 0, r.stderr
    r = cli("resume", str(result.run_dir), "--quiet")
    assert r.returncode == 0, r.stderr
    run = load(result.run_dir, "run.json")
    assert run["status"] == "completed" and run["decisions"][0]["by"] == "dana"
    assert validate_workspace(result.run_dir) == []


def test_final_sign_off_binds_to_the_draft_hash(fixture_corpus, tmp_path):
    result = start_run(cfg(fixture_corpus, tmp_path, require_final_approval=True), approver=None)
    assert result.status == "awaiting_final_approval"
    root = result.run_dir
    stale = cli("approve", str(root), "--final", "--version", "0" * 64)
    assert stale.returncode == 2 and "stale" in stale.stderr
    sha = __import__("hashlib").sha256((root / "drafts/draft-1.md").read_bytes()).hexdigest()
    ok = cli("approve", str(root), "--final", "--version", sha, "--by", "erin")
    assert ok.returncode == 0, ok.stderr
    assert cli("resume", str(root), "--quiet").returncode == 0
    run = load(root, "run.json")
    assert run["status"] == "completed" and run["final_approval"]["sha256"] == sha
    assert validate_workspace(root) == []
    draft = root / "drafts/draft-1.md"
    draft.write_text(draft.read_text() + "\nEdited after sign-off.\n")
    assert any(p.rule == "approval-binding" for p in validate_workspace(root))


def test_final_sign_off_in_process(fixture_corpus, tmp_path):
    def approver(ws, payload):
        if payload["gate"] == "final":
            return {"decision": "approve", "version": payload["sha256"], "by": "frank"}
        return {"decision": "approve"}

    result = start_run(cfg(fixture_corpus, tmp_path, yes=False, require_final_approval=True), approver=approver)
    assert result.status == "completed"
    assert load(result.run_dir, "run.json")["final_approval"]["by"] == "frank"


# ---- the revise loop ----------------------------------------------------------------------


@pytest.mark.parametrize("max_revisions", [0, 2])
def test_review_defects_drive_a_bounded_number_of_revisions(fixture_corpus, tmp_path, monkeypatch, max_revisions):
    monkeypatch.syspath_prepend(str(TESTS))
    result = start_run(
        cfg(
            fixture_corpus,
            tmp_path,
            max_revisions=max_revisions,
            agents=["writer=python:fakes.custom_agents:UncitedWriter"],
        )
    )
    assert result.status == "needs_human" and result.exit_code == 3
    assert "max_revisions" in result.reason
    root = result.run_dir
    assert len(list((root / "drafts").glob("draft-*.md"))) == max_revisions + 1
    reviews = sorted((root / "reviews").glob("review-*.json"))
    assert len(reviews) == max_revisions + 1
    for path in reviews:
        review = json.loads(path.read_text())
        assert review["verdict"] == "revise"
        assert any(d["code"] == "missing_citation" and d["route"] == "writer" for d in review["defects"])
    assert not (root / "final-report.md").exists()
    assert validate_workspace(root) == []
    writer = load(root, "run.json")["config"]["agents"]["writer"]
    assert writer == "python:fakes.custom_agents:UncitedWriter"


def test_custom_agent_without_constructor_arguments(fixture_corpus, tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(TESTS))
    result = start_run(cfg(fixture_corpus, tmp_path, agents=["researcher=python:fakes.custom_agents:NoArgAgent"]))
    run = load(result.run_dir, "run.json")
    assert {b["status"] for b in run["branches"].values()} == {"blocked"}
    assert run["config"]["engines"]["researcher"] == "custom"


@pytest.mark.parametrize(
    "value,message",
    [
        ("writer=python:nope.module:X", "cannot import nope.module"),
        ("writer=python:harness.errors:Missing", "has no Missing"),
        ("poet=offline", "unknown role 'poet'"),
        ("writer", "expected ROLE=VALUE"),
    ],
)
def test_bad_agent_flags_fail_with_one_line(fixture_corpus, tmp_path, value, message):
    with pytest.raises(UsageError, match=message):
        start_run(cfg(fixture_corpus, tmp_path, agents=[value]))
    assert not (tmp_path / "runs").exists() or not list(tmp_path.iterdir())


def test_swapped_spec_file_must_fill_the_role(fixture_corpus, tmp_path):
    spec = (TESTS.parent / "agents" / "analyst.md").read_text()
    (tmp_path / "my_writer.md").write_text(spec)
    with pytest.raises(UsageError, match=r"my_writer.md: front matter field /role is 'analyst'"):
        cfg(fixture_corpus, tmp_path, agents=[f"writer={tmp_path / 'my_writer.md'}"])
    (tmp_path / "broken.md").write_text(spec.replace('tools: ["read_file"', 'tools: ["shell"'))
    with pytest.raises(UsageError, match=r"broken.md: front matter field /tools/0"):
        cfg(fixture_corpus, tmp_path, agents=[f"analyst={tmp_path / 'broken.md'}"])


# ---- budgets ----------------------------------------------------------------------------


def test_too_small_budget_is_refused_before_anything_is_created(fixture_corpus, tmp_path):
    runs = tmp_path / "runs"
    with pytest.raises(UsageError, match="--budget-searches 0: too small for one pass"):
        start_run(cfg(fixture_corpus, runs, budget={"searches": 0}))
    assert not runs.exists() or not list(runs.iterdir())


def test_budget_exhaustion_stops_cleanly_without_exceeding_it(fixture_corpus, tmp_path):
    result = start_run(cfg(fixture_corpus, tmp_path, budget={"searches": 4}, concurrency=1))
    assert result.status == "budget_exhausted" and result.exit_code == 3
    assert "searches" in result.reason
    run = load(result.run_dir, "run.json")
    assert run["budget"]["spent"]["searches"] <= 4
    assert validate_workspace(result.run_dir) == []


# ---- resume after a crash at each stage -------------------------------------------------------


class Crash(BaseException):
    """Escapes every handler, like a kill."""


@pytest.mark.parametrize("role", ["planner", "researcher", "analyst", "writer", "reviewer", "finalize"])
def test_resume_after_a_crash_at_each_stage(fixture_corpus, tmp_path, monkeypatch, role):
    """A crash escaping every handler at each stage (in-process), then resume: artifacts equal an uninterrupted run's."""
    reference = start_run(cfg(fixture_corpus, tmp_path / "ref")).run_dir
    state = {"crashed": False}
    if role == "finalize":
        import harness.orchestrator.nodes as nodes

        real = nodes.render_report

        def crashing(*a, **k):
            if not state["crashed"]:
                state["crashed"] = True
                raise Crash()
            return real(*a, **k)

        monkeypatch.setattr(nodes, "render_report", crashing)
    else:
        base = offline.OFFLINE_AGENTS[role]

        class Crashing(base):
            def run(self, brief, ctx):
                result = base.run(self, brief, ctx)  # the step's writes land, then the process dies
                if not state["crashed"] and (role != "researcher" or brief.question_id == "Q2"):
                    state["crashed"] = True
                    raise Crash()
                return result

        monkeypatch.setitem(offline.OFFLINE_AGENTS, role, Crashing)
    with pytest.raises(Crash):
        start_run(cfg(fixture_corpus, tmp_path / "runs"))
    root = next((tmp_path / "runs").iterdir())
    result = resume_run(root)
    assert result.status == "completed", result.reason
    assert validate_workspace(root) == []
    assert any(e["event"] == "resume" for e in events(root))
    left, right = normalized_artifacts(reference), normalized_artifacts(root)
    assert sorted(left) == sorted(right)
    for rel in left:
        assert left[rel] == right[rel], rel


def test_resume_refuses_an_invalid_workspace(fixture_corpus, tmp_path):
    """A hand-corrupted workspace: `research resume` refuses in one line naming the file."""
    result = start_run(cfg(fixture_corpus, tmp_path, yes=False), approver=None)
    (result.run_dir / "plan.json").write_text("{}")
    r = cli("resume", str(result.run_dir))
    assert r.returncode == 2 and "refusing to resume over an invalid workspace: plan.json" in r.stderr


def test_resume_of_a_finished_run_changes_nothing(fixture_corpus, tmp_path):
    root = start_run(cfg(fixture_corpus, tmp_path)).run_dir
    before = (root / "trace.jsonl").read_text()
    assert resume_run(root).status == "completed"
    assert (root / "trace.jsonl").read_text() == before


# ---- the terminal approver and approve --plan FILE ------------------------------------------


def test_terminal_approver_edits_in_editor_and_rejects(fixture_corpus, tmp_path):
    from rich.console import Console

    from harness.surfaces.interactive import TerminalApprover

    editor = tmp_path / "editor.py"
    editor.write_text(
        "import json, sys\np = sys.argv[1]\nplan = json.load(open(p))\n"
        "plan['questions'] = [q for q in plan['questions'] if q['id'] != 'Q3']\n"
        "json.dump(plan, open(p, 'w'))\n"
    )
    answers = iter(["e"])
    approver = TerminalApprover(
        Console(file=open(tmp_path / "shown.txt", "w")),
        ask=lambda prompt: next(answers),
        editor=f"{sys.executable} {editor}",
    )
    result = start_run(cfg(fixture_corpus, tmp_path / "runs", yes=False), approver=approver)
    assert result.status == "completed"
    decision = load(result.run_dir, "run.json")["decisions"][0]
    assert decision["decision"] == "edited" and "Q3" in decision["diff"]
    assert "Q3" not in load(result.run_dir, "run.json")["branches"]
    assert "ghostlib" in (tmp_path / "shown.txt").read_text()  # the plan was shown before asking

    answers = iter(["x", "r", ""])  # an unknown key asks again; empty feedback stops the run
    approver = TerminalApprover(Console(file=open(tmp_path / "shown2.txt", "w")), ask=lambda prompt: next(answers))
    assert start_run(cfg(fixture_corpus, tmp_path / "runs2", yes=False), approver=approver).status == "rejected"


def test_approve_plan_with_an_edited_file_from_another_process(fixture_corpus, tmp_path):
    result = start_run(cfg(fixture_corpus, tmp_path, yes=False), approver=None)
    plan = load(result.run_dir, "plan.json")
    plan["questions"] = [q for q in plan["questions"] if q["id"] != "Q3"]
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(plan))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**plan, "revision": 0}))
    r = cli("approve", str(result.run_dir), "--plan", str(bad))
    assert r.returncode == 2 and "plan.json:/revision" in r.stderr
    r = cli("approve", str(result.run_dir), "--plan", str(edited), "--by", "gina")
    assert r.returncode == 0, r.stderr
    assert cli("resume", str(result.run_dir), "--quiet").returncode == 0
    run = load(result.run_dir, "run.json")
    assert run["status"] == "completed" and "Q3" not in run["branches"]
    assert run["decisions"][-1]["decision"] == "edited" and run["decisions"][-1]["by"] == "gina"


# ---- partial success and role budgets -----------------------------------------------------


def test_a_failed_critical_branch_ends_in_needs_human(fixture_corpus, tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(TESTS))
    result = start_run(
        cfg(fixture_corpus, tmp_path, agents=["researcher=python:fakes.custom_agents:FailingResearcher"])
    )
    assert result.status == "needs_human" and "Q1" in result.reason and "search backend is down" in result.reason
    run = load(result.run_dir, "run.json")
    assert run["branches"]["Q1"]["status"] == "failed" and run["branches"]["Q2"]["status"] == "completed"
    failed = [e for e in events(result.run_dir) if e["event"] == "delegation" and e["stop_reason"] == "failed"]
    assert failed and "RuntimeError" in " ".join(failed[0]["errors"])


def test_a_role_budget_ends_that_roles_steps_not_the_run(fixture_corpus, tmp_path):
    """Only the run's own budget stops a run: a spent role budget ends each of its steps with what it has."""
    (tmp_path / "research.yaml").write_text("role_budgets:\n  researcher:\n    searches: 2\n")
    result = start_run(
        build_config(
            FIXTURE_QUESTION,
            corpus=str(fixture_corpus),
            runs_dir=str(tmp_path / "runs"),
            yes=True,
            concurrency=1,
            config=tmp_path / "research.yaml",
        )
    )
    run = load(result.run_dir, "run.json")
    assert result.status != "budget_exhausted" and run["budget"]["roles"]["researcher"]["spent"]["searches"] <= 2
    cut = [b for b in run["branches"].values() if "researcher budget for searches is exhausted" in (b["reason"] or "")]
    assert cut and all(b["status"] == "blocked" for b in cut)  # recorded per branch, the run went on
    assert validate_workspace(result.run_dir) == []


def test_a_plan_rejected_from_another_process_goes_back_to_the_planner_on_resume(fixture_corpus, tmp_path):
    """`research approve --plan --reject FEEDBACK` then `research resume` (and `research serve`) refine the plan."""
    from harness.orchestrator.approvals import record_decision

    paused = start_run(cfg(fixture_corpus, tmp_path, yes=False))
    assert paused.status == "awaiting_plan_approval"
    assert record_decision(paused.run_dir, plan=True, reject="Also cover licensing.", by="carol") == "plan rejected"
    again = resume_run(paused.run_dir)
    plan = load(again.run_dir, "plan.json")
    assert again.status == "awaiting_plan_approval" and plan["revision"] == 2 and plan["approval"] is None
    assert [q["tag"] for q in plan["questions"]].count("NEW") == 1
    assert plan["refinement"]["feedback"] == "Also cover licensing."
    assert resume_run(again.run_dir).status == "awaiting_plan_approval"  # still waits: the rejection was answered
    record_decision(again.run_dir, plan=True, reject="", by="carol")  # no feedback: the run ends rejected
    assert resume_run(again.run_dir).status == "rejected"
    assert validate_workspace(again.run_dir) == []
