"""The live event stream of one run, read from what the harness writes: `trace.jsonl` and `run.json`.

Nothing is recorded twice. Each subscriber tails the run's own files: every new line
of `trace.jsonl` goes out as a `trace` event, the line's event and the page's line for it (`fragments.trace_html`;
its id is its line number, so a browser
that reconnects with `Last-Event-ID` gets exactly the lines it missed), and whenever
`run.json` changes (status, branches, budget), new trace lines arrive, or a process
starts or stops working on the run, a `run` event carries the run page's detail read afresh. Two browsers watching
one run read the same files, so they see the same events.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from harness.contract.layout import RUN, TRACE
from harness.surfaces.serve.fragments import trace_html
from harness.workspace.paths import servable

POLL_S = 0.25


class TraceTail:
    """Complete lines appended to trace.jsonl since the last read (a line being written waits for its newline)."""

    def __init__(self, run_dir: Path, skip_lines: int = 0):
        self.run_dir = run_dir
        self.offset = 0
        self.line_no = 0
        self._skip = skip_lines

    def read(self) -> list[tuple[int, dict[str, Any]]]:
        path = servable(self.run_dir, TRACE)  # the run's own trace, never a file a symlink points at
        if path is None:
            return []
        try:
            with open(path, "rb") as fh:
                fh.seek(self.offset)
                chunk = fh.read()
        except OSError:
            return []
        end = chunk.rfind(b"\n")
        if end < 0:
            return []
        self.offset += end + 1
        out = []
        for raw in chunk[: end + 1].splitlines():
            self.line_no += 1
            if self.line_no <= self._skip:
                continue
            try:
                event = json.loads(raw)
            except ValueError:
                continue  # a torn line (a crash mid-write) is skipped, as every trace reader does
            if isinstance(event, dict):
                out.append((self.line_no, event))
        return out


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


async def run_events(
    run_dir: Path,
    snapshot: Callable[[], dict[str, Any]],
    live: Callable[[], bool],
    disconnected: Callable[[], Awaitable[bool]],
    last_event_id: int = 0,
) -> AsyncIterator[dict[str, Any]]:
    """Server-sent events for the run at `run_dir` until the client goes away: `run` snapshots and `trace` lines."""
    tail = TraceTail(run_dir, skip_lines=last_event_id)
    seen: tuple[Any, ...] | None = None
    while not await disconnected():
        for line_no, event in tail.read():
            data = {"event": event, "line": trace_html(event)}
            yield {"event": "trace", "id": str(line_no), "data": json.dumps(data, ensure_ascii=False)}
        state = (_stamp(run_dir / RUN), live(), tail.line_no)  # a new card is a trace line before run.json lists it
        if state != seen:
            seen = state
            yield {
                "event": "run",
                "id": str(max(tail.line_no, last_event_id)),
                "data": json.dumps(snapshot(), ensure_ascii=False, default=str),
            }
        await asyncio.sleep(POLL_S)
