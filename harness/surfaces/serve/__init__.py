"""`research serve`: a local web app to launch, steer and audit runs.

One concern per module: `app` (routes, pages, run files and the audit viewer),
`api` (the JSON API), `request` (a new-run request checked like `research run`'s
flags), `launcher` (each run in its own `research` process), `events` (the live
stream, tailed from trace.jsonl and run.json), `runs` (what a run folder says),
`states` (which statuses get which action), `security` (Host, token, CSRF).
The page itself is `static/` (HTML, CSS, one vanilla script).
"""

from __future__ import annotations

from pathlib import Path

from harness.errors import UsageError, require_extra
from harness.surfaces.serve.security import is_loopback, new_token

__all__ = ["serve_command"]


def serve_command(runs_dir: Path, host: str, port: int, corpus_roots: list[str] | None) -> int:
    """Serve the app until Ctrl-C; print its URL (with the login token when not on the loopback address)."""
    require_extra("research serve", "serve", ("starlette", "uvicorn", "sse_starlette"))
    import uvicorn

    from harness.surfaces.serve.app import ServeSettings, create_app
    from harness.surfaces.serve.request import CorpusRoots

    cwd = Path.cwd()
    runs_dir.mkdir(parents=True, exist_ok=True)
    token = None if is_loopback(host) else new_token()
    settings = ServeSettings(runs_dir, CorpusRoots.parse(corpus_roots, cwd), cwd, token)
    config = uvicorn.Config(create_app(settings), host=host, port=port, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    try:
        server.config.load()
        sock = server.config.bind_socket()
    except (OSError, SystemExit) as exc:
        raise UsageError(f"--port: cannot listen on {host}:{port} ({getattr(exc, 'strerror', None) or exc})") from None
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{sock.getsockname()[1]}/"
    print(f"research serve: {url}" + (f"login?token={token}" if token else ""), flush=True)
    print(f"runs: {settings.runs_dir}; corpus roots: {', '.join(settings.corpus_roots.describe())}", flush=True)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # Ctrl-C is how it stops; uvicorn re-raises it once it has shut down
        pass
    print("research serve: stopped (runs still going continue in their own processes)", flush=True)
    return 0
