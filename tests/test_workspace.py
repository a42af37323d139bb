"""The workspace API: creation, guarded writes, confinement, atomicity and crash recovery."""

from __future__ import annotations

import json
import multiprocessing
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import harness.workspace as workspace_mod
from harness.errors import ArtifactInvalid, PathRefused, PermissionRefused, StorageError, WorkspaceError
from harness.policy import TOOLS
from harness.textnorm import sha256_bytes
from harness.validate import validate_workspace
from harness.workspace import Workspace

from conftest import CARD_ID, SOURCE_ID, make_card, make_plan, source_record


def _create(runs_dir: str) -> str:
    return Workspace.create(Path(runs_dir), "concurrent question").run_id


def test_create_makes_a_valid_workspace_from_the_template(runs_dir):
    ws = Workspace.create(runs_dir, "  What is asyncio?  ")
    assert ws.root.parent == runs_dir.resolve()
    assert ws.root.name == ws.run_id
    for folder in ("sources", "source-cards", "drafts", "reviews"):
        assert (ws.root / folder).is_dir()
    assert not list(ws.root.rglob(".gitkeep"))
    manifest = json.loads((ws.root / "run.json").read_text())
    assert manifest["question"] == "What is asyncio?"
    assert manifest["status"] == "created"
    assert "README.md" in manifest["artifacts"]
    assert validate_workspace(ws.root) == []


def test_empty_question_is_refused_and_nothing_is_left_behind(runs_dir):
    with pytest.raises(WorkspaceError, match="question"):
        Workspace.create(runs_dir, "   ")
    assert list(runs_dir.iterdir()) == []


def test_concurrent_creations_never_collide(runs_dir):
    with ThreadPoolExecutor(max_workers=16) as pool:
        ids = list(pool.map(lambda _: _create(str(runs_dir)), range(64)))
    with multiprocessing.get_context("spawn").Pool(4) as procs:
        ids += procs.map(_create, [str(runs_dir)] * 16)
    assert len(set(ids)) == 80
    assert sorted(p.name for p in runs_dir.iterdir()) == sorted(ids)
    assert ids[:64] != [] and sorted(ids) == sorted(ids, key=lambda i: i.split("-")[0] + i)


@pytest.mark.parametrize("bad", ["../escape.json", "/etc/passwd", "sources/../../escape.txt", "~/x.json",
                                 "C:/x.json", "sources\\x.txt", "", "sources/\x00.txt"])
def test_paths_outside_the_workspace_are_refused(runs_dir, bad):
    ws = Workspace.create(runs_dir, "q")
    with pytest.raises(PathRefused):
        ws.write(bad, "text", TOOLS)
    assert not (runs_dir / "escape.json").exists()
    assert not (runs_dir.parent / "escape.txt").exists()


def test_symlink_escaping_the_workspace_is_refused(runs_dir, tmp_path):
    ws = Workspace.create(runs_dir, "q")
    outside = tmp_path / "outside"
    outside.mkdir()
    (ws.root / "sources" / "src-aaaaaaaaaaaa.txt").symlink_to(outside / "target.txt")
    with pytest.raises(PathRefused, match="outside the workspace"):
        ws.write("sources/src-aaaaaaaaaaaa.txt", "hello", TOOLS)
    link_dir = ws.root / "source-cards" / "linked"
    link_dir.symlink_to(outside, target_is_directory=True)
    with pytest.raises(PathRefused):
        ws.write("source-cards/linked/x.json", {}, TOOLS)
    with pytest.raises(PathRefused):
        ws.read_text("sources/src-aaaaaaaaaaaa.txt", TOOLS)
    assert list(outside.iterdir()) == []


def test_a_role_may_write_only_its_declared_outputs(runs_dir, specs):
    ws = Workspace.create(runs_dir, "q")
    ws.write("plan.json", make_plan(), specs["planner"].policy)
    with pytest.raises(PermissionRefused, match="researcher.*may not write"):
        ws.write("claims.json", {"claims": []}, specs["researcher"].policy)
    with pytest.raises(PermissionRefused):
        ws.write("sources/src-0123456789ab.txt", "model-made source", specs["researcher"].policy)
    with pytest.raises(PermissionRefused):
        ws.write("final-report.md", "# report", specs["writer"].policy)
    assert not (ws.root / "claims.json").exists()


