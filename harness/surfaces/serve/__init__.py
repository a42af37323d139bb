"""`research serve`: a local web app to launch, steer and audit runs.

One concern per module: `app` (routes, pages, run files and the audit viewer),
`api` (the JSON API), `request` (a new-run request checked like `research run`'s
flags), `launcher` (each run in its own `research` process), `events` (the live
stream, tailed from trace.jsonl and run.json), `runs` (what a run folder says),
`signoff` (the final gate's report as its sign-off prints it, and each cited quote in its source),
`states` (which statuses get which action), `security` (Host, token, CSRF, the headers
on every answer), `limits` (the server's deadlines and sizes, and how many runs at once).
The page itself is `static/` (HTML, CSS, one vanilla script).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.errors import UsageError, require_extra
from harness.surfaces.serve.security import is_loopback, new_token, token_from_file

__all__ = ["serve_command"]


def serve_command(
    runs_dir: Path,
    host: str,
    port: int,
    corpus_roots: list[str] | None,
    *,
    max_active_runs: int | None = None,
    token_file: Path | None = None,
    certfile: Path | None = None,
    keyfile: Path | None = None,
) -> int:
    """Serve the app until Ctrl-C; print its login URL (the token: new at each start, or `token_file`'s)."""
    require_extra("research serve", "serve", ("starlette", "uvicorn", "sse_starlette"))
    import uvicorn

    from harness.surfaces.serve.app import ServeSettings, create_app
    from harness.surfaces.serve.limits import ServerLimits, uvicorn_settings
    from harness.surfaces.serve.request import CorpusRoots

    if max_active_runs is not None and max_active_runs < 1:
        raise UsageError(f"--max-active-runs {max_active_runs}: must be at least 1")
    if (certfile is None) != (keyfile is None):
        raise UsageError("--certfile/--keyfile: give both, or neither")
    for flag, path in (("--certfile", certfile), ("--keyfile", keyfile)):
        if path is not None and not path.is_file():
            raise UsageError(f"{flag} {path}: no such file")
    cwd = Path.cwd()
    runs_dir.mkdir(parents=True, exist_ok=True)
    token = token_from_file(token_file) if token_file is not None else new_token()
    limits = ServerLimits(**({"max_active_runs": max_active_runs} if max_active_runs else {}))
    https = certfile is not None
    settings = ServeSettings(
        runs_dir,
        CorpusRoots.parse(corpus_roots, cwd),
        cwd,
        token,
        loopback=is_loopback(host),
        https=https,
        limits=limits,
    )
    tls: dict[str, Any] = {"ssl_certfile": str(certfile), "ssl_keyfile": str(keyfile)} if https else {}
    config = uvicorn.Config(
        create_app(settings),
        host=host,
        port=port,
        log_level="warning",
        lifespan="on",
        **uvicorn_settings(limits),
        **tls,
    )
    server = uvicorn.Server(config)
    try:
        server.config.load()
        sock = server.config.bind_socket()
        sock.listen(config.backlog)  # before the URL is printed: a client that reads it at once is queued, not refused
    except (OSError, SystemExit) as exc:
        raise UsageError(f"--port: cannot listen on {host}:{port} ({getattr(exc, 'strerror', None) or exc})") from None
    shown = f"[{host}]" if ":" in host else host
    url = f"{'https' if https else 'http'}://{shown}:{sock.getsockname()[1]}/"
    print(f"research serve: {url}login?token={token}", flush=True)
    print(
        f"runs: {settings.runs_dir}; corpus roots: {', '.join(settings.corpus_roots.describe())}; "
        f"at most {limits.max_active_runs} runs at once",
        flush=True,
    )
    if not https and not is_loopback(host):
        print(
            f"research serve: warning: {host} is not the loopback address and this is plain HTTP: the token crosses "
            "the network in clear; serve HTTPS (--certfile/--keyfile) or put a TLS proxy in front",
            flush=True,
        )
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # Ctrl-C is how it stops; uvicorn re-raises it once it has shut down
        pass
    print("research serve: stopped (runs still going continue in their own processes)", flush=True)
    return 0
