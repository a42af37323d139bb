"""The web app: the pages, the run folders (read-only, with the audit viewer) and the JSON API.

Routes:

    GET /                         the app's one page (runs list, new run, run page: hash routes in serve.js)
    GET /static/{serve.js,serve.css}
    GET /login?token=…            sets the token cookie (only when the server needs a token)
    GET /runs/{run_id}/           the audit viewer of the run (`research view`'s page, rendered afresh)
    GET /runs/{run_id}/{path}     a file of the run, read-only (hidden paths, anything outside: 404)
    /api/…                        see api.py

The page is plain HTML, CSS and one vanilla script shipped in this package: no build
step, no CDN. Its Content-Security-Policy allows only its own script, style and API.
"""

from __future__ import annotations

import contextlib
import getpass
import html
from dataclasses import dataclass, field
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from harness.surfaces.serve.api import Api, ApiError, error_response
from harness.surfaces.serve.launcher import Launcher
from harness.surfaces.serve.limits import ServerLimits
from harness.surfaces.serve.request import CorpusRoots
from harness.surfaces.serve.runs import run_dir_of
from harness.surfaces.serve.security import (
    NAME_COOKIE,
    Guard,
    SecurityHeaders,
    clean_name,
    login_cookie,
    name_cookie,
    valid_login,
)
from harness.surfaces.viewer import render_viewer
from harness.surfaces.viewer.server import CONTENT_TYPES, servable_file

STATIC = Path(__file__).parent / "static"
STATIC_FILES = {"serve.js": "text/javascript; charset=utf-8", "serve.css": "text/css; charset=utf-8"}
PAGE_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
NO_SNIFF = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "Cache-Control": "no-store"}


@dataclass
class ServeSettings:
    runs_dir: Path
    corpus_roots: CorpusRoots
    cwd: Path
    token: str | None = None  # required on every request when set (`research serve` always sets one)
    user: str = ""
    loopback: bool = True  # listening on the loopback address: answer only requests addressed to it
    https: bool = False  # served over TLS (--certfile/--keyfile): cookies are Secure
    limits: ServerLimits = field(default_factory=ServerLimits)

    def __post_init__(self) -> None:
        self.runs_dir = self.runs_dir.resolve()
        self.user = self.user or f"{getpass.getuser()} (research serve)"


LOGIN_CSP = "default-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"


def login_page(token: str) -> str:
    """The login form: the name to record beside the OS user on each decision (no script, no style)."""
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>research serve: log in</title></head>'
        '<body><h1>research serve</h1><form method="get" action="/login">'
        f'<input type="hidden" name="token" value="{html.escape(token, quote=True)}">'
        '<p><label for="name">Your name, recorded beside the server\'s OS user on each decision you make:</label></p>'
        '<p><input id="name" name="name" maxlength="80" autofocus> <button type="submit">Continue</button></p>'
        "</form></body></html>"
    )


def _page(_request: Request) -> Response:
    html = (STATIC / "index.html").read_text(encoding="utf-8")
    return HTMLResponse(html, headers={**NO_SNIFF, "Content-Security-Policy": PAGE_CSP})


def _static(request: Request) -> Response:
    name = request.path_params["name"]
    if name not in STATIC_FILES:
        raise HTTPException(404)
    return FileResponse(STATIC / name, media_type=STATIC_FILES[name], headers=NO_SNIFF)


def _lifespan(launcher: Launcher):
    @contextlib.asynccontextmanager
    async def lifespan(_app):
        try:
            yield
        finally:
            launcher.close()  # the runs' processes go on; only the server's scratch files go

    return lifespan


def create_app(settings: ServeSettings, launcher: Launcher | None = None) -> Starlette:
    """The app over `settings.runs_dir`; `launcher` starts the runs' processes (one per app by default)."""
    launcher = launcher or Launcher(settings.runs_dir, settings.cwd, settings.limits.max_active_runs)
    api = Api(settings, launcher)

    def run_dir(request: Request) -> Path:
        found = run_dir_of(settings.runs_dir, request.path_params["run_id"])
        if found is None:
            raise HTTPException(404, "no such run")
        return found

    def viewer(request: Request) -> Response:
        # the viewer page carries its own Content-Security-Policy (its script and style by hash)
        found = run_dir(request)
        return HTMLResponse(render_viewer(found, app_link=f"/#/run/{found.name}"), headers=NO_SNIFF)

    def run_file(request: Request) -> Response:
        root = run_dir(request)
        target = servable_file(root, request.path_params["path"])
        if target is None:
            raise HTTPException(404, "not found")
        media = CONTENT_TYPES.get(target.suffix, "application/octet-stream")
        return FileResponse(
            target, media_type=media, headers={**NO_SNIFF, "Content-Security-Policy": "default-src 'none'"}
        )

    def login(request: Request) -> Response:
        token = request.query_params.get("token")
        if not valid_login(token, settings.token):
            return JSONResponse({"error": "token: wrong or missing"}, status_code=401)
        if "name" not in request.query_params:  # first ask the name each decision will record
            return HTMLResponse(login_page(token or ""), headers={**NO_SNIFF, "Content-Security-Policy": LOGIN_CSP})
        response = RedirectResponse("/", status_code=303)
        response.set_cookie(**login_cookie(settings.token or "", settings.https))
        name = clean_name(request.query_params.get("name"))
        if name:
            response.set_cookie(**name_cookie(name, settings.https))
        else:
            response.delete_cookie(NAME_COOKIE, path="/")
        return response

    async def api_error(_request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ApiError)
        return error_response(exc)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if request.url.path == "/api" or request.url.path.startswith("/api/"):
            return JSONResponse({"error": exc.detail}, status_code=exc.status_code)
        return PlainTextResponse(str(exc.detail), status_code=exc.status_code, headers=NO_SNIFF)

    routes = [
        Route("/", _page, methods=["GET"]),
        Route("/static/{name}", _static, methods=["GET"]),
        Route("/favicon.ico", lambda _r: Response(status_code=204), methods=["GET"]),
        Route("/login", login, methods=["GET"]),
        Route("/runs/{run_id}", lambda r: RedirectResponse(f"/runs/{r.path_params['run_id']}/"), methods=["GET"]),
        Route("/runs/{run_id}/", viewer, methods=["GET"]),
        Route("/runs/{run_id}/index.html", viewer, methods=["GET"]),
        Route("/runs/{run_id}/{path:path}", run_file, methods=["GET"]),
        *api.routes(),
    ]
    app = Starlette(
        routes=routes,
        middleware=[Middleware(SecurityHeaders), Middleware(Guard, token=settings.token, loopback=settings.loopback)],
        exception_handlers={ApiError: api_error, HTTPException: http_error},
        lifespan=_lifespan(launcher),
    )
    app.state.settings = settings
    app.state.launcher = launcher
    return app