def test_reads_are_checked_against_the_role_globs(built_ws, specs):
    writer = specs["writer"].policy
    assert "C1" in built_ws.read_text("claims.json", writer)
    with pytest.raises(PermissionRefused, match="writer.*may not read"):
        built_ws.read_text(f"sources/{SOURCE_ID}.txt", writer)
    with pytest.raises(PermissionRefused):
        built_ws.read_text(".harness/run.lock", specs["reviewer"].policy)
    assert built_ws.list("sources/*", writer) == []
    assert f"sources/{SOURCE_ID}.txt" in built_ws.list("sources/*", specs["reviewer"].policy)


def test_invalid_content_never_lands_and_the_error_names_file_pointer_and_rule(built_ws, specs):
    before = built_ws.manifest["artifacts"]
    card = make_card()
    card["confidence"] = "certain"
    card["card_id"] = "q1-new"
    with pytest.raises(ArtifactInvalid) as info:
        built_ws.write("source-cards/q1-new.json", card, specs["researcher"].policy)
    problem = info.value.problems[0]
    assert (problem.file, problem.pointer, problem.rule) == ("source-cards/q1-new.json", "/confidence", "enum")
    assert "source-cards/q1-new.json:/confidence" in str(info.value)
    assert not (built_ws.root / "source-cards/q1-new.json").exists()
    with pytest.raises(ArtifactInvalid, match="not valid JSON"):
        built_ws.write("claims.json", "{not json", specs["analyst"].policy)
    assert built_ws.manifest["artifacts"] == before
    assert validate_workspace(built_ws.root) == []


def test_cross_file_checks_run_on_write(built_ws, specs):
    researcher = specs["researcher"].policy
    fabricated = make_card(quote="The remaining tasks keep running after a failure.")
    with pytest.raises(ArtifactInvalid, match="quote-in-source"):
        built_ws.write(f"source-cards/{CARD_ID}.json", fabricated, researcher)
    ghost = make_card()
    ghost["source_id"] = "src-ffffffffffff"
    with pytest.raises(ArtifactInvalid, match="source-exists"):
        built_ws.write(f"source-cards/{CARD_ID}.json", ghost, researcher)
    wrong_q = make_card()
    wrong_q["question_id"] = "Q9"
    with pytest.raises(ArtifactInvalid, match="question-exists"):
        built_ws.write(f"source-cards/{CARD_ID}.json", wrong_q, researcher)
    with pytest.raises(ArtifactInvalid, match="citation-resolves"):
        built_ws.write("drafts/draft-2.md", "A fact [@C7].\n", specs["writer"].policy)
    claims = {"claims": [{"claim_id": "C1", "statement": "x", "question_id": "Q1", "supporting_cards": ["nope"],
                          "contradicting_cards": [], "limitations": [], "status": "verified"}]}
    with pytest.raises(ArtifactInvalid, match="card-exists"):
        built_ws.write("claims.json", claims, specs["analyst"].policy)
    tampered = source_record()
    tampered["sha256"] = "0" * 64
    with pytest.raises(ArtifactInvalid, match="snapshot-hash"):
        built_ws.write(f"sources/{SOURCE_ID}.json", tampered, TOOLS)


def test_every_write_is_indexed_and_traced(built_ws):
    manifest = built_ws.manifest
    for rel in ("plan.json", f"sources/{SOURCE_ID}.txt", f"source-cards/{CARD_ID}.json", "claims.json",
                "drafts/draft-1.md", "reviews/review-1.json"):
        entry = manifest["artifacts"][rel]
        assert entry["sha256"] == sha256_bytes((built_ws.root / rel).read_bytes())
        assert entry["size"] == (built_ws.root / rel).stat().st_size
    assert manifest["artifacts"]["claims.json"]["writer"] == "analyst"
    assert manifest["artifacts"][f"sources/{SOURCE_ID}.json"]["writer"] == "tools"
    events = [json.loads(line) for line in (built_ws.root / "trace.jsonl").read_text().splitlines()]
    writes = [e["path"] for e in events if e["event"] == "write"]
    assert writes == ["plan.json", f"sources/{SOURCE_ID}.txt", f"sources/{SOURCE_ID}.json",
                      f"source-cards/{CARD_ID}.json", "claims.json", "drafts/draft-1.md", "reviews/review-1.json"]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))


