"""The workspace API: creation, guarded writes, confinement, atomicity and crash recovery."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import harness.workspace.store as workspace_mod
from fakes.workspaces import CARD_ID, SOURCE_ID, make_card, make_plan, source_record
from harness.contract.formats import sha256_bytes
from harness.contract.globs import matches
from harness.contract.policy import HARNESS, TOOLS
from harness.errors import ArtifactInvalid, PathRefused, PermissionRefused, StorageError, WorkspaceError
from harness.workspace.atomic import atomic_write
from harness.workspace.manifest import ManifestEncoder, dump_manifest
from harness.workspace.store import Workspace
from harness.workspace.validate import validate_workspace


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


@pytest.mark.parametrize(
    "bad",
    [
        "../escape.json",
        "/etc/passwd",
        "sources/../../escape.txt",
        "~/x.json",
        "C:/x.json",
        "sources\\x.txt",
        "",
        "sources/\x00.txt",
    ],
)
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
    claims = {
        "claims": [
            {
                "claim_id": "C1",
                "statement": "x",
                "question_id": "Q1",
                "supporting_cards": ["nope"],
                "contradicting_cards": [],
                "limitations": [],
                "status": "verified",
            }
        ]
    }
    with pytest.raises(ArtifactInvalid, match="card-exists"):
        built_ws.write("claims.json", claims, specs["analyst"].policy)
    tampered = source_record()
    tampered["sha256"] = "0" * 64
    with pytest.raises(ArtifactInvalid, match="snapshot-hash"):
        built_ws.write(f"sources/{SOURCE_ID}.json", tampered, TOOLS)


def test_every_write_is_indexed_and_traced(built_ws):
    manifest = built_ws.manifest
    for rel in (
        "plan.json",
        f"sources/{SOURCE_ID}.txt",
        f"source-cards/{CARD_ID}.json",
        "claims.json",
        "drafts/draft-1.md",
        "reviews/review-1.json",
    ):
        entry = manifest["artifacts"][rel]
        assert entry["sha256"] == sha256_bytes((built_ws.root / rel).read_bytes())
        assert entry["size"] == (built_ws.root / rel).stat().st_size
    assert manifest["artifacts"]["claims.json"]["writer"] == "analyst"
    assert manifest["artifacts"][f"sources/{SOURCE_ID}.json"]["writer"] == "tools"
    events = [json.loads(line) for line in (built_ws.root / "trace.jsonl").read_text().splitlines()]
    writes = [e["path"] for e in events if e["event"] == "write"]
    assert writes == [
        "plan.json",
        f"sources/{SOURCE_ID}.txt",
        f"sources/{SOURCE_ID}.json",
        f"source-cards/{CARD_ID}.json",
        "claims.json",
        "drafts/draft-1.md",
        "reviews/review-1.json",
    ]
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

    monkeypatch.setattr(Workspace, "index", crash)
    new = json.loads((built_ws.root / "claims.json").read_text())
    new["claims"][0]["statement"] = "A TaskGroup cancels the other tasks when one task fails."
    with pytest.raises(KeyboardInterrupt):
        built_ws.write("claims.json", new, specs["analyst"].policy)
    monkeypatch.undo()
    # validate already understands the journalled write; reopening completes the index.
    assert validate_workspace(built_ws.root) == []
    reopened = Workspace.open(built_ws.root)
    assert reopened.manifest["artifacts"]["claims.json"]["sha256"] != sha256_bytes(
        (built_ws.root / "claims.json").read_bytes()
    )
    reopened.acquire_run_lock()  # the lock holder completes the interrupted write
    assert reopened.manifest["artifacts"]["claims.json"]["sha256"] == sha256_bytes(
        (built_ws.root / "claims.json").read_bytes()
    )
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


# ---- run.json layout, and index updates made durable lazily ------------------------------------


def _intents(ws: Workspace) -> list[dict]:
    journal = ws.root / ".harness" / "journal"
    return [json.loads(p.read_text()) for p in journal.glob("*.json")] if journal.is_dir() else []


def _count_fsyncs(monkeypatch) -> list[int]:
    calls = [0]
    real = os.fsync

    def counting(fd):
        calls[0] += 1
        real(fd)

    monkeypatch.setattr(os, "fsync", counting)
    return calls


def test_run_json_has_one_line_per_field_and_per_artifact(built_ws):
    built_ws.flush()
    text = (built_ws.root / "run.json").read_text(encoding="utf-8")
    manifest = built_ws.manifest
    assert json.loads(text) == manifest
    lines = text.splitlines()
    index = manifest["artifacts"]
    # "{", one line per field, the index's entries and its closing brace, "}"
    assert len(lines) == 1 + len(manifest) + len(index) + 1 + 1
    entry_lines = [line for line in lines if line.startswith("    ")]
    assert len(entry_lines) == len(index)
    for line, (rel, entry) in zip(entry_lines, index.items()):
        assert json.loads("{" + line.rstrip(",") + "}") == {rel: entry}
    assert lines[1] == '  "schema_version": 1,'
    assert (built_ws.root / "run.json").read_text(encoding="utf-8") == dump_manifest(manifest)


def _assert_one_line_per_entry(text: str, manifest: dict) -> None:
    assert json.loads(text) == manifest
    lines = text.splitlines()
    index = manifest["artifacts"]
    assert len(lines) == 1 + len(manifest) + (len(index) + 1 if index else 0) + 1
    if index:
        start = lines.index('  "artifacts": {') + 1
        for line, (key, value) in zip(lines[start : start + len(index)], index.items()):
            assert json.loads("{" + line.rstrip(",") + "}") == {key: value}


@pytest.mark.parametrize(
    "index",
    [
        {},
        {"a": {"x": 1}},
        {"odd}, ": {"w": "ends with }, "}, "b": {"y": '}, "'}, 'c}, "d': {"q": '}, "e": {'}},
        {"a": {"nested": {"x": 1}, "y": 2}, "b": {}},
        {"a": "}, ", "b": {}, "c": 3},  # entries that are not objects
        {"é/ü.md": {"sha256": "0" * 64, "size": 1, "writer": "tools", "written_at": "t"}},
    ],
)
def test_dump_manifest_round_trips_any_index_with_one_line_per_entry(index):
    manifest = {
        "schema_version": 1,
        "question": 'a "quoted" }, "question"',
        "artifacts": index,
        "decisions": [{"diff": "x\ny"}],
    }
    _assert_one_line_per_entry(dump_manifest(manifest), manifest)


def test_the_manifest_encoder_re_encodes_exactly_what_changed():
    encoder = ManifestEncoder()
    entry = {"sha256": "0" * 64, "size": 1, "writer": "tools", "written_at": "t"}
    manifest = {"artifacts": {f"sources/{i}.txt": dict(entry) for i in range(5)}, "budget": {"spent": 0}}
    assert encoder.encode(manifest) == dump_manifest(manifest)
    manifest["budget"]["spent"] = 3  # fields other than the index are encoded every time
    manifest["artifacts"]["sources/1.txt"]["size"] = 7  # changed in place
    manifest["artifacts"]["sources/2.txt"] = {**entry, "nested": {"a": [1, 2]}}  # replaced
    del manifest["artifacts"]["sources/3.txt"]
    manifest["artifacts"]["new.md"] = dict(entry)
    text = encoder.encode(manifest)
    assert text == dump_manifest(manifest)
    _assert_one_line_per_entry(text, manifest)
    manifest["artifacts"]["sources/2.txt"]["nested"]["a"].append(3)  # changed deep inside, in place
    assert json.loads(encoder.encode(manifest))["artifacts"]["sources/2.txt"]["nested"] == {"a": [1, 2, 3]}
    manifest["artifacts"]["sources/3.txt"] = dict(entry)  # forgotten when removed, encoded again when back
    assert encoder.encode(manifest) == dump_manifest(manifest)


def test_an_artifact_write_costs_three_fsyncs_and_keeps_its_intent_until_a_durable_write(built_ws, specs, monkeypatch):
    built_ws.flush()
    assert _intents(built_ws) == []
    fsyncs = _count_fsyncs(monkeypatch)
    new = json.loads((built_ws.root / "claims.json").read_text())
    new["claims"][0]["statement"] = "Changed."
    built_ws.write("claims.json", new, specs["analyst"].policy)
    assert fsyncs[0] == 3  # temp file, intent, folder; run.json is not rewritten at all
    digest = sha256_bytes((built_ws.root / "claims.json").read_bytes())
    assert built_ws.manifest["artifacts"]["claims.json"]["sha256"] == digest
    assert json.loads((built_ws.root / "run.json").read_text())["artifacts"]["claims.json"]["sha256"] != digest
    assert [(i["path"], i["sha256"]) for i in _intents(built_ws)] == [("claims.json", digest)]
    assert validate_workspace(built_ws.root) == []  # the intent vouches for the new content
    built_ws.flush()
    assert fsyncs[0] == 5  # run.json's temp file and folder
    assert json.loads((built_ws.root / "run.json").read_text())["artifacts"]["claims.json"]["sha256"] == digest
    assert _intents(built_ws) == []
    built_ws.flush()
    assert fsyncs[0] == 5  # nothing pending: no rewrite
    assert validate_workspace(built_ws.root) == []


def test_a_path_has_at_most_one_intent(built_ws, specs):
    claims = json.loads((built_ws.root / "claims.json").read_text())
    for statement in ("First.", "Second.", "Third."):
        claims["claims"][0]["statement"] = statement
        built_ws.write("claims.json", claims, specs["analyst"].policy)
    intents = [i for i in _intents(built_ws) if i["path"] == "claims.json"]
    assert [i["sha256"] for i in intents] == [sha256_bytes((built_ws.root / "claims.json").read_bytes())]
    assert validate_workspace(built_ws.root) == []


def test_checked_updates_and_releasing_the_lock_drop_the_intents(built_ws):
    assert len(_intents(built_ws)) == 7  # every write of the fixture, not yet durable
    built_ws.set_status("planning")
    assert _intents(built_ws) == []
    built_ws.acquire_run_lock()
    built_ws.write("sources/src-aaaaaaaaaaaa.txt", "more text", TOOLS)
    assert len(_intents(built_ws)) == 1
    built_ws.release_run_lock()
    assert _intents(built_ws) == []
    assert validate_workspace(built_ws.root) == []


def test_an_index_update_lost_to_a_power_cut_is_redone_from_the_kept_intent(built_ws, specs):
    built_ws.flush()
    durable = (built_ws.root / "run.json").read_bytes()
    new = json.loads((built_ws.root / "claims.json").read_text())
    new["claims"][0]["statement"] = "A TaskGroup cancels the other tasks when one task fails."
    built_ws.write("claims.json", new, specs["analyst"].policy)
    built_ws.write("sources/src-aaaaaaaaaaaa.txt", "more text", TOOLS)
    # The power cut: run.json's unsynced rewrites are lost, the fsynced files and intents are not.
    (built_ws.root / "run.json").write_bytes(durable)
    assert validate_workspace(built_ws.root) == []  # the intents vouch for both files
    ws = Workspace.open(built_ws.root)
    assert "sources/src-aaaaaaaaaaaa.txt" not in ws.manifest["artifacts"]
    ws.acquire_run_lock()
    for rel in ("claims.json", "sources/src-aaaaaaaaaaaa.txt"):
        assert ws.manifest["artifacts"][rel]["sha256"] == sha256_bytes((ws.root / rel).read_bytes())
    assert json.loads((ws.root / "run.json").read_text())["artifacts"] == ws.manifest["artifacts"]
    assert _intents(ws) == []
    # both writes were traced before the power cut: re-indexing them adds no second write event
    writes = [
        json.loads(line) for line in (ws.root / "trace.jsonl").read_text().splitlines() if '"event": "write"' in line
    ]
    for rel in ("claims.json", "sources/src-aaaaaaaaaaaa.txt"):
        digest = sha256_bytes((ws.root / rel).read_bytes())
        assert [e["sha256"] for e in writes if e["path"] == rel].count(digest) == 1
    ws.release_run_lock()
    assert validate_workspace(ws.root) == []


def test_recover_drops_intents_for_content_no_longer_there_and_torn_intents(built_ws, specs):
    built_ws.flush()
    journal = built_ws.root / ".harness" / "journal"
    old = {
        "path": "claims.json",
        "sha256": "0" * 64,
        "size": 1,
        "writer": "analyst",
        "written_at": "2026-11-30T01:02:03.000000Z",
        "tmp": ".claims.json.gone.tmp",
    }
    (journal / "old.json").write_text(json.dumps(old))  # the file was rewritten since
    (journal / "torn.json").write_text('{"path": "claims.js')  # cut off before its rename
    before = built_ws.manifest["artifacts"]
    ws = Workspace.open(built_ws.root)
    ws.acquire_run_lock()
    assert _intents(ws) == [] and not list(journal.iterdir())
    assert ws.manifest["artifacts"] == before
    assert "completed after an interrupted write" not in (ws.root / "trace.jsonl").read_text()
    ws.release_run_lock()
    assert validate_workspace(ws.root) == []


_KILLED_WRITER = """
import sys
from harness.contract.policy import TOOLS
from harness.workspace.store import Workspace
ws = Workspace.open(sys.argv[1])
ws.acquire_run_lock()
ws.write("sources/src-aaaaaaaaaaaa.txt", "first", TOOLS)
ws.write("sources/src-bbbbbbbbbbbb.txt", "second", TOOLS)  # killed right after its index update
"""


@pytest.mark.parametrize("crash_at", ["write:renamed:2", "write:indexed:2"])
def test_sigkill_after_a_non_durable_index_update_is_recovered(built_ws, crash_at):
    built_ws.flush()
    r = subprocess.run(
        [sys.executable, "-c", _KILLED_WRITER, str(built_ws.root)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "RESEARCH_CRASH_AT": crash_at},
    )
    assert r.returncode == -signal.SIGKILL, r.stderr
    assert sorted(i["path"] for i in _intents(built_ws)) == [
        "sources/src-aaaaaaaaaaaa.txt",
        "sources/src-bbbbbbbbbbbb.txt",
    ]
    assert validate_workspace(built_ws.root) == []
    ws = Workspace.open(built_ws.root)
    ws.acquire_run_lock()
    assert _intents(ws) == []
    writes = [
        json.loads(line) for line in (ws.root / "trace.jsonl").read_text().splitlines() if '"event": "write"' in line
    ]
    for rel in ("sources/src-aaaaaaaaaaaa.txt", "sources/src-bbbbbbbbbbbb.txt"):
        digest = sha256_bytes((ws.root / rel).read_bytes())
        assert ws.manifest["artifacts"][rel]["sha256"] == digest
        # exactly one write event each: the killed write's is added by recovery, the first one's is not repeated
        assert [e["sha256"] for e in writes if e["path"] == rel] == [digest]
    assert [e["path"] for e in writes if e.get("detail") == "completed after an interrupted write"] == [
        "sources/src-bbbbbbbbbbbb.txt"
    ]
    ws.release_run_lock()
    assert validate_workspace(ws.root) == []


def test_atomic_write_makes_a_missing_folder_on_first_use(tmp_path):
    target = tmp_path / "new" / "deeper" / "file.json"
    atomic_write(target, b"{}\n")
    atomic_write(target, b"[]\n", durable=False)
    assert target.read_bytes() == b"[]\n"
    assert [p.name for p in target.parent.iterdir()] == ["file.json"]  # no temp file left


def test_list_matches_the_pattern_and_never_leaves_the_workspace(built_ws, tmp_path):
    everything = built_ws.list("**", HARNESS)
    for pattern in ("sources/*.json", "source-cards/*.json", "**/*.md", "drafts/draft-1.md", "*.json", "nope/*.json"):
        assert built_ws.list(pattern, HARNESS) == [p for p in everything if matches(p, [pattern])], pattern
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.json").write_text("{}")
    (built_ws.root / "elsewhere").symlink_to(outside)
    assert built_ws.list("elsewhere/*.json", HARNESS) == []


_KILLED_REMOVER = """
import sys
from harness.contract.policy import TOOLS
from harness.workspace.store import Workspace
ws = Workspace.open(sys.argv[1])
ws.acquire_run_lock()
ws.remove("sources/src-aaaaaaaaaaaa.txt", TOOLS)  # killed inside
"""


@pytest.mark.parametrize("crash_at", ["remove:unlinked:1", "remove:indexed:1"])
def test_sigkill_inside_a_removal_is_finished_by_the_next_lock_holder(built_ws, crash_at):
    rel = "sources/src-aaaaaaaaaaaa.txt"
    built_ws.write(rel, "to be removed", TOOLS)
    built_ws.release_run_lock()
    r = subprocess.run(
        [sys.executable, "-c", _KILLED_REMOVER, str(built_ws.root)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "RESEARCH_CRASH_AT": crash_at},
    )
    assert r.returncode == -signal.SIGKILL, r.stderr
    assert not (built_ws.root / rel).exists()
    ws = Workspace.open(built_ws.root)
    ws.acquire_run_lock()
    assert (
        rel not in ws.manifest["artifacts"] and rel not in json.loads((ws.root / "run.json").read_text())["artifacts"]
    )
    assert not list((ws.root / ".harness" / "journal").glob("*.json"))
    events = [json.loads(line) for line in (ws.root / "trace.jsonl").read_text().splitlines()]
    assert [e["event"] for e in events if e.get("path") == rel] == ["write", "delete"]  # the delete traced once
    ws.release_run_lock()
    assert validate_workspace(ws.root) == []


_KILLED_CREATOR = """
import sys
from harness.workspace.store import Workspace
Workspace.create(sys.argv[1], "A question whose creator is killed")
"""

_LIVE_CREATOR = """
import sys
from pathlib import Path
from harness.workspace import staging
with staging.staging_folder(Path(sys.argv[1])) as (run_id, folder):
    print(run_id, flush=True)
    sys.stdin.readline()  # still at work until the test says so
    raise SystemExit(0)
