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

At most `max_active` children run at once (`research serve --max-active-runs`): a new run,
a follow-up or a resume asked for beyond that waits in a queue, first come first served,
and starts when a child ends (a run pausing at a gate ends its process too). The queue is
the server's memory only: a server stopped with runs queued started none of them.
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
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from harness.contract.layout import PRIVATE_DIR, RUN_LOCK
from harness.surfaces.serve.states import QUEUED

HARNESS_COMMAND = (sys.executable, "-m", "harness")
START_TIMEOUT_S = 600.0  # loading a large corpus happens before the run folder exists
DEFAULT_MAX_ACTIVE = 2 * (os.cpu_count() or 1)  # run processes at once: about two per core


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


@dataclass
class Waiting:
    """A start asked for while every slot was taken: what to run once one frees."""

    ticket: str
    argv: list[str]  # after `research`
    question: str | None = None  # a new run's (or follow-up's) question, for the runs list
    run_id: str | None = None  # the run a queued resume continues
    queued_at: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))


@dataclass(frozen=True)
class Queued:
    """`Launcher.start`'s answer when the start waits in the queue."""

    ticket: str
    position: int  # 1: next to start


class Launcher:
    """Starts `research run` / `research resume` processes, at most `max_active` at once, and keeps track of them."""

    def __init__(self, runs_dir: Path, cwd: Path, max_active: int | None = None):
        self.runs_dir = runs_dir
        self.cwd = cwd
        self.max_active = max(1, max_active or DEFAULT_MAX_ACTIVE)
        self._children: dict[str, subprocess.Popen] = {}
        self._starting: dict[str, subprocess.Popen] = {}  # ticket -> a new run's child that has not named its run
        self._queue: deque[Waiting] = deque()
        self._failed: dict[str, dict[str, Any]] = {}  # ticket -> a queued start whose process ended without a run
        self._errors: dict[str, str] = {}  # run id -> the last child's error line, while this server runs
        self._lock = threading.RLock()
        self._scratch = Path(tempfile.mkdtemp(prefix="research-serve-"))

    def _spawn(self, args: list[str], stem: str) -> tuple[subprocess.Popen, Path, Path]:
        out, err = self._scratch / f"{stem}.out", self._scratch / f"{stem}.err"
        with open(out, "wb") as fo, open(err, "wb") as fe:
            proc = self._popen(
                [*HARNESS_COMMAND, *args],
                cwd=self.cwd,
                stdin=subprocess.DEVNULL,
                stdout=fo,
                stderr=fe,
                start_new_session=True,  # a Ctrl-C or stop of the server is not the run's
            )
        return proc, out, err

    @staticmethod
    def _popen(argv: list[str], **kwargs) -> subprocess.Popen:
        try:
            return subprocess.Popen(argv, **kwargs)
        except OSError as exc:  # e.g. too long an argument list, or no process left to fork
            raise LaunchError(f"cannot start the research process ({exc.strerror or exc})") from None

    def _active(self) -> int:
        procs = [*self._children.values(), *self._starting.values()]
        return sum(1 for proc in procs if proc.poll() is None)

    def _free(self) -> bool:
        """A slot is free and nobody waits before us (call with the lock held)."""
        return not self._queue and self._active() < self.max_active

    async def start(
        self, args: list[str], command: tuple[str, ...] = ("run",), question: str | None = None
    ) -> str | Queued:
        """Start `research run ARGS --json` (or `research ask … ARGS`); return the new run's id once its folder
        exists, or, with every slot taken, its place in the queue."""
        argv = [*command, "--runs-dir", str(self.runs_dir), "--json", *args]
        ticket = f"q-{os.urandom(6).hex()}"
        with self._lock:
            if not self._free():
                self._queue.append(Waiting(ticket, argv, question))
                return Queued(ticket, len(self._queue))
            proc, out, err = self._spawn(argv, f"run-{ticket}")
            self._starting[ticket] = proc
        loop = asyncio.get_running_loop()
        deadline = loop.time() + START_TIMEOUT_S
        while True:
            run_id = _started(out)
            if run_id:
                self._named(ticket, run_id, proc, err)
                return run_id
            if proc.poll() is not None:
                message = _error_line(err.read_text(encoding="utf-8", errors="replace"))
                out.unlink(missing_ok=True)
                err.unlink(missing_ok=True)
                self._ended(ticket)
                raise LaunchError(message)
            if loop.time() > deadline:
                raise LaunchError("the research process did not create its run in time")
            await asyncio.sleep(0.05)

    def resume(self, run_dir: Path, flags: list[str]) -> Queued | None:
        """Start `research resume RUN_DIR FLAGS --json` for a run nothing works on (or queue it: its place)."""
        run_id = run_dir.name
        argv = ["resume", str(run_dir), "--json", *flags]
        with self._lock:
            if not self._free():
                ticket = f"q-{os.urandom(6).hex()}"
                self._queue.append(Waiting(ticket, argv, run_id=run_id))
                return Queued(ticket, len(self._queue))
            self._resume_now(run_id, argv)
        return None

    def _resume_now(self, run_id: str, argv: list[str]) -> None:
        proc, out, err = self._spawn(argv, f"resume-{run_id}-{os.urandom(4).hex()}")
        out.unlink(missing_ok=True)
        self._track(run_id, proc, err)

    def _named(self, ticket: str, run_id: str, proc: subprocess.Popen, err: Path) -> None:
        """A new run's child has created its run: track it by its id from now on."""
        with self._lock:
            self._starting.pop(ticket, None)
            self._track(run_id, proc, err)

    def _ended(self, ticket: str) -> None:
        with self._lock:
            self._starting.pop(ticket, None)
        self._pump()

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
        self._pump()

    def _pump(self) -> None:
        """Start what waits, in order, while slots are free."""
        with self._lock:
            while self._queue and self._active() < self.max_active:
                waiting = self._queue.popleft()
                try:
                    if waiting.run_id is not None:
                        self._resume_now(waiting.run_id, waiting.argv)
                        continue
                    proc, out, err = self._spawn(waiting.argv, f"run-{waiting.ticket}")
                except LaunchError as exc:
                    self._failed[waiting.ticket] = {**_row_of(waiting), "status": "failed", "status_reason": str(exc)}
                    continue
                self._starting[waiting.ticket] = proc
                threading.Thread(
                    target=self._identify, args=(waiting, proc, out, err), daemon=True, name=f"start-{waiting.ticket}"
                ).start()

    def _identify(self, waiting: Waiting, proc: subprocess.Popen, out: Path, err: Path) -> None:
        """Wait until a queued new run's child names its run (then track it), or ends without one (then say why)."""
        while True:
            run_id = _started(out)
            if run_id:
                self._named(waiting.ticket, run_id, proc, err)
                return
            if proc.poll() is not None:
                message = _error_line(err.read_text(encoding="utf-8", errors="replace"))
                out.unlink(missing_ok=True)
                err.unlink(missing_ok=True)
                with self._lock:
                    self._failed[waiting.ticket] = {**_row_of(waiting), "status": "failed", "status_reason": message}
                self._ended(waiting.ticket)
                return
            time.sleep(0.05)

    def queued(self) -> list[dict[str, Any]]:
        """The starts waiting in the queue, in order (the runs list shows them first), then the queued starts that
        ended without a run."""
        with self._lock:
            waiting = [{**_row_of(w), "position": i} for i, w in enumerate(self._queue, 1) if w.run_id is None]
            return [*waiting, *self._failed.values()]

    def position(self, run_id: str) -> int | None:
        """The place in the queue of a resume of `run_id` waiting there, else None."""
        with self._lock:
            return next((i for i, w in enumerate(self._queue, 1) if w.run_id == run_id), None)

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


def _row_of(waiting: Waiting) -> dict[str, Any]:
    """A queued start as the runs list shows it: no run yet, so no id, only its ticket and question."""
    return {
        "run_id": None,
        "ticket": waiting.ticket,
        "question": waiting.question,
        "status": QUEUED,
        "status_reason": None,
        "created_at": waiting.queued_at,
        "updated_at": waiting.queued_at,
        "duration_seconds": None,
        "engines": [],
        "models": [],
        "budget": {"limits": {}, "spent": {}},
        "live": False,
        "gate": None,
        "resumable": False,
    }


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
