"""The invariants under faults: SIGKILL at many points then resume, concurrent runs, a failing disk, secrets.

Kill points come in two kinds: after the k-th progress event of `research run --json`
(between steps), and inside the write path itself via RESEARCH_CRASH_AT (after the temp
file, after the rename, after the index update of the n-th artifact write).
"""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import harness.workspace.store as workspace_mod
from fakes.workspaces import FIXTURE_QUESTION, fixture_run_argv, normalized_artifacts
from harness.errors import StorageError
from harness.orchestrator.config import build_config
from harness.orchestrator.lifecycle import resume_run, start_run
from harness.workspace.validate import validate_workspace

TESTS = Path(__file__).resolve().parents[1]  # tests/: where `fakes` is importable from
KILL_AFTER_EVENTS = [2, 4, 6, 8, 10, 12, 14, 16]
CRASH_POINTS = [
    "write:temp:2",
    "write:renamed:5",
    "write:indexed:9",
    "write:renamed:14",
    "write:temp:18",
    "write:renamed:21",
]


def research(*args, env=None, **kw):
    return subprocess.run(
        [sys.executable, "-m", "harness", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(TESTS), **(env or {})},
        **kw,
    )


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    from fakes.workspaces import write_fixture_corpus

    base = tmp_path_factory.mktemp("reference")
    corpus = write_fixture_corpus(base / "corpus")
    r = research("run", FIXTURE_QUESTION, "--corpus", str(corpus), "--runs-dir", str(base / "runs"), "--yes", "--json")
    assert r.returncode == 0, r.stderr
    events = r.stdout.splitlines()
    run_dir = Path(json.loads(events[-1])["path"])
    writes = sum(1 for line in (run_dir / "trace.jsonl").read_text().splitlines() if '"event": "write"' in line)
    return corpus, run_dir, len(events), writes


def _result_artifacts(root: Path) -> dict[str, object]:
    """The artifacts, minus what describes the process rather than the result: a step the kill
    interrupted is done again, so delegation counts (metrics roles, subtask counts) legitimately grow."""
    out = normalized_artifacts(root)
    metrics = out["metrics.json"]
    metrics.pop("roles")
    metrics["ratios"].pop("subtask_success_rate")
    return out


def _resume_and_compare(runs: Path, reference_dir: Path) -> Path:
    (root,) = [p for p in runs.iterdir() if not p.name.startswith(".")]
    r = research("resume", str(root), "--quiet")
    assert r.returncode == 0, r.stdout + r.stderr
    assert validate_workspace(root) == []
    left, right = _result_artifacts(reference_dir), _result_artifacts(root)
    assert sorted(left) == sorted(right), "an artifact was lost or duplicated"
    for rel in left:
        assert left[rel] == right[rel], rel
    trace = (root / "trace.jsonl").read_text()
    assert '"event": "resume"' in trace
    return root


@pytest.mark.parametrize("k", KILL_AFTER_EVENTS, ids=[f"kill-after-event-{k}" for k in KILL_AFTER_EVENTS])
def test_sigkill_between_steps_then_resume(reference, tmp_path, k):
    """SIGKILL of `research run` after its k-th progress event, then `research resume`: the workspace validates and its artifacts equal an uninterrupted run's."""
    corpus, ref_dir, n_events, _ = reference
    if k >= n_events - 1:
        pytest.skip(f"the reference run has only {n_events} events")
    runs = tmp_path / "runs"
    proc = subprocess.Popen(
        fixture_run_argv(corpus, runs, "--json"),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONPATH": str(TESTS)},
    )
    for _ in range(k):
        assert proc.stdout.readline()
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    _resume_and_compare(runs, ref_dir)


@pytest.mark.parametrize("point", CRASH_POINTS, ids=[f"kill-at-{p}" for p in CRASH_POINTS])
def test_sigkill_inside_a_write_then_resume(reference, tmp_path, point):
    """SIGKILL inside an artifact write (after the temp file, the rename or the index update), then `research resume`: nothing lost, nothing duplicated, no temp file or journal entry left."""
    corpus, ref_dir, _, n_writes = reference
    if int(point.rsplit(":", 1)[1]) > n_writes:
        pytest.skip(f"the reference run makes only {n_writes} writes")
    runs = tmp_path / "runs"
    r = research(
        "run",
        FIXTURE_QUESTION,
        "--corpus",
        str(corpus),
        "--runs-dir",
        str(runs),
        "--yes",
        "--quiet",
        env={"RESEARCH_CRASH_AT": point},
    )
    assert r.returncode == -signal.SIGKILL, r.stderr
    root = _resume_and_compare(runs, ref_dir)
    assert not list((root / ".harness" / "journal").glob("*.json"))
    assert not [p for p in root.rglob("*.tmp")]


