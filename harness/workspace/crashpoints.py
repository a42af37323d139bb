"""Fault injection for the kill-and-resume tests.

`RESEARCH_CRASH_AT=<point>:<n>` kills the process with SIGKILL the n-th time execution
reaches `<point>` (e.g. `write:renamed:12`: right after the 12th artifact rename, before
its index entry). Without the variable — always, outside those tests — a crash point
costs one comparison.
"""

from __future__ import annotations

import os
import signal
import threading

_SPEC = os.environ.get("RESEARCH_CRASH_AT")
_POINT, _, _NTH = (_SPEC or "").rpartition(":")
_counts: dict[str, int] = {}
_lock = threading.Lock()


def crashpoint(name: str) -> None:
    if _SPEC is None or name != _POINT:
        return
    with _lock:
        _counts[name] = _counts.get(name, 0) + 1
        if _counts[name] == int(_NTH):
            os.kill(os.getpid(), signal.SIGKILL)
