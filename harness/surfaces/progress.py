"""What `research run` shows while it works: a live panel (rich), a JSON event stream, or nothing.

The live panel shows the current stage, the research branches in flight, the counts of
sources, cards, claims and defects, and the budget spent. Counts come from
`harness.summary.summarize`, the same data `research inspect` and the viewer read.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from typing import Any

from rich.console import Console, Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

from harness.surfaces.summary import summarize


class JsonEvents:
    """--json: one JSON object per line on stdout, each with a timestamp."""

    def __init__(self, stream=None):
        self.stream = stream or sys.stdout
        self._lock = threading.Lock()

    def attach(self, ws) -> None:
        self({"event": "run_started", "run_id": ws.run_id, "path": str(ws.root)})

    def __call__(self, event: dict[str, Any]) -> None:
        with self._lock:
            self.stream.write(json.dumps({"t": round(time.time(), 3), **event}, ensure_ascii=False, default=str) + "\n")
            self.stream.flush()

    def close(self) -> None:
        pass


class LiveProgress:
    """The default display: a panel redrawn on every event, then one line per finished stage."""

    def __init__(self, console: Console | None = None):
        self.console = console or Console(stderr=True)
        self.root = None
        self.stage = "starting"
        self.in_flight: dict[str, str] = {}  # delegation id -> label
        self.done: list[str] = []
        self._lock = threading.Lock()
        self._live = Live(console=self.console, refresh_per_second=4, transient=True)

    def attach(self, ws) -> None:
        self.root = ws.root
        self.console.print(f"workspace: {ws.root}")
        self._live.start()

    def __call__(self, event: dict[str, Any]) -> None:
        with self._lock:
            kind = event["event"]
            if kind == "status":
                self.stage = event["status"]
                self.console.print(
                    f"[bold]{event['status']}[/]" + (f": {event['reason']}" if event.get("reason") else "")
                )
            elif kind == "delegation_started":
                label = event["agent"] + (f" {event['question_id']}" if event.get("question_id") else "")
                self.in_flight[event["delegation_id"]] = label
            elif kind == "delegation_ended":
                label = self.in_flight.pop(event["delegation_id"], event["agent"])
                self.console.print(f"  {label}: {event['status']} ({event['outputs']} file(s) written)")
            if self._live.is_started:
                self._live.update(self._render(), refresh=True)

    def _render(self) -> Group:
        s = summarize(self.root) if self.root else None
        head = Text.assemble(
            ("stage: ", "dim"),
            (self.stage, "bold"),
            ("   in flight: ", "dim"),
            (", ".join(sorted(self.in_flight.values())) or "-", ""),
        )
        if s is None:
            return Group(head)
        t = Table.grid(padding=(0, 2))
        defects = sum(r["errors"] + r["warnings"] for r in s["reviews"])
        spent = s["budget"]["spent"]
        t.add_row(
            f"sources {s['sources']['total']}",
            f"cards {s['cards']}",
            f"claims {s['claims']['total']}",
            f"drafts {len(s['drafts'])}",
            f"defects {defects}",
            f"budget: {spent.get('llm_calls', 0)} calls, {spent.get('tokens', 0)} tokens, {spent.get('searches', 0)} searches",
        )
        return Group(head, t)

    def close(self) -> None:
        if self._live.is_started:
            self._live.stop()


class Quiet:
    def attach(self, ws) -> None:
        pass

    def __call__(self, event: dict[str, Any]) -> None:
        pass

    def close(self) -> None:
        pass
