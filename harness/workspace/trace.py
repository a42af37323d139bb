"""Reading trace.jsonl back: for metrics, the eval runner and the viewer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.contract.layout import TRACE
from harness.workspace.paths import servable


def read_events(root: Path | str) -> list[dict[str, Any]]:
    """Every well-formed event of the workspace's trace, in order (a torn or bad line is skipped)."""
    path = servable(Path(root), TRACE)  # a trace.jsonl linked to a file outside the run reads as none
    events = []
    if path is not None and path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict):
                events.append(event)
    return events
