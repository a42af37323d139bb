"""A small "web" served from 127.0.0.1 (port 0): routes, a request counter and an in-flight gauge.

Used by the fetcher's tests and by `bench/bench_web.py`; nothing here talks to any other address.
"""

from __future__ import annotations

import gzip
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass(frozen=True)
class Reply:
    status: int = 200
    content_type: str | None = "text/html; charset=utf-8"
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds before answering
    send_length: bool = True
    encoding: str | None = None  # "gzip" or "br": the body is compressed on the way out


def redirect(location: str, status: int = 302) -> Reply:
    return Reply(status, None, headers={"Location": location})


Route = Reply | Callable[[str], Reply]  # a reply, or a function of the full request path


class LocalSite:
    """A threaded HTTP server on 127.0.0.1 serving `routes` (path without query -> Route); 404 elsewhere."""

    def __init__(self, routes: dict[str, Route] | None = None):
        self.routes: dict[str, Route] = dict(routes or {})
        self.hits: Counter[str] = Counter()
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        site = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):  # noqa: N802 - http.server's naming
                site._serve(self)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def url(self, path: str) -> str:
        return self.base + path

    def __enter__(self) -> LocalSite:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _serve(self, handler: BaseHTTPRequestHandler) -> None:
        path = handler.path.split("?", 1)[0]
        with self._lock:
            self.hits[path] += 1
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            route = self.routes.get(path)
            reply = route(handler.path) if callable(route) else route
            if reply is None:
                reply = Reply(404, "text/plain", b"no such page")
            if reply.delay:
                time.sleep(reply.delay)
            with self._lock:  # counted until the answer starts: the client holds its slot until then at least
                self.in_flight -= 1
            body = reply.body
            if reply.encoding == "gzip":
                body = gzip.compress(body)
            elif reply.encoding == "br":
                import brotli

                body = brotli.compress(body)
            handler.send_response(reply.status)
            if reply.content_type:
                handler.send_header("Content-Type", reply.content_type)
            if reply.encoding:
                handler.send_header("Content-Encoding", reply.encoding)
            for name, value in reply.headers.items():
                handler.send_header(name, value)
            if reply.send_length:
                handler.send_header("Content-Length", str(len(body)))
            handler.send_header("Connection", "close")
            handler.end_headers()
            handler.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout, size limit)
            pass


def html_page(title: str, body: str, *, chrome: bool = True) -> bytes:
    """An HTML page with `body` as its article, and (with `chrome`) a cookie banner, navigation and a footer
    marked up the way many sites do: with class names only, no semantic tags."""
    banner = (
        '<div class="top"><p>We use cookies to improve your experience on our site. By continuing you agree to '
        "our use of cookies.</p><a href='#'>Accept all</a> <a href='#'>Settings</a></div>"
        '<div class="menu"><ul><li><a href="/">Home</a></li><li><a href="/news">News</a></li>'
        '<li><a href="/about">About us</a></li></ul></div>'
        if chrome
        else ""
    )
    footer = (
        '<div class="bottom"><p>Copyright 2024 Example Corp. All rights reserved.</p><a href="/p">Privacy</a> | '
        '<a href="/t">Terms</a></div>'
        if chrome
        else ""
    )
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{title}</title></head><body>{banner}"
        f'<div class="content"><h1>{title}</h1>{body}</div>{footer}</body></html>'
    ).encode()
