"""`research validate` and `research inspect` on clean and tampered workspaces."""

from __future__ import annotations

import json
import subprocess
import sys

from fakes.workspaces import CARD_ID, SOURCE_ID, load
from harness.contract.formats import sha256_text


def research(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "harness", *args], capture_output=True, text=True, cwd=cwd, timeout=120
    )


def test_clean_workspace_validates(built_ws):
    r = research("validate", str(built_ws.root))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "valid" in r.stdout


def _problems(root):
    r = research("validate", str(root), "--json")
    assert r.returncode == 1, r.stdout + r.stderr
    report = json.loads(r.stdout)
    assert report["ok"] is False
    return report["problems"]


def test_fabricated_quote_is_reported(built_ws):
    card_path = built_ws.root / f"source-cards/{CARD_ID}.json"
    card = load(built_ws, f"source-cards/{CARD_ID}.json")
    card["quote"] = "The remaining tasks keep running after a failure."
    card_path.write_text(json.dumps(card, indent=2))
    problems = _problems(built_ws.root)
    assert {"file": f"source-cards/{CARD_ID}.json", "pointer": "/quote", "rule": "quote-in-source"} in [
        {k: p[k] for k in ("file", "pointer", "rule")} for p in problems
    ]
    r = research("validate", str(built_ws.root))
    assert f"source-cards/{CARD_ID}.json:/quote:" in r.stdout and "[quote-in-source]" in r.stdout


def test_dangling_citation_is_reported(built_ws):
    draft = built_ws.root / "drafts/draft-1.md"
    draft.write_text(draft.read_text() + "\nAnother fact [@C9].\n")
    problems = _problems(built_ws.root)
    rules = {(p["file"], p["rule"]) for p in problems}
    assert ("drafts/draft-1.md", "citation-resolves") in rules
    line = [p for p in problems if p["rule"] == "citation-resolves"][0]["pointer"]
    assert line == "line 5"


def test_tampered_source_text_is_reported(built_ws):
    text = built_ws.root / f"sources/{SOURCE_ID}.txt"
    text.write_text(text.read_text().replace("cancelled", "ignored"))
    rules = {(p["file"], p["rule"]) for p in _problems(built_ws.root)}
    assert (f"sources/{SOURCE_ID}.json", "snapshot-hash") in rules
    assert (f"source-cards/{CARD_ID}.json", "snapshot-hash") in rules


def test_review_bound_to_the_wrong_draft_is_reported(built_ws):
    review = load(built_ws, "reviews/review-1.json")
    review["draft_sha256"] = sha256_text("some other draft")
    (built_ws.root / "reviews/review-1.json").write_text(json.dumps(review))
    rules = {(p["file"], p["pointer"], p["rule"]) for p in _problems(built_ws.root)}
    assert ("reviews/review-1.json", "/draft_sha256", "review-binding") in rules


def test_edited_draft_breaks_its_review_binding(built_ws):
    draft = built_ws.root / "drafts/draft-1.md"
    draft.write_text(draft.read_text().replace("remaining", "other"))
    rules = {(p["file"], p["rule"]) for p in _problems(built_ws.root)}
    assert ("reviews/review-1.json", "review-binding") in rules
    assert ("drafts/draft-1.md", "artifact-index") in rules


def test_schema_violation_names_pointer_and_rule(built_ws):
    claims = load(built_ws, "claims.json")
    claims["claims"][0]["status"] = "probably"
    (built_ws.root / "claims.json").write_text(json.dumps(claims))
    problems = _problems(built_ws.root)
    assert {"file": "claims.json", "pointer": "/claims/0/status", "rule": "enum"} in [
        {k: p[k] for k in ("file", "pointer", "rule")} for p in problems
    ]


def test_unexpected_and_missing_files_are_reported(built_ws):
    built_ws.flush()  # as a finished run leaves it: every index entry in run.json
    (built_ws.root / "source-cards" / "NOTES.txt").write_text("stray")
    (built_ws.root / "claims.json").unlink()
    problems = _problems(built_ws.root)
    rules = {(p["file"], p["rule"]) for p in problems}
    assert ("source-cards/NOTES.txt", "artifact-path") in rules
    assert ("run.json", "artifact-exists") in rules
    assert ("drafts/draft-1.md", "citation-resolves") in rules


def test_a_journalled_write_whose_file_is_gone_is_reported(built_ws):
    """Mid-run, a write's index entry may still be only in its journal intent: a missing file is reported all the same."""
    assert "claims.json" not in json.loads((built_ws.root / "run.json").read_text())["artifacts"]
    assert research("validate", str(built_ws.root)).returncode == 0
    (built_ws.root / "claims.json").unlink()
    rules = {(p["file"], p["rule"]) for p in _problems(built_ws.root)}
    assert ("claims.json", "artifact-exists") in rules


def test_an_approval_claimed_without_a_decision_is_reported(built_ws):
    from fakes.workspaces import approve, make_plan
    from harness.contract.policy import HARNESS

    built_ws.write("plan.json", approve(make_plan()), HARNESS)  # approval record, but no decision in run.json
    rules = {(p["file"], p["rule"]) for p in _problems(built_ws.root)}
    assert ("run.json", "approval-recorded") in rules


def test_plan_edited_after_approval_is_reported(built_ws, specs):
    from harness.orchestrator.approvals import decide_plan

    decide_plan(built_ws, "approved", "tester")
    assert research("validate", str(built_ws.root)).returncode == 0
    plan = load(built_ws, "plan.json")
    plan["questions"][0]["text"] = "Something the human never approved."
    (built_ws.root / "plan.json").write_text(json.dumps(plan))
    rules = {(p["file"], p["rule"]) for p in _problems(built_ws.root)}
    assert ("plan.json", "approval-binding") in rules


def test_validate_usage_errors_exit_2(tmp_path):
    r = research("validate", str(tmp_path / "nope"))
    assert r.returncode == 2
    assert "RUN_DIR" in r.stderr or "no such run folder" in r.stderr
    r = research("validate", str(tmp_path))
    assert r.returncode == 2 and "not a run workspace" in r.stderr


def test_inspect_summarizes_the_run(built_ws):
    r = research("inspect", str(built_ws.root), "--json")
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)
    assert s["run_id"] == built_ws.run_id
    assert [q["id"] for q in s["plan"]["questions"]] == ["Q1", "Q2"]
    assert s["sources"]["total"] == 1 and s["sources"]["primary"] == 1
    assert s["cards"] == 1
    assert s["claims"]["verified"] == 1 and s["claims"]["total"] == 1
    assert s["reviews"][0]["verdict"] == "pass"
    text = research("inspect", str(built_ws.root))
    assert text.returncode == 0
    assert "claims: 1 (verified 1" in text.stdout and "reviews/review-1.json on drafts/draft-1.md: pass" in text.stdout
    # the deliverable question is shown as the deliverable, not as a numbered research question
    assert "deliverable: Answer the question from the evidence." in text.stdout
    table = text.stdout.split("deliverable:", 1)[0]
    assert "Q1" in table and "Q2" not in table and "Answer the question from the evidence" not in table
