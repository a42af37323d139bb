"""A threaded HTTP server on 127.0.0.1 that hands every request to one callable: the part the
local provider stubs (Gemini, OpenAI-compatible) share, so each stub holds only its API."""

from __future__ import annotations

import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

Handle = Callable[[BaseHTTPRequestHandler], None]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    handle_request_with: Handle


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"  # one request per connection; end of stream = close
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - silence stderr
        return

    def do_GET(self) -> None:  # noqa: N802
        self.server.handle_request_with(self)

    do_POST = do_GET  # noqa: N815
    do_PUT = do_GET  # noqa: N815
    do_DELETE = do_GET  # noqa: N815
    do_PATCH = do_GET  # noqa: N815


class LocalServer:
    """Serves `handle` on `host` at an ephemeral port, in a daemon thread, until `close()`."""

    def __init__(self, handle: Handle, *, host: str = "127.0.0.1", name: str = "http-stub") -> None:
        self._server = _Server((host, 0), _Handler)
        self._server.handle_request_with = handle
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name=name, daemon=True
        )
        self._thread.start()

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


class ServedStub:
    """The lifecycle a local API stub shares: `start()` serves its `_handle` (once), `close()` stops it, and it is a
    context manager. A stub sets `_server = None` in its `__init__` and may set `_host` and `_name`."""

    _server: LocalServer | None
    _host = "127.0.0.1"
    _name = "http-stub"

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        raise NotImplementedError

    def start(self) -> Self:
        if self._server is None:
            self._server = LocalServer(self._handle, host=self._host, name=self._name)
        return self

    def close(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
