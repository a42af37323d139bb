"""Who may reach `research mcp --http`: the Host and Origin checks of `research serve`, and its token elsewhere.

- On the loopback address (the default) only requests whose Host names the loopback address
  are answered (no DNS rebinding), as `research serve` does; the SDK adds its own check too.
- On any other `--host`, every request needs `Authorization: Bearer TOKEN` (the token from
  `RESEARCH_MCP_TOKEN`, or a random one printed at start), compared in constant time.
- Everywhere, a request whose browser says where it comes from (`Origin`) must come from this
  server (a web page elsewhere cannot drive it).

MCP clients send JSON-RPC in POSTs without `research serve`'s CSRF header, so only that check
of serve's `Guard` is not applied: the token (or the loopback Host) and the Origin stand in for it.
Refusals are JSON `{"error": one line}` with 401 or 403, like serve's.
"""

from __future__ import annotations

import json
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from harness.surfaces.serve.security import is_loopback, valid_login

TOKEN_ENV = "RESEARCH_MCP_TOKEN"


class McpGuard:
    """ASGI middleware in front of the MCP endpoint: Host (loopback) or token (elsewhere), then Origin."""

    def __init__(self, app: ASGIApp, token: str | None):
        self.app = app
        self.token = token

    def refusal(self, scope: Scope) -> tuple[int, str] | None:
        headers = Headers(scope=scope)
        host = headers.get("host", "")
        if self.token is None and not is_loopback((urlsplit(f"//{host}").hostname or "").lower()):
            return 403, f"Host {host or '(none)'}: this server answers only on the loopback address"
        if self.token is not None:
            auth = headers.get("authorization", "")
            offered = auth[7:].strip() if auth.lower().startswith("bearer ") else None
            if not valid_login(offered, self.token):
                return 401, f"a token is required: send Authorization: Bearer TOKEN (the server's {TOKEN_ENV})"
        origin = headers.get("origin")
        if origin and (urlsplit(origin).netloc or "").lower() != host.lower():
            return 403, f"Origin {origin}: cross-site request refused"
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        refused = self.refusal(scope) if scope["type"] == "http" else None
        if refused is None:
            await self.app(scope, receive, send)
            return
        status, message = refused
        body = json.dumps({"error": message}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
            }
        )
        await send({"type": "http.response.body", "body": body})
