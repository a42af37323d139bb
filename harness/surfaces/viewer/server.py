"""Serving a run folder read-only on 127.0.0.1, so the viewer's relative links work.

GET and HEAD only (http.server answers 501 to anything else). Hidden paths (the
harness's private `.harness/` folder, dotfiles) and anything resolving outside the
run folder are 404, directories are never listed, and text artifacts are sent as
text/plain with `nosniff`, so a source snapshot holding HTML is shown, never rendered.
"""

from __future__ import annotations

import os
import threading
import urllib.parse
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from harness.workspace.paths import servable

HOST = "127.0.0.1"
CONTENT_TYPES = {  # text is sent as text/plain: a snapshot holding HTML is shown, never rendered
    ".html": "text/html; charset=utf-8",
    ".json": "application/json; charset=utf-8",
    ".jsonl": "text/plain; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".md": "text/plain; charset=utf-8",
}


def servable_file(root: Path, rel: str) -> Path | None:
    """The file `rel` names under the run folder `root`, or None: the workspace's one rule (`paths.servable`:
    nothing hidden, nothing resolving outside or into `.harness/`), and never a folder."""
    target = servable(root, rel)
    return target if target is not None and target.is_file() else None


class _ReadOnlyHandler(SimpleHTTPRequestHandler):
    def __init__(self, *args, directory: str, **kwargs):
        self.root = Path(directory).resolve()
        super().__init__(*args, directory=directory, **kwargs)

    def _allowed(self) -> Path | None:
        rel = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path).lstrip("/") or "index.html"
        return servable_file(self.root, rel)

    def send_head(self):  # noqa: D102 - http.server hook
        target = self._allowed()
        if target is None:
            self.send_error(404, "Not found")
            return None
        try:
            fh = open(target, "rb")
        except OSError:
            self.send_error(404, "Not found")
            return None
        size = os.fstat(fh.fileno()).st_size
        self.send_response(200)
        self.send_header("Content-Type", CONTENT_TYPES.get(target.suffix, "application/octet-stream"))
        self.send_header("Content-Length", str(size))
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Content-Security-Policy", "frame-ancestors 'none'")  # a <meta> policy cannot say it
        self.send_header("X-Frame-Options", "DENY")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Referrer-Policy", "no-referrer")
        self.end_headers()
        return fh

    def list_directory(self, path):  # never list folders
        self.send_error(404, "Not found")
        return None

    def log_message(self, format, *args):  # quiet: the command prints the URL, not every request
        pass


def serve(run_dir: Path | str, port: int = 0) -> tuple[ThreadingHTTPServer, str]:
    """Serve `run_dir` on 127.0.0.1 in a background thread; returns (server, URL of index.html).

    Stop it with `server.shutdown(); server.server_close()`.
    """
    root = Path(run_dir).resolve()
    server = ThreadingHTTPServer((HOST, port), partial(_ReadOnlyHandler, directory=str(root)))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="research-viewer", daemon=True)
    thread.start()
    return server, f"http://{HOST}:{server.server_address[1]}/index.html"
