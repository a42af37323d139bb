"""Runs outlive `research serve`: stop the server in the middle of a run, start it again, resume.

The server is the real command (`python -m harness serve --port 0`), stopped with SIGINT as
Ctrl-C stops it. Run A has its plan approved and the server is stopped at once: A's own
`research resume` process goes on without the server, and is cut off mid-run (killed by
the harness's crash point `RESEARCH_CRASH_AT`, as the kill-and-resume tests do). Run B
waits at its plan gate. On restart, B is still paused at the plan gate, A shows as cut
off and resumable, and resuming it from the API ends `completed` with `research validate`
clean.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import httpx

from fakes.workspaces import FIXTURE_QUESTION, write_fixture_corpus
from harness.surfaces.serve.states import ACTIVE
from harness.workspace.trace import read_events

CHANGE = {"X-Research-Request": "1"}
TIMEOUT_S = 240
HTTP = httpx.Client()  # carries the login token the server printed (every request needs it, on loopback too)


def start_server(tmp_path: Path, runs_dir: Path, env: dict[str, str]) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "harness",
            "serve",
            "--runs-dir",
            str(runs_dir),
            "--port",
            "0",
            "--corpus-root",
            str(tmp_path),
            "--token-file",
            str(tmp_path / "token"),  # both servers of the test share it: a restart keeps the token
        ],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    line = proc.stdout.readline()
    assert line.startswith("research serve: http://127.0.0.1:"), (line, proc.stderr.read() if proc.poll() else "")
    url, _, token = line.split(": ", 1)[1].strip().partition("/login?token=")
    HTTP.headers["Authorization"] = f"Bearer {token}"
    return proc, url


def wait_for(url: str, predicate, timeout: float = TIMEOUT_S) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        d = HTTP.get(url).json()
        if predicate(d) or time.monotonic() > deadline:
            return d
        time.sleep(0.2)


def _ts(value: str) -> float:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


def _resumes(run_dir: Path) -> list[dict]:
    """The trace's resume events: a `research resume` process took the run lock and started."""
    return [e for e in read_events(run_dir) if e.get("event") == "resume"]


def test_a_run_cut_off_while_the_server_is_stopped_resumes_to_completed(tmp_path):
    corpus = write_fixture_corpus(tmp_path / "corpus")
    runs_dir = tmp_path / "runs"
    env = {**os.environ, "RESEARCH_CACHE_DIR": str(tmp_path / "cache")}
    # the third artifact a process writes kills it: A's resume process dies mid-run (the server writes one)
    first, url = start_server(tmp_path, runs_dir, {**env, "RESEARCH_CRASH_AT": "write:renamed:3"})
    servers = [first]
    try:
        request = {"question": FIXTURE_QUESTION, "corpus": str(corpus)}
        a = HTTP.post(f"{url}/api/runs", json=request, headers=CHANGE, timeout=TIMEOUT_S).json()["run_id"]
        b = HTTP.post(f"{url}/api/runs", json=request, headers=CHANGE, timeout=TIMEOUT_S).json()["run_id"]
        for run_id in (a, b):
            assert wait_for(f"{url}/api/runs/{run_id}", lambda d: d["gate"] == "plan")["gate"] == "plan"
        r = HTTP.post(f"{url}/api/runs/{a}/plan", json={"decision": "approve"}, headers=CHANGE)
        assert r.status_code == 202, r.text
        first.send_signal(signal.SIGINT)  # stopped mid-run, as Ctrl-C stops it
        assert first.wait(timeout=60) == 0
        stopped_at = time.time()

        # A's process goes on without the server, until it is cut off
        manifest = runs_dir / a / "run.json"
        second, url = start_server(tmp_path, runs_dir, env)
        servers.append(second)
        cut = wait_for(f"{url}/api/runs/{a}", lambda d: not d["live"] and bool(_resumes(runs_dir / a)))
        assert cut["status"] in ACTIVE and cut["resumable"] and cut["gate"] is None, cut
        resumed = _resumes(runs_dir / a)
        assert resumed and _ts(resumed[0]["ts"]) > stopped_at  # A's process worked after the server had stopped
        assert json.loads(manifest.read_text(encoding="utf-8"))["status"] == cut["status"]

        # B is still paused at its plan gate
        paused = HTTP.get(f"{url}/api/runs/{b}").json()
        assert paused["status"] == "awaiting_plan_approval" and paused["gate"] == "plan" and not paused["live"]

        # resuming A from the API ends completed, and the workspace validates
        r = HTTP.post(f"{url}/api/runs/{a}/resume", json={}, headers=CHANGE)
        assert r.status_code == 202, r.text
        done = wait_for(f"{url}/api/runs/{a}", lambda d: not d["live"] and d["status"] != cut["status"])
        assert done["status"] == "completed", done
        check = subprocess.run(
            [sys.executable, "-m", "harness", "validate", str(runs_dir / a)], capture_output=True, text=True, env=env
        )
        assert check.returncode == 0, check.stdout + check.stderr
        listed = {r["run_id"]: r["status"] for r in HTTP.get(f"{url}/api/runs").json()["runs"]}
        assert listed == {a: "completed", b: "awaiting_plan_approval"}
    finally:
        for proc in servers:
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
                proc.wait(timeout=60)
