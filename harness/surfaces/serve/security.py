"""Who may talk to the app, and which requests may change state.

- A token on every host, loopback included (as Jupyter does: any local user or process
  could otherwise launch runs, approve gates and spend the owner's API keys). It is new at
  each start, or kept in `--token-file` (rotated by changing the file), and printed as a
  login URL; `GET /login?token=…` asks the name to record beside the OS user on each
  decision, then sets the token (and the name) as HttpOnly, SameSite=Strict cookies, and
  every other request needs that cookie (or `Authorization: Bearer TOKEN`, for curl).
- On 127.0.0.1 (the default) only requests whose Host names the loopback address are
  answered, so a web page elsewhere cannot reach the app by DNS rebinding.
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
import os
import secrets
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from harness.errors import UsageError

TOKEN_COOKIE = "research_token"
NAME_COOKIE = "research_name"  # the name given at login, recorded beside the OS user on each decision
MAX_NAME = 80
MIN_TOKEN = 16
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
    """ASGI middleware: the Host check (on loopback), the token (when the app has one) and the CSRF checks, before
    any route."""

    def __init__(self, app: ASGIApp, token: str | None, loopback: bool = True):
        self.app = app
        self.token = token
        self.loopback = loopback

    def refusal(self, scope: Scope) -> tuple[int, str] | None:
        headers = Headers(scope=scope)
        host = headers.get("host", "")
        if self.loopback and _host_name(host) not in LOOPBACK:
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


def login_cookie(token: str, secure: bool = False) -> dict[str, Any]:
    """The Set-Cookie arguments for the token: HttpOnly (no script reads it), SameSite=Strict, whole site (and
    Secure over HTTPS)."""
    return {"key": TOKEN_COOKIE, "value": token, "httponly": True, "samesite": "strict", "path": "/", "secure": secure}


def name_cookie(name: str, secure: bool = False) -> dict[str, Any]:
    """The Set-Cookie arguments for the name given at login (quoted: any text fits a cookie)."""
    return {**login_cookie("", secure), "key": NAME_COOKIE, "value": quote(name, safe="")}


def login_name(cookie_header: str) -> str | None:
    """The name given at login, from the request's cookies."""
    for part in cookie_header.split(";"):
        key, _, value = part.strip().partition("=")
        if key == NAME_COOKIE and value:
            return clean_name(unquote(value.strip('"')))
    return None


def clean_name(name: str | None) -> str | None:
    """A name as decisions record it: one line, printable, at most `MAX_NAME` characters; None if nothing is left."""
    text = " ".join("".join(c for c in (name or "") if c.isprintable()).split())[:MAX_NAME]
    return text or None


def token_from_file(path: Path) -> str:
    """The token kept in `path` (`--token-file`): read when the file exists, else a new one written there (0600).
    Rotate it by replacing the file's content or removing the file; a restart then uses the new token."""
    try:
        text = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        token = new_token()
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(token + "\n")
        except OSError as exc:
            raise UsageError(f"--token-file {path}: cannot write it ({exc.strerror or exc})") from None
        return token
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"--token-file {path}: cannot read it ({getattr(exc, 'strerror', None) or exc})") from None
    if len(text) < MIN_TOKEN or any(c.isspace() or not c.isprintable() for c in text):
        raise UsageError(f"--token-file {path}: expected one token of at least {MIN_TOKEN} characters, no spaces")
    return text


def valid_login(offered: str | None, token: str | None) -> bool:
    return bool(token and offered and hmac.compare_digest(offered.encode(), token.encode()))
