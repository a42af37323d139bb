"""A local site on 127.0.0.1 (port 0) serving any routes, with a request counter and an in-flight gauge, and
builders of realistic pages (cookie banners, navigation, sidebars, footers; 20-80 KB articles).

Used by the fetcher's tests and by `bench/bench_web.py`; nothing here talks to any other address. (The
search half's scenario, a SearXNG-compatible endpoint and its pages, is `localweb.py`.)
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


_WORDS = (
    "the of and to in is that for it as with was on be by this are from at or an which have not but has its "
    "task group error cancel exception loop event await future result timeout handler request server client "
    "cache policy page source evidence claim report review draft quote snapshot search index passage river "
    "flood town rain bridge market price growth energy solar wind battery grid storage policy city transport"
).split()


def prose(seed: int, words: int) -> str:
    """Deterministic English-like sentences (a linear congruential generator, so no `random` state is shared)."""
    state, out, sentence = seed * 2654435761 % 2**32 or 1, [], []
    for _ in range(words):
        state = (1103515245 * state + 12345) % 2**31
        sentence.append(_WORDS[state % len(_WORDS)])
        if len(sentence) >= 8 + state % 14:
            out.append(" ".join(sentence).capitalize() + ".")
            sentence = []
    if sentence:
        out.append(" ".join(sentence).capitalize() + ".")
    return " ".join(out)


def realistic_article(seed: int, kb: int, *, title: str | None = None, fact: str = "") -> bytes:
    """An article page of about `kb` kilobytes as many sites serve it: a cookie banner, a navigation bar, a
    sidebar of links, headings and paragraphs, `fact` in the middle, a share bar and a long footer."""
    title = title or f"Report {seed}: storage and the grid"
    nav = "".join(f'<li><a href="/s/{i}">Section {i}</a></li>' for i in range(12))
    side = "".join(f'<li><a href="/r/{seed}-{i}">Related story {i}</a></li>' for i in range(20))
    paras, size, i = [], 0, 0
    while size < kb * 1000 * 0.8:
        p = prose(seed * 1000 + i, 90)
        if i == 6 and fact:
            p = f"{p} {fact}"
        paras.append(f"<h2>Part {i}</h2><p>{p}</p>" if i % 4 == 0 else f"<p>{p}</p>")
        size += len(p) + 20
        i += 1
    body = (
        '<div id="consent" class="cookie-consent"><p>We use cookies to improve your experience. By continuing '
        "you agree to our cookie policy.</p><button>Accept all</button><button>Settings</button></div>"
        f'<header class="site-header"><nav class="main-nav"><ul>{nav}</ul></nav></header>'
        f'<aside class="sidebar"><h3>Related</h3><ul>{side}</ul></aside>'
        f'<article><h1>{title}</h1><p class="byline">By Staff Writer</p>{"".join(paras)}</article>'
        '<div class="share-bar">Share this: <a>Twitter</a> <a>Facebook</a> <a>Email</a></div>'
        '<footer class="site-footer"><p>Copyright 2024 Example Media. All rights reserved.</p>'
        + "".join(f'<a href="/f/{i}">Footer link {i}</a> | ' for i in range(30))
        + "</footer>"
    )
    head = f"<head><meta charset='utf-8'><title>{title}</title><style>{'.x{color:red}' * 200}</style></head>"
    return f"<!doctype html><html>{head}<body>{body}<script>{'var a=1;' * 300}</script></body></html>".encode()
