"""Who may talk to the app, and which requests may change state.

- On 127.0.0.1 (the default) only requests whose Host names the loopback address are
  answered, so a web page elsewhere cannot reach the app by DNS rebinding.
- On any other `--host`, a random token is printed at start; `GET /login?token=…` sets
  it as an HttpOnly, SameSite=Strict cookie, and every other request needs that cookie
  (or `Authorization: Bearer TOKEN`, for curl).
- Cross-site request forgery: a request that changes state (anything but GET/HEAD) must
  carry the custom header `X-Research-Request: 1` (which a cross-site form cannot send,
  and a cross-site script cannot send without a CORS preflight the app never grants),
  and, when the browser says where it comes from, an `Origin` of this app and a
  `Sec-Fetch-Site` of same-origin.

Refusals are JSON with one line (`{"error": …}`) and 401 or 403.
"""

from __future__ import annotations

import hmac
import json
import secrets
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

TOKEN_COOKIE = "research_token"
CSRF_HEADER = "x-research-request"
LOOPBACK = ("127.0.0.1", "localhost", "::1")
SAFE_METHODS = ("GET", "HEAD")
LOGIN_PATH = "/login"


def is_loopback(host: str) -> bool:
    return host in LOOPBACK


def new_token() -> str:
    return secrets.token_urlsafe(32)


def _host_name(host_header: str) -> str:
    return (urlsplit(f"//{host_header}").hostname or "").lower()


class Guard:
    """ASGI middleware: the Host check (loopback), the token (elsewhere) and the CSRF checks, before any route."""

    def __init__(self, app: ASGIApp, token: str | None):
        self.app = app
        self.token = token

    def refusal(self, scope: Scope) -> tuple[int, str] | None:
        headers = Headers(scope=scope)
        host = headers.get("host", "")
        if self.token is None and _host_name(host) not in LOOPBACK:
            return 403, f"Host {host or '(none)'}: this server answers only on the loopback address"
        if self.token is not None and scope["path"] != LOGIN_PATH and not self._has_token(headers):
            return 401, "a token is required: open the URL printed at start, or send Authorization: Bearer TOKEN"
        if scope["method"] not in SAFE_METHODS:
            if headers.get(CSRF_HEADER) != "1":
                return (
                    403,
                    "X-Research-Request: 1 is required on requests that change state (cross-site request refused)",
                )
            origin = headers.get("origin")
            if origin and (urlsplit(origin).netloc or "").lower() != host.lower():
                return 403, f"Origin {origin}: cross-site request refused"
            site = headers.get("sec-fetch-site")
            if site and site not in ("same-origin", "none"):
                return 403, f"Sec-Fetch-Site {site}: cross-site request refused"
        return None

    def _has_token(self, headers: Headers) -> bool:
        assert self.token is not None
        offered = []
        auth = headers.get("authorization", "")
        if auth.lower().startswith("bearer "):
            offered.append(auth[7:].strip())
        for part in headers.get("cookie", "").split(";"):
            name, _, value = part.strip().partition("=")
            if name == TOKEN_COOKIE:
                offered.append(value)
        return any(hmac.compare_digest(v.encode(), self.token.encode()) for v in offered)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refused = self.refusal(scope)
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


# On every answer of the app, pages, viewer, files and API alike: no site may frame it (clickjacking; a <meta>
# policy cannot say frame-ancestors, so the viewer's page needs this header too), and no browser sniffs a type.
EVERY_RESPONSE = (
    (b"content-security-policy", b"frame-ancestors 'none'"),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
)


class SecurityHeaders:
    """ASGI middleware: `EVERY_RESPONSE`'s headers on every answer (a route's own policy is kept beside them;
    browsers enforce every Content-Security-Policy header they get)."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message) -> None:
            if message["type"] == "http.response.start":
                have = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in EVERY_RESPONSE if k != b"x-content-type-options" or k not in have]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, with_headers)


def login_cookie(token: str) -> dict[str, object]:
    """The Set-Cookie arguments for the token: HttpOnly (no script reads it), SameSite=Strict, whole site."""
    return {"key": TOKEN_COOKIE, "value": token, "httponly": True, "samesite": "strict", "path": "/"}


def valid_login(offered: str | None, token: str | None) -> bool:
    return bool(token and offered and hmac.compare_digest(offered.encode(), token.encode()))
