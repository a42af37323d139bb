"""The offline engine end to end: the main job on a fresh machine, with no key and no network."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from fakes.workspaces import FIXTURE_QUESTION, fixture_run_argv, normalized_artifacts
from harness.orchestrator.config import build_config
from harness.orchestrator.lifecycle import start_run
from harness.workspace.validate import validate_workspace


def run_offline(corpus: Path, runs: Path, question: str = FIXTURE_QUESTION, **kw):
    cfg = build_config(question, corpus=str(corpus), runs_dir=str(runs), yes=True, **kw)
    assert cfg.all_offline
    return start_run(cfg)


def load(root: Path, rel: str):
    return json.loads((root / rel).read_text(encoding="utf-8"))


@pytest.fixture
def completed(fixture_corpus, tmp_path):
    result = run_offline(fixture_corpus, tmp_path / "runs")
    assert result.status == "completed", result.reason
    return result.run_dir


def test_full_offline_run_produces_a_complete_valid_workspace(completed):
    root = completed
    for rel in (
        "plan.json",
        "claims.json",
        "drafts/draft-1.md",
        "reviews/review-1.json",
        "final-report.md",
        "metrics.json",
        "trace.jsonl",
    ):
        assert (root / rel).is_file(), rel
    assert list((root / "sources").glob("src-*.txt")) and list((root / "source-cards").glob("*.json"))
    assert validate_workspace(root) == []
    plan = load(root, "plan.json")
    assert [q["kind"] for q in plan["questions"]] == ["research"] * 3 + ["deliverable"]
    assert plan["approval"]["by"] == "auto (--yes)"
    run = load(root, "run.json")
    assert run["status"] == "completed" and run["final_report"] == "final-report.md"
    assert set(run["config"]["engines"].values()) == {"offline"}
    events = [json.loads(line) for line in (root / "trace.jsonl").read_text().splitlines()]
    roles = [e["agent"] for e in events if e["event"] == "delegation"]
    assert roles.count("planner") == 1 and roles.count("researcher") == 3
    assert {"analyst", "writer", "reviewer"} <= set(roles)


def test_every_citation_of_the_final_report_resolves_to_cards_and_sources(completed):
    report = (completed / "final-report.md").read_text()
    claims = {c["claim_id"]: c for c in load(completed, "claims.json")["claims"]}
    links = re.findall(r"\[(C\d+)[^\]]*\]\((source-cards/[^)]+\.json)\)", report)
    assert links
    for claim_id, card_path in links:
        assert claims[claim_id]["status"] not in ("rejected", "unsupported")
        card = load(completed, card_path)
        assert card["card_id"] in claims[claim_id]["supporting_cards"] + claims[claim_id]["contradicting_cards"]
        snapshot = (completed / f"sources/{card['source_id']}.txt").read_text()
        assert " ".join(snapshot[card["span"]["start"] : card["span"]["end"]].split()) == " ".join(
            card["quote"].split()
        )
    assert "[@" not in report
    for sid in set(re.findall(r"\(sources/(src-[0-9a-f]{12})\.json\)", report)):
        assert (completed / f"sources/{sid}.json").is_file()


def test_question_without_evidence_is_a_blocked_branch_named_in_limitations(completed):
    run = load(completed, "run.json")
    assert run["branches"]["Q3"]["status"] == "blocked"
    assert "no_evidence" in run["branches"]["Q3"]["reason"]
    report = (completed / "final-report.md").read_text()
    limitations = report.split("## Limitations", 1)[1]
    assert "Q3" in limitations and "ghostlib" in limitations and "blocked" in limitations


def test_disagreeing_versions_make_a_conflicted_claim_shown_with_both_sides(completed):
    claims = load(completed, "claims.json")["claims"]
    conflicted = [c for c in claims if c["status"] == "conflicted"]
    assert len(conflicted) == 1
    claim = conflicted[0]
    quotes = {
        load(completed, f"source-cards/{cid}.json")["quote"]
        for cid in claim["supporting_cards"] + claim["contradicting_cards"]
    }
    assert any("2.4" in q for q in quotes) and any("3.0" in q for q in quotes)
    draft = (completed / "drafts/draft-1.md").read_text()
    line = next(line for line in draft.splitlines() if f"[@{claim['claim_id']}]" in line)
    assert "disagree" in line and "2.4" in line and "3.0" in line
    comparison = draft.split("| Criterion |", 1)[1].split("\n## ", 1)[0]  # the comparison table and its notes
    assert f"@{claim['claim_id']}]" not in comparison  # never used in the comparison
    metrics = load(completed, "metrics.json")
    assert metrics["ratios"]["conflict_disclosure_rate"]["value"] == 1.0
    assert metrics["ratios"]["citation_coverage"]["value"] == 1.0


def test_same_question_and_corpus_give_identical_artifacts(fixture_corpus, tmp_path):
    a = run_offline(fixture_corpus, tmp_path / "a", concurrency=1)
    b = run_offline(fixture_corpus, tmp_path / "b", concurrency=3)
    assert a.run_dir.name != b.run_dir.name
    left, right = normalized_artifacts(a.run_dir), normalized_artifacts(b.run_dir)
    assert sorted(left) == sorted(right)
    for rel in left:
        assert left[rel] == right[rel], rel


def test_main_command_prints_the_offline_notice_and_the_report_path(fixture_corpus, tmp_path):
    env_cmd = fixture_run_argv(fixture_corpus, tmp_path / "runs")
    r = subprocess.run(env_cmd, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert (
        r.stderr.splitlines()[0]
        == "research: no model configured and no GOOGLE_API_KEY: every role runs on the offline engine."
    )
    report = re.search(r"final report: (\S+)", r.stdout).group(1)
    assert Path(report).is_file()
    check = subprocess.run(
        [sys.executable, "-m", "harness", "validate", str(Path(report).parent)], capture_output=True, text=True
    )
    assert check.returncode == 0, check.stdout


def test_built_in_python_docs_corpus_runs_offline(tmp_path):
    result = run_offline(
        "python-docs",
        tmp_path / "runs",
        question="How do asyncio.TaskGroup and asyncio.gather differ in error handling and cancellation?",
    )
    assert result.status == "completed", result.reason
    assert validate_workspace(result.run_dir) == []
    sources = [load(result.run_dir, f"sources/{p.name}") for p in (result.run_dir / "sources").glob("*.json")]
    assert any(s["path"] == "stdlib/asyncio.tasks" and s["corpus"] == "python-docs" for s in sources)
    claims = load(result.run_dir, "claims.json")["claims"]
    assert any("gather" in c["statement"] for c in claims if c["status"] in ("verified", "verified_with_limit"))
