"""`research ask`: a follow-up run begins with copies of its parent's sources and cards, plans only
what is new, cites old and new evidence, and validates on its own (also once the parent is gone).
The viewer shows the parent of a run and its follow-ups."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fakes.workspaces import FIXTURE_QUESTION, delegations, write_fixture_corpus
from harness.errors import UsageError
from harness.orchestrator.config import build_config
from harness.orchestrator.followup import followup_config
from harness.orchestrator.lifecycle import start_run
from harness.surfaces.viewer import render_viewer
from harness.workspace.trace import read_events
from harness.workspace.validate import validate_workspace

FOLLOW_UP = "Which fastjson release is current and what does slowxml validate?"


def _json(path: Path):
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture
def parent(tmp_path: Path) -> Path:
    corpus = write_fixture_corpus(tmp_path / "corpus")
    result = start_run(build_config(FIXTURE_QUESTION, corpus=str(corpus), runs_dir=str(tmp_path / "runs"), yes=True))
    assert result.status == "completed", result.reason
    return result.run_dir


def test_a_follow_up_reuses_its_parents_cards_and_validates_on_its_own(parent: Path):
    result = start_run(followup_config(parent, FOLLOW_UP, yes=True), parent=parent)
    assert result.status == "completed", result.reason
    child = result.run_dir
    assert child.parent == parent.parent
    manifest = _json(child / "run.json")
    parent_plan = _json(parent / "plan.json")
    assert manifest["parent"]["run_id"] == _json(parent / "run.json")["run_id"]

    # the plan keeps the parent's research questions (ids and texts) and adds the follow-up's own
    kept = [(q["id"], q["text"]) for q in parent_plan["questions"] if q["kind"] == "research"]
    plan = _json(child / "plan.json")
    research = [(q["id"], q["text"]) for q in plan["questions"] if q["kind"] == "research"]
    assert research[: len(kept)] == kept and any(text == FOLLOW_UP for _, text in research[len(kept) :])

    # every source and the cards of the answered questions are copies, byte for byte
    for src in (parent / "sources").iterdir():
        assert (child / "sources" / src.name).read_bytes() == src.read_bytes()
    parent_cards = {p.name: p.read_bytes() for p in (parent / "source-cards").glob("*.json")}
    assert parent_cards
    for name, data in parent_cards.items():
        assert (child / "source-cards" / name).read_bytes() == data
    carried = next(e for e in read_events(child) if e.get("decision") == "followup_cards_carried")
    researched = {e.get("question_id") for e in delegations(child, "researcher")}
    assert researched and None not in researched  # the follow-up's own question was researched
    assert not set(carried["detail"]["questions"]) & researched  # answered questions are not researched again

    # its report cites evidence from the parent's cards, resolving inside the follow-up's folder
    report = (child / "final-report.md").read_text(encoding="utf-8")
    assert any(f"source-cards/{name}" in report for name in parent_cards)
    assert validate_workspace(child) == []

    # the viewer links the two runs
    assert f"../{manifest['parent']['run_id']}/index.html" in render_viewer(child)
    assert f"../{manifest['run_id']}/index.html" in render_viewer(parent)

    shutil.rmtree(parent)
    assert validate_workspace(child) == []


def test_a_parent_that_does_not_validate_is_refused_and_nothing_is_created(parent: Path):
    snapshot = next((parent / "sources").glob("*.txt"))
    snapshot.write_text(snapshot.read_text(encoding="utf-8") + "edited\n", encoding="utf-8")
    before = sorted(p.name for p in parent.parent.iterdir())
    with pytest.raises(UsageError, match="parent run does not validate"):
        start_run(followup_config(parent, FOLLOW_UP, yes=True), parent=parent)
    assert sorted(p.name for p in parent.parent.iterdir()) == before


def test_research_ask_on_the_command_line(parent: Path):
    done = subprocess.run(
        [sys.executable, "-m", "harness.surfaces.cli", "ask", str(parent), FOLLOW_UP, "--yes", "--quiet"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    child = Path(done.stdout.strip().splitlines()[-1].split("workspace: ")[-1])
    assert _json(child / "run.json")["parent"]["path"] == parent.name  # relative to the runs folder


def test_a_copied_pair_of_folders_still_finds_and_checks_its_parent(parent: Path, tmp_path: Path):
    from harness.contract.formats import sha256_bytes

    child = start_run(followup_config(parent, FOLLOW_UP, yes=True), parent=parent).run_dir
    link = _json(child / "run.json")["parent"]
    assert link["path"] == parent.name and not Path(link["path"]).is_absolute()
    assert link["report_sha256"] == sha256_bytes((parent / "final-report.md").read_bytes())

    elsewhere = tmp_path / "shared" / "runs"
    elsewhere.mkdir(parents=True)
    copied_parent = Path(shutil.copytree(parent, elsewhere / parent.name))
    copied_child = Path(shutil.copytree(child, elsewhere / child.name))
    shutil.rmtree(parent.parent)  # nothing points back to where they were made
    assert validate_workspace(copied_child) == []
    assert f"../{link['run_id']}/index.html" in render_viewer(copied_child)

    report = copied_parent / "final-report.md"  # a parent found at its path must be the one followed
    report.write_text(report.read_text(encoding="utf-8") + "\nedited\n", encoding="utf-8")
    problems = validate_workspace(copied_child)
    assert [(p.file, p.pointer, p.rule) for p in problems] == [("run.json", "/parent/report_sha256", "parent")]


def test_a_follow_up_answers_the_new_question_first(parent: Path):
    from harness.contract.citations import parse_citations

    child = start_run(followup_config(parent, FOLLOW_UP, yes=True), parent=parent).run_dir
    run_id, parent_id = _json(child / "run.json")["run_id"], _json(parent / "run.json")["run_id"]
    plan = _json(child / "plan.json")
    new = next(q for q in plan["questions"] if q["kind"] == "research" and q["text"] == FOLLOW_UP)
    deliverable = next(q for q in plan["questions"] if q["kind"] == "deliverable")
    assert new["id"] != "Q1" and deliverable["text"].endswith(f"answer {new['id']}.")  # not the parent's Q1

    claims = {c["claim_id"]: c for c in _json(child / "claims.json")["claims"]}

    def extracted_by(claim_id: str) -> set[str]:
        return {_json(child / "source-cards" / f"{k}.json")["run_id"] for k in claims[claim_id]["supporting_cards"]}

    draft = sorted((child / "drafts").glob("draft-*.md"))[-1].read_text(encoding="utf-8")
    summary = draft.split("## Summary", 1)[1].split("\n## ", 1)[0]
    cited = [k for line in summary.splitlines() for c in parse_citations(line) for k in c.keys]
    assert cited and extracted_by(cited[0]) == {run_id}  # the Summary opens with the new evidence
    assert all(extracted_by(k) == {run_id} for k in cited)  # the parent's answer is not re-cited there
    body = draft.split("\n## ", 2)[-1]
    assert f"*Carried over from run {parent_id}, which this run follows up.*" in draft
    assert any(
        extracted_by(k) == {parent_id} for line in body.splitlines() for c in parse_citations(line) for k in c.keys
    )
