"""The doors into a run, attacked: nothing outside the roots is read, no input takes the server down,
limits hold, and the app needs its token everywhere.

Each symlink the audit of `research serve` planted is planted again here, through every door that
can meet it: a corpus load (the CLI, the Python API, `research serve`), the audit viewer, the raw-file
route, the run's private folder and the runs folder. Non-finite and absurd numbers are sent through
the CLI, research.yaml, the Python API and the app's form; odd requests (a NUL byte, an oversized
question or header, a long Last-Event-ID, random JSON) must get a 4xx, never a 500.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from starlette.testclient import TestClient

import harness
from fakes.workspaces import FIXTURE_QUESTION, trace, write_fixture_corpus
from harness.sources.corpus import OUTSIDE, load_corpus
from harness.surfaces.serve.app import ServeSettings, create_app
from harness.surfaces.serve.request import CorpusRoots
from harness.surfaces.viewer import render_viewer

REPO = Path(__file__).resolve().parents[2]
BASE = "http://127.0.0.1:8000"
CHANGE = {"X-Research-Request": "1"}
SECRET = "The current stable release of ghostlib is version 9.9 and the password is hunter2.\n"


def make_client(tmp_path: Path, runs_dir: Path, **settings) -> TestClient:
    config = ServeSettings(runs_dir, CorpusRoots.parse([str(tmp_path)], tmp_path), tmp_path, **settings)
    return TestClient(create_app(config), base_url=BASE)


def linked_corpus(tmp_path: Path) -> Path:
    """The fixture corpus with a file symlink and a folder symlink to a secret outside it, and one link inside."""
    corpus = write_fixture_corpus(tmp_path / "corpus")
    outside = tmp_path / "outside"
    (outside / "folder").mkdir(parents=True)
    (outside / "secret.md").write_text(SECRET, encoding="utf-8")
    (outside / "folder" / "also-secret.md").write_text(SECRET, encoding="utf-8")
    (corpus / "filelink").mkdir()
    (corpus / "filelink" / "secret.md").symlink_to(outside / "secret.md")
    (corpus / "folderlink").symlink_to(outside / "folder")
    (corpus / "inside.md").symlink_to(corpus / "fastjson" / "overview.md")
    return corpus


def no_secret_in(run_dir: Path) -> None:
    for path in run_dir.rglob("*"):
        if path.is_file():
            assert b"hunter2" not in path.read_bytes(), path


def skipped_and_traced(run_dir: Path) -> None:
    manifest = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    skipped = {s["path"]: s["reason"] for s in manifest["corpus"]["skipped"]}
    assert skipped == {"filelink/secret.md": OUTSIDE, "folderlink": OUTSIDE}
    [event] = [e for e in trace(run_dir) if e.get("decision") == "corpus_files_skipped"]
    assert {f["path"] for f in event["detail"]["files"]} == {"filelink/secret.md", "folderlink"}


# ---- 1. nothing outside the roots is read ---------------------------------------------------------


def test_a_corpus_load_reads_nothing_a_symlink_points_at_outside_the_folder(tmp_path):
    """A file or folder symlink out of a corpus folder is skipped and named; a link inside it is read."""
    warnings: list[str] = []
    corpus = load_corpus(linked_corpus(tmp_path), warn=warnings.append)
    assert not any("hunter2" in d.text for d in corpus.documents)
    assert {s["path"] for s in corpus.skipped} == {"filelink/secret.md", "folderlink"}
    assert len(warnings) == 2 and all(OUTSIDE in w for w in warnings)
    assert corpus.duplicates == 1  # inside.md is read: it is fastjson/overview.md, once


def test_a_symlink_out_of_the_corpus_never_reaches_a_run_through_the_cli(tmp_path):
    """`research run --corpus` over a folder whose file links to a secret: the run never sees it."""
    corpus, runs = linked_corpus(tmp_path), tmp_path / "runs"
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    argv = [sys.executable, "-m", "harness", "run", FIXTURE_QUESTION, "--corpus", str(corpus), "--yes"]
    proc = subprocess.run(
        [*argv, "--runs-dir", str(runs)], env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    assert proc.returncode in (0, 3), proc.stderr
    assert sum(OUTSIDE in line for line in proc.stderr.splitlines()) == 2, proc.stderr
    [run_dir] = [p for p in runs.iterdir() if not p.name.startswith(".")]
    skipped_and_traced(run_dir)
    no_secret_in(run_dir)


def test_a_symlink_out_of_the_corpus_never_reaches_a_run_through_the_python_api(tmp_path):
    result = harness.run(FIXTURE_QUESTION, corpus=linked_corpus(tmp_path), runs_dir=tmp_path / "runs", yes=True)
    assert result.status == "completed", result.reason
    skipped_and_traced(result.run_dir)
    no_secret_in(result.run_dir)


def test_a_symlink_out_of_the_corpus_never_reaches_a_run_started_by_the_app(tmp_path, runs_dir):
    corpus = linked_corpus(tmp_path)
    with make_client(tmp_path, runs_dir) as client:
        res = client.post("/api/runs", json={"question": FIXTURE_QUESTION, "corpus": str(corpus)}, headers=CHANGE)
        assert res.status_code == 201, res.text
        run_id = res.json()["run_id"]
        deadline = time.monotonic() + 120
        while client.get(f"/api/runs/{run_id}").json()["status"] != "awaiting_plan_approval":
            assert time.monotonic() < deadline, client.get(f"/api/runs/{run_id}").json()
            time.sleep(0.2)
        while client.get(f"/api/runs/{run_id}").json()["live"]:
            assert time.monotonic() < deadline
            time.sleep(0.2)
    skipped_and_traced(runs_dir / run_id)
    no_secret_in(runs_dir / run_id)


@pytest.mark.parametrize("planted", ["snapshot", "draft", "trace"])
def test_the_audit_viewer_shows_no_file_a_symlink_in_the_run_points_at(built_ws, tmp_path, planted):
    """A source snapshot, a draft or the trace replaced by a link to an outside file: the viewer shows none of it,
    and the raw-file route refuses the same file."""
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET, encoding="utf-8")
    rel = {
        "snapshot": next(p.relative_to(built_ws.root).as_posix() for p in built_ws.root.glob("sources/*.txt")),
        "draft": "drafts/draft-1.md",
        "trace": "trace.jsonl",
    }[planted]
    (built_ws.root / rel).unlink()
    (built_ws.root / rel).symlink_to(secret)
    assert "hunter2" not in render_viewer(built_ws.root)
    with make_client(tmp_path, built_ws.root.parent) as client:
        page = client.get(f"/runs/{built_ws.run_id}/")
        assert page.status_code == 200 and "hunter2" not in page.text
        raw = client.get(f"/runs/{built_ws.run_id}/{rel}")
        assert raw.status_code == 404 and "hunter2" not in raw.text


def test_a_symlink_into_the_runs_private_folder_is_not_served(built_ws, tmp_path):
    private = built_ws.root / ".harness"
    (private / "notes.md").write_text("private journal hunter2", encoding="utf-8")
    (built_ws.root / "drafts" / "draft-2.md").symlink_to(private / "notes.md")
    (built_ws.root / "private").symlink_to(private)
    assert "hunter2" not in render_viewer(built_ws.root)
    with make_client(tmp_path, built_ws.root.parent) as client:
        for rel in ("drafts/draft-2.md", "private/notes.md", "private/run.lock", ".harness/notes.md"):
            r = client.get(f"/runs/{built_ws.run_id}/{rel}")
            assert r.status_code == 404 and "hunter2" not in r.text, rel
        assert "hunter2" not in client.get(f"/runs/{built_ws.run_id}/").text


def test_a_run_id_shaped_folder_symlink_in_the_runs_folder_is_not_a_run(built_ws, tmp_path):
    """A link in the runs folder, named like a run, to a run folder elsewhere: not listed, not served."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    outside_ws = harness_workspace(elsewhere)
    (outside_ws.root / "secret.md").write_text(SECRET, encoding="utf-8")
    fake_id = built_ws.run_id[:-1] + ("0" if built_ws.run_id[-1] != "0" else "1")
    (built_ws.root.parent / fake_id).symlink_to(outside_ws.root)
    with make_client(tmp_path, built_ws.root.parent) as client:
        assert [r["run_id"] for r in client.get("/api/runs").json()["runs"]] == [built_ws.run_id]
        for path in (f"/runs/{fake_id}/", f"/runs/{fake_id}/secret.md", f"/api/runs/{fake_id}", f"/runs/{fake_id}/run.json"):
            r = client.get(path)
            assert r.status_code == 404 and "hunter2" not in r.text, path


def harness_workspace(runs: Path):
    from harness.workspace.store import Workspace

    return Workspace.create(runs, "What is elsewhere?")
