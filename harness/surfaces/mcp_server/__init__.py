"""`research mcp`: verified research as an MCP server, for agents (Claude, Cursor, VS Code, LangGraph apps).

One more door over the same lifecycle as `research serve`: each run is its own `research`
process, decisions go through `approvals.record_decision`, and every answer is read from the
run folder. One concern per module: `desk` (the operations on the runs folder), `server` (the
MCP tools and resources, on the SDK's `MCPServer`), `guard` (Host, token and Origin for HTTP).
Over stdio by default; `--http` serves streamable HTTP, on the loopback address unless
`--host` says otherwise, where a token is required.
"""

from __future__ import annotations

import getpass
import os
import sys
from pathlib import Path

from harness.errors import UsageError, require_extra

__all__ = ["http_app", "mcp_command", "open_desk"]

MCP_PATH = "/mcp"


def open_desk(runs_dir: Path, corpus_roots: list[str] | None, cwd: Path | None = None):
    """The desk over `runs_dir` (created if missing), with the corpus roots `research serve` would allow."""
    from harness.surfaces.mcp_server.desk import ResearchDesk
    from harness.surfaces.serve.request import CorpusRoots

    cwd = cwd or Path.cwd()
    roots = CorpusRoots.parse(corpus_roots, cwd)
    runs_dir.mkdir(parents=True, exist_ok=True)
    return ResearchDesk(runs_dir, roots, cwd, f"{getpass.getuser()} (research mcp)")


def http_app(desk, host: str, token: str | None):
    """The streamable HTTP app at /mcp, behind the guard (a token is required when `token` is set)."""
    from harness.surfaces.mcp_server.guard import McpGuard
    from harness.surfaces.mcp_server.server import build_server

    return McpGuard(build_server(desk).streamable_http_app(host=host, streamable_http_path=MCP_PATH), token)


def mcp_command(runs_dir: Path, corpus_roots: list[str] | None, http: bool, host: str | None, port: int) -> int:
    """Serve MCP over stdio until the client closes it, or over streamable HTTP until Ctrl-C."""
    require_extra("research mcp", "mcp", ("mcp",))
    if host is not None and not http:
        raise UsageError("--host: only with --http (stdio has no address)")
    desk = open_desk(runs_dir, corpus_roots)
    try:
        if not http:
            from harness.surfaces.mcp_server.server import build_server

            print(f"research mcp: stdio; runs: {desk.runs_dir}", file=sys.stderr, flush=True)
            build_server(desk).run("stdio")
            return 0
        return _serve_http(desk, host or "127.0.0.1", port)
    finally:
        desk.close()  # the runs' processes go on


def _serve_http(desk, host: str, port: int) -> int:
    import uvicorn

    from harness.surfaces.mcp_server.guard import TOKEN_ENV
    from harness.surfaces.serve.security import is_loopback, new_token

    token = None if is_loopback(host) else (os.environ.get(TOKEN_ENV) or new_token())
    config = uvicorn.Config(http_app(desk, host, token), host=host, port=port, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    try:
        server.config.load()
        sock = server.config.bind_socket()
    except (OSError, SystemExit) as exc:
        raise UsageError(f"--port: cannot listen on {host}:{port} ({getattr(exc, 'strerror', None) or exc})") from None
    shown = f"[{host}]" if ":" in host else host
    print(f"research mcp: http://{shown}:{sock.getsockname()[1]}{MCP_PATH}", flush=True)
    if token is not None and not os.environ.get(TOKEN_ENV):
        print(f"token (send Authorization: Bearer TOKEN; set {TOKEN_ENV} to choose it): {token}", flush=True)
    print(f"runs: {desk.runs_dir}; corpus roots: {', '.join(desk.corpus_roots.describe())}", flush=True)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    print("research mcp: stopped (runs still going continue in their own processes)", flush=True)
    return 0
