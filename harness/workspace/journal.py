"""The write journal in `.harness/journal/`: one intent file per write not yet durably indexed in run.json.

An intent is written (and fsynced) before its artifact's rename, so `Workspace.recover` can
finish an index update a crash cut off, and `research validate` can tell a pending write
from a file changed by hand.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from harness.contract.layout import PRIVATE_DIR


def write_synced(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def read_journal(root: Path) -> list[tuple[Path, dict[str, Any] | None]]:
    """The write journal's intent files in name order, each with its intent (None when torn or unreadable)."""
    journal = root / PRIVATE_DIR / "journal"
    out: list[tuple[Path, dict[str, Any] | None]] = []
    for f in sorted(journal.glob("*.json")) if journal.is_dir() else ():
        try:
            intent = json.loads(f.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            intent = None
        out.append((f, intent if isinstance(intent, dict) else None))
    return out
