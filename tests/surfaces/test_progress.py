"""What `research run` shows while it works: --json events, the live panel, --quiet."""

from __future__ import annotations

import io
import json
import subprocess

from rich.console import Console

from fakes.workspaces import FIXTURE_QUESTION, fixture_run_argv
from harness.orchestrator.config import build_config
from harness.orchestrator.lifecycle import start_run
from harness.surfaces.progress import LiveProgress


def test_json_streams_one_event_per_line(fixture_corpus, tmp_path):
    r = subprocess.run(
        fixture_run_argv(fixture_corpus, tmp_path / "runs", "--json"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    events = [json.loads(line) for line in r.stdout.splitlines()]
    kinds = [e["event"] for e in events]
    assert kinds[0] == "run_started" and kinds[-1] == "run_ended"
    assert events[-1]["status"] == "completed" and events[-1]["exit_code"] == 0
    statuses = [e["status"] for e in events if e["event"] == "status"]
    assert statuses == ["planning", "researching", "analyzing", "writing", "reviewing", "completed"]
    started = {e["delegation_id"] for e in events if e["event"] == "delegation_started"}
    ended = {e["delegation_id"] for e in events if e["event"] == "delegation_ended"}
    assert started == ended and {"researcher-Q1-r0", "researcher-Q2-r0", "researcher-Q3-r0"} <= started


def test_quiet_prints_only_the_result(fixture_corpus, tmp_path):
    r = subprocess.run(
        fixture_run_argv(fixture_corpus, tmp_path / "runs", "--quiet"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0 and r.stderr == ""
    assert [line.split(":")[0] for line in r.stdout.splitlines()] == ["cost", "final report", "workspace"]
    assert r.stdout.startswith("cost: $0.00;")  # the offline engine makes no model call


def test_live_panel_shows_stage_branches_and_counts(fixture_corpus, tmp_path):
    buffer = io.StringIO()
    display = LiveProgress(Console(file=buffer, force_terminal=True, width=160))
    frames = []
    original = display._render

    def spy():
        frame = original()
        capture = Console(file=io.StringIO(), width=160)
        capture.print(frame)
        frames.append(capture.file.getvalue())
        return frame

    display._render = spy
    try:
        result = start_run(
            build_config(FIXTURE_QUESTION, corpus=str(fixture_corpus), runs_dir=str(tmp_path / "runs"), yes=True),
            events=display,
            on_created=display.attach,
        )
    finally:
        display.close()
    assert result.status == "completed"
    assert any("stage: researching" in f and "researcher Q" in f for f in frames)
    last = frames[-1]
    assert "stage: completed" in last and "in flight: -" in last
    claims = json.loads((result.run_dir / "claims.json").read_text())["claims"]
    cards = list((result.run_dir / "source-cards").glob("*.json"))
    assert (
        f"claims {len(claims)}" in last and f"cards {len(cards)}" in last and "drafts 1" in last and "searches" in last
    )
    assert "researcher Q1: completed" in buffer.getvalue() and "completed" in buffer.getvalue()