def test_a_crash_before_the_rename_leaves_the_old_file_and_index(built_ws, specs, monkeypatch):
    path = built_ws.root / "claims.json"
    old_bytes = path.read_bytes()
    old_index = built_ws.manifest["artifacts"]

    def crash(*_a, **_k):
        raise OSError("simulated power cut")
    monkeypatch.setattr(workspace_mod, "commit_temp", crash)
    new = json.loads(old_bytes)
    new["claims"][0]["statement"] = "Changed."
    with pytest.raises(StorageError, match=r"^claims.json: cannot write to the workspace \(simulated power cut\)"):
        built_ws.write("claims.json", new, specs["analyst"].policy)
    assert path.read_bytes() == old_bytes
    assert built_ws.manifest["artifacts"] == old_index
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]
    reopened = Workspace.open(built_ws.root)
    assert reopened.manifest["artifacts"] == old_index
    assert validate_workspace(built_ws.root) == []


def test_a_crash_between_rename_and_index_is_completed_by_the_next_lock_holder(built_ws, specs, monkeypatch):
    def crash(self, record):
        raise KeyboardInterrupt("killed between rename and index update")
    monkeypatch.setattr(Workspace, "_index", crash)
    new = json.loads((built_ws.root / "claims.json").read_text())
    new["claims"][0]["statement"] = "A TaskGroup cancels the other tasks when one task fails."
    with pytest.raises(KeyboardInterrupt):
        built_ws.write("claims.json", new, specs["analyst"].policy)
    monkeypatch.undo()
    # validate already understands the journalled write; reopening completes the index.
    assert validate_workspace(built_ws.root) == []
    reopened = Workspace.open(built_ws.root)
    assert reopened.manifest["artifacts"]["claims.json"]["sha256"] != sha256_bytes((built_ws.root / "claims.json").read_bytes())
    reopened.acquire_run_lock()  # the lock holder completes the interrupted write
    assert reopened.manifest["artifacts"]["claims.json"]["sha256"] == sha256_bytes((built_ws.root / "claims.json").read_bytes())
    assert not list((built_ws.root / ".harness" / "journal").iterdir())
    assert validate_workspace(built_ws.root) == []


def test_a_torn_trace_line_is_dropped_by_the_next_lock_holder(built_ws):
    trace = built_ws.root / "trace.jsonl"
    lines = trace.read_text().splitlines()
    with trace.open("a") as fh:
        fh.write('{"seq": 99, "ts": "2026')
    assert any(p.rule == "json" for p in validate_workspace(built_ws.root))
    ws = Workspace.open(built_ws.root)
    ws.acquire_run_lock()
    assert trace.read_text().splitlines() == lines
    ws.trace("decision", agent="harness", decision="noop")
    assert validate_workspace(built_ws.root) == []


def test_open_refuses_a_folder_that_is_not_a_run(tmp_path):
    with pytest.raises(WorkspaceError, match="not a run workspace"):
        Workspace.open(tmp_path)
    (tmp_path / "run.json").write_text("{broken")
    with pytest.raises(WorkspaceError, match="run.json"):
        Workspace.open(tmp_path)


def test_run_lock_refuses_a_second_holder(built_ws):
    built_ws.acquire_run_lock()
    other = Workspace.open(built_ws.root)
    other_lock_error = None
    # flock is per open file description, so a second handle in this process conflicts like another process would.
    try:
        other.acquire_run_lock()
    except WorkspaceError as exc:
        other_lock_error = str(exc)
    built_ws.release_run_lock()
    assert other_lock_error and "another process" in other_lock_error
    other.acquire_run_lock()
    other.release_run_lock()
