"""Running runs apart from the requests that start them: each one in its own `research` process.

A run is `research run … --json` (or `research resume …`) as a child process in a session
of its own, with no terminal and no `--yes`: the plan gate pauses it at
`awaiting_plan_approval`, exactly as on the command line, and a decision made in the
browser is recorded the way `research approve` records it, then a `research resume`
continues the run. So a request that ends, a browser that goes away or a server that
stops never stops or corrupts a run: the run's process keeps its run lock until it ends,
and a run cut off mid-way (its process killed) is resumed like any other.

Whether some process works on a run is read from the OS, not remembered: a run is live
while a process holds its run lock (`/proc/locks`), or while a child this server started
for it has not ended yet (it may not have taken the lock yet).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from harness.contract.layout import PRIVATE_DIR, RUN_LOCK

HARNESS_COMMAND = (sys.executable, "-m", "harness")
START_TIMEOUT_S = 600.0  # loading a large corpus happens before the run folder exists


class LaunchError(Exception):
    """The child `research` process ended before it created its run: its one-line error."""


def lock_held(run_dir: Path) -> bool:
    """True while some process holds the run's lock (Linux's /proc/locks; False where that cannot be read)."""
    try:
        st = (run_dir / PRIVATE_DIR / RUN_LOCK).stat()
        table = Path("/proc/locks").read_text(encoding="ascii", errors="replace")
    except OSError:
        return False
    ident = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    return any(ident in line.split() and "->" not in line for line in table.splitlines())


def _error_line(text: str) -> str:
    """The child's one-line error (`research: error: …`), or its last line."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for ln in reversed(lines):
        for prefix in ("research: error: ", "research: internal error: "):
            if ln.startswith(prefix):
                return ln[len(prefix) :]
    return lines[-1] if lines else "the research process ended without saying why"


class Launcher:
    """Starts `research run` / `research resume` processes and keeps track of the ones it started."""

    def __init__(self, runs_dir: Path, cwd: Path):
        self.runs_dir = runs_dir
        self.cwd = cwd
        self._children: dict[str, subprocess.Popen] = {}
        self._errors: dict[str, str] = {}  # run id -> the last child's error line, while this server runs
        self._lock = threading.Lock()
        self._scratch = Path(tempfile.mkdtemp(prefix="research-serve-"))

    def _spawn(self, args: list[str], stem: str) -> tuple[subprocess.Popen, Path, Path]:
        out, err = self._scratch / f"{stem}.out", self._scratch / f"{stem}.err"
        with open(out, "wb") as fo, open(err, "wb") as fe:
            proc = subprocess.Popen(
                [*HARNESS_COMMAND, *args],
                cwd=self.cwd,
                stdin=subprocess.DEVNULL,
                stdout=fo,
                stderr=fe,
                start_new_session=True,  # a Ctrl-C or stop of the server is not the run's
            )
        return proc, out, err

    async def start(self, args: list[str], command: tuple[str, ...] = ("run",)) -> str:
        """Start `research run ARGS --json` (or `research ask PARENT QUESTION …`); return the new run's id once
        its folder exists."""
        proc, out, err = self._spawn(
            [*command, "--runs-dir", str(self.runs_dir), "--json", *args], f"run-{os.urandom(6).hex()}"
        )
        loop = asyncio.get_running_loop()
        deadline = loop.time() + START_TIMEOUT_S
        while True:
            run_id = _started(out)
            if run_id:
                self._track(run_id, proc, err)
                return run_id
            if proc.poll() is not None:
                message = _error_line(err.read_text(encoding="utf-8", errors="replace"))
                out.unlink(missing_ok=True)
                err.unlink(missing_ok=True)
                raise LaunchError(message)
            if loop.time() > deadline:
                raise LaunchError("the research process did not create its run in time")
            await asyncio.sleep(0.05)

    def resume(self, run_dir: Path, flags: list[str]) -> None:
        """Start `research resume RUN_DIR FLAGS --json` for a run nothing works on."""
        run_id = run_dir.name
        proc, out, err = self._spawn(
            ["resume", str(run_dir), "--json", *flags], f"resume-{run_id}-{os.urandom(4).hex()}"
        )
        out.unlink(missing_ok=True)
        self._track(run_id, proc, err)

    def _track(self, run_id: str, proc: subprocess.Popen, err: Path) -> None:
        with self._lock:
            self._children[run_id] = proc
            self._errors.pop(run_id, None)
        threading.Thread(target=self._reap, args=(run_id, proc, err), daemon=True, name=f"reap-{run_id}").start()

    def _reap(self, run_id: str, proc: subprocess.Popen, err: Path) -> None:
        code = proc.wait()
        text = err.read_text(encoding="utf-8", errors="replace") if err.is_file() else ""
        err.unlink(missing_ok=True)
        (err.with_suffix(".out")).unlink(missing_ok=True)
        with self._lock:
            if self._children.get(run_id) is proc:
                del self._children[run_id]
                if code not in (0, 3):  # 3: ended without a report or paused, which run.json says
                    self._errors[run_id] = _error_line(text)

    def live(self, run_dir: Path) -> bool:
        """Some process is working on the run (a child of ours not yet ended, or any holder of its lock)."""
        with self._lock:
            proc = self._children.get(run_dir.name)
        return (proc is not None and proc.poll() is None) or lock_held(run_dir)

    def close(self) -> None:
        """Remove the server's scratch folder (children keep their open files; their runs go on)."""
        shutil.rmtree(self._scratch, ignore_errors=True)

    def error(self, run_id: str) -> str | None:
        with self._lock:
            return self._errors.get(run_id)


def _started(out: Path) -> str | None:
    """The run id from the child's first event (`run_started`), once it is written."""
    try:
        with open(out, encoding="utf-8") as fh:
            first = fh.readline()
    except OSError:
        return None
    if not first.endswith("\n"):
        return None
    try:
        event = json.loads(first)
    except ValueError:
        return None
    return event.get("run_id") if event.get("event") == "run_started" else None
