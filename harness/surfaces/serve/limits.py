"""How long and how large a request may be, set on the server itself (uvicorn over h11).

uvicorn bounds the idle time between requests (keep-alive), not the time a client takes to
send one: a request head sent a byte a second would hold a connection for as long as the
client likes. `TimedH11` adds the two deadlines h11 leaves to its host: the head of each
request must arrive within `head_seconds` of its first byte, and its body within
`body_seconds` of its head; past either, the connection is closed (a 408 first, while no
answer has begun). The head's size is bounded by h11 (`h11_max_incomplete_event_size`,
answered 400), the body's by the API (`api.MAX_BODY_BYTES`, answered 413).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from harness.surfaces.serve.launcher import DEFAULT_MAX_ACTIVE

TIMEOUT_408 = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain\r\nconnection: close\r\ncontent-length: 0\r\n\r\n"
)


@dataclass(frozen=True)
class ServerLimits:
    """The server's bounds; every one a `research serve` setting with this default."""

    head_seconds: float = 10.0  # to send a request's line and headers, from its first byte
    body_seconds: float = 30.0  # to send its body, from the end of its head
    max_head_bytes: int = 32 * 1024  # a request's line and headers together
    max_active_runs: int = DEFAULT_MAX_ACTIVE  # run processes at once; more wait in a queue (launcher.py)


def timed_h11(limits: ServerLimits) -> type[H11Protocol]:
    """uvicorn's h11 protocol with `limits`' head and body deadlines."""

    class TimedH11(H11Protocol):
        def __init__(self, *args: Any, **kwargs: Any):
            super().__init__(*args, **kwargs)
            self._deadline: asyncio.TimerHandle | None = None
            self._phase: Any = None

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            self._watch()

        def handle_events(self) -> None:
            super().handle_events()
            self._watch()

        def connection_lost(self, exc: Exception | None) -> None:
            self._arm(None, 0)
            super().connection_lost(exc)

        def _watch(self) -> None:
            """Arm the deadline of the phase the client is in: sending a head, a body, or neither."""
            state = self.conn.their_state
            if state is h11.IDLE and self.conn.trailing_data[0]:  # a head has begun
                self._arm("head", limits.head_seconds)
            elif state is h11.SEND_BODY:
                self._arm("body", limits.body_seconds)
            else:
                self._arm(None, 0)

        def _arm(self, phase: str | None, seconds: float) -> None:
            if phase == self._phase:
                return
            if self._deadline is not None:
                self._deadline.cancel()
            self._deadline, self._phase = None, phase
            if phase is not None and not self.transport.is_closing():
                self._deadline = self.loop.call_later(seconds, self._expired)

        def _expired(self) -> None:
            self._deadline = None
            if self.transport.is_closing():
                return
            answered = self._phase == "body" and self.cycle is not None and self.cycle.response_started
            if not answered:  # no answer has begun on this connection for this request: say why it ends
                self.transport.write(TIMEOUT_408)
            self.transport.close()

    return TimedH11


def uvicorn_settings(limits: ServerLimits) -> dict[str, Any]:
    """The uvicorn.Config arguments that carry `limits`."""
    return {"http": timed_h11(limits), "h11_max_incomplete_event_size": limits.max_head_bytes}