"""


def test_a_staging_folder_whose_creator_was_killed_is_swept_by_the_next_creation(tmp_path):
    runs = tmp_path / "runs"
    r = subprocess.run(
        [sys.executable, "-c", _KILLED_CREATOR, str(runs)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "RESEARCH_CRASH_AT": "create:staged:1"},
    )
    assert r.returncode == -signal.SIGKILL, r.stderr
    (dead,) = [p for p in runs.iterdir() if p.is_dir()]
    assert dead.name.startswith(".creating-") and (dead / "run.json").is_file()  # assembled, never renamed
    live = subprocess.Popen(
        [sys.executable, "-c", _LIVE_CREATOR, str(runs)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        live_id = live.stdout.readline().strip()
        assert (runs / f".creating-{live_id}").is_dir()
        ws = Workspace.create(runs, "The next question")
        left = sorted(p.name for p in runs.iterdir())
        # the killed creator's folder and lock are gone; the live creator's are kept; the new run is in place
        assert left == sorted([f".creating-{live_id}", f".creating-{live_id}.lock", ws.run_id])
        assert validate_workspace(ws.root) == []
    finally:
        live.communicate("\n", timeout=60)
    assert live.returncode == 0
    assert sorted(p.name for p in runs.iterdir()) == [ws.run_id]  # the live creator cleaned up after itself


def test_a_lock_file_left_without_its_folder_is_swept_only_once_stale(tmp_path):
    from harness.workspace import staging

    runs = tmp_path / "runs"
    runs.mkdir()
    fresh, stale = runs / ".creating-fresh.lock", runs / ".creating-stale.lock"
    fresh.write_text("")
    stale.write_text("")
    os.utime(stale, (0, 0))
    assert staging.sweep(runs) == []  # no folder was swept
    assert sorted(p.name for p in runs.iterdir()) == [".creating-fresh.lock"]


def test_taking_the_run_lock_reads_what_the_last_holder_wrote_since_the_folder_was_opened(built_ws):
    built_ws.flush()
    stale = Workspace.open(built_ws.root)  # e.g. `research resume` opening a run another process works on
    holder = Workspace.open(built_ws.root)
    holder.acquire_run_lock()
    holder.set_status("completed")
    holder.release_run_lock()
    stale.acquire_run_lock()
    try:
        assert stale.status == "completed"
        stale.trace("resume", agent="harness")
    finally:
        stale.release_run_lock()
    seqs = [json.loads(line)["seq"] for line in (built_ws.root / "trace.jsonl").read_text().splitlines()]
    assert seqs == list(range(1, len(seqs) + 1))  # no sequence number given twice
    assert validate_workspace(built_ws.root) == []