def test_many_runs_at_once_in_one_runs_folder(fixture_corpus, tmp_path):
    """Five runs started at once in one runs folder: distinct workspaces, all complete and valid."""
    runs = tmp_path / "runs"
    procs = [
        subprocess.Popen(
            fixture_run_argv(fixture_corpus, runs, "--quiet"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(5)
    ]
    assert [p.wait(timeout=300) for p in procs] == [0] * 5
    dirs = [p for p in runs.iterdir()]
    assert len(dirs) == 5 and len({d.name for d in dirs}) == 5
    for d in dirs:
        assert validate_workspace(d) == []


def test_a_second_process_cannot_work_on_a_running_run(fixture_corpus, tmp_path):
    """A second process resuming a run that is running is refused in one line; the lock of a SIGKILLed run is recovered at once."""
    runs = tmp_path / "runs"
    gate = tmp_path / "planner-may-go"  # the planner holds the run (and its lock) until this file exists
    proc = subprocess.Popen(
        fixture_run_argv(fixture_corpus, runs, "--json", "--agent", "planner=python:fakes.custom_agents:SlowPlanner"),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONPATH": str(TESTS), "SLOW_PLANNER_GATE": str(gate)},
    )
    first = json.loads(proc.stdout.readline())
    assert first["event"] == "run_started"
    r = research("resume", first["path"])
    assert r.returncode == 2 and "already being worked on by another process" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    gate.touch()
    proc.stdout.read()
    assert proc.wait(timeout=120) == 0
    # the lock died with its holder: after a SIGKILL the run can be resumed at once
    proc = subprocess.Popen(
        fixture_run_argv(
            fixture_corpus, tmp_path / "runs2", "--json", "--agent", "planner=python:fakes.custom_agents:SlowPlanner"
        ),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONPATH": str(TESTS), "SLOW_PLANNER_GATE": str(tmp_path / "never")},  # killed held
    )
    path = json.loads(proc.stdout.readline())["path"]
    proc.kill()
    proc.wait()
    assert research("resume", path, "--quiet").returncode == 0


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS], ids=["disk-full", "read-only"])
def test_a_failing_disk_gives_one_line_and_no_corrupt_file(fixture_corpus, tmp_path, monkeypatch, code):
    """A full or read-only disk mid-run: one line naming the file, every landed file whole, and the run resumes once the disk is fixed."""
    real = workspace_mod.write_temp
    calls = {"n": 0}

    def failing(path, data):
        calls["n"] += 1
        if calls["n"] >= 15:
            raise OSError(code, os.strerror(code))
        return real(path, data)

    monkeypatch.setattr(workspace_mod, "write_temp", failing)
    cfg = build_config(FIXTURE_QUESTION, corpus=str(fixture_corpus), runs_dir=str(tmp_path / "runs"), yes=True)
    with pytest.raises(StorageError) as info:
        start_run(cfg)
    message = str(info.value)
    assert "\n" not in message and os.strerror(code) in message and "research resume" in message
    (root,) = list((tmp_path / "runs").iterdir())
    assert validate_workspace(root) == []  # every file that landed is whole and indexed
    monkeypatch.setattr(workspace_mod, "write_temp", real)
    assert resume_run(root).status == "completed"
    assert validate_workspace(root) == []


def test_the_cli_reports_a_failing_disk_in_one_line(fixture_corpus, tmp_path):
    """A full disk through the command line: exactly one error line and exit code 2."""
    runs = tmp_path / "runs"
    runs.mkdir()
    script = (
        "import errno, os, sys, harness.workspace.store as w\n"
        "real = w.write_temp\n"
        "def failing(p, d):\n"
        "    if p.name.startswith('claims'): raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))\n"
        "    return real(p, d)\n"
        "w.write_temp = failing\n"
        "from harness.surfaces.cli import main\n"
        "sys.argv = ['research'] + sys.argv[1:]\n"
        "main()\n"
    )
    r = subprocess.run(
        [
            sys.executable,
            "-c",
            script,
            "run",
            FIXTURE_QUESTION,
            "--corpus",
            str(fixture_corpus),
            "--runs-dir",
            str(runs),
            "--yes",
            "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        "research: error: claims.json: cannot write to the workspace (No space left on device); "
        "nothing was half-written — free space or fix permissions, then `research resume`"
    ]


def test_api_keys_never_land_in_the_workspace(tmp_path, monkeypatch):
    """An API key used for a whole llm run appears in no file of the run (run.json, trace, checkpoints, viewer)."""
    from test_pipeline_llm import QUESTION

    from fakes.gemini_stub import GeminiStub, point_env_at_stub
    from fakes.scripted import GeminiDispatch, role_policies
    from fakes.workspaces import ASYNCIO_DOCS, write_docs

    corpus = write_docs(tmp_path / "corpus", ASYNCIO_DOCS)
    secret = "AIzaSy-test-secret-" + os.urandom(8).hex()
    with GeminiStub(responder=GeminiDispatch(role_policies(n_research=2)), expected_api_key=secret) as stub:
        point_env_at_stub(monkeypatch, stub, secret)
        monkeypatch.setenv("GOOGLE_API_KEY", secret)
        cfg = build_config(QUESTION, corpus=str(corpus), runs_dir=str(tmp_path / "runs"), yes=True)
        assert {c.engine for c in cfg.roles.values()} == {"llm"}  # a key alone selects the llm engine
        result = start_run(cfg)
        stub.assert_no_errors()
        assert set(stub.api_keys) == {secret}  # the key was really used...
    assert result.status == "completed", result.reason
    from harness.surfaces.viewer import build_viewer  # noqa: PLC0415 - the viewer is part of what a run leaves

    build_viewer(result.run_dir)
    leaked = [p for p in result.run_dir.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]
    assert leaked == []  # ...and is in no file of the run: run.json, trace, checkpoints, viewer
