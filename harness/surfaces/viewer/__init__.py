"""`research view`: a self-contained HTML viewer of one run, written as the workspace's index.html.

The page needs no network and opens from disk: the timeline (trace.jsonl), the plan and
its approval, sources, evidence cards and claims (filterable by status and question),
every draft with the diff to the previous one and its reviews' defects linked to the
lines they point at, and the final report, where a citation opens its claim, its cards
and the quote highlighted in the source snapshot. All text is escaped.

Modules, one concern each: `collect` (read the workspace), `model` (the typed view of a run it
reads), `markup` (escape-by-default HTML building, and Markdown rendered by markdown-it-py with raw
HTML off), `page` (the page itself, with `viewer.css` and `viewer.js`), `server` (read-only serving
on 127.0.0.1).
"""

from __future__ import annotations

import threading
from pathlib import Path

from harness.contract.layout import VIEWER
from harness.contract.policy import HARNESS
from harness.errors import UsageError
from harness.surfaces.viewer import server as _server
from harness.surfaces.viewer.collect import collect
from harness.surfaces.viewer.page import render_page
from harness.surfaces.viewer.server import serve
from harness.workspace.store import Workspace

__all__ = ["build_viewer", "render_viewer", "serve", "view_command"]


def render_viewer(run_dir: Path | str, app_link: str | None = None) -> str:
    """The viewer page for the workspace at `run_dir`, without writing it; `app_link`: the run's page in the app
    serving it (`research serve`), linked from the header (the page written into the run folder has none)."""
    return render_page(collect(run_dir).linked(app_link))


def build_viewer(run_dir: Path | str) -> Path:
    """Write index.html into the workspace (through the workspace API, as the harness) and return its path.

    Takes the run lock while writing, so it never races a process working on the run.
    """
    ws = Workspace.open(run_dir)
    ws.acquire_run_lock()
    try:
        ws.write(VIEWER, render_viewer(ws.root), HARNESS)
    finally:
        ws.release_run_lock()
    return ws.root / VIEWER


def view_command(run_dir: Path, serve: bool, port: int) -> int:
    """`research view RUN_DIR [--serve] [--port N]`: print the page's path, or serve it until Ctrl-C."""
    path = build_viewer(run_dir)
    if not serve:
        print(path)
        return 0
    try:
        server, url = _server.serve(path.parent, port)
    except OSError as exc:
        raise UsageError(f"--port: cannot listen on {_server.HOST}:{port} ({exc.strerror or exc})") from None
    print(url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()
        server.server_close()
    return 0
