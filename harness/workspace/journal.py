"""The write journal in `.harness/journal/`: one intent file per write not yet durably indexed in run.json.

An intent is written (and fsynced) before its artifact's rename, or before a removal's
unlink, so `WriteJournal.recover` can finish an index update a crash cut off, and
`research validate` can tell a pending write from a file changed by hand.

A write's intent stays *pending* while its index entry is in the in-memory run.json but
not yet durably in the file; the next durable run.json write settles it (`settle`). At
most one intent is pending per path (`Workspace.write` settles before rewriting a pending
path), so recovery and `validate` read the journal unambiguously.
"""

from __future__ import annotations

import json
import os
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from harness.contract.formats import sha256_bytes
from harness.contract.layout import PRIVATE_DIR
from harness.workspace.trace import read_events

JOURNAL_DIR = f"{PRIVATE_DIR}/journal"


@dataclass(frozen=True)
class ArtifactRecord:
    """One artifact write: what run.json's index says about it, and what its intent announces."""

    path: str
    sha256: str
    size: int
    writer: str
    written_at: str

    def entry(self) -> dict[str, Any]:
        """The record as an index entry of run.json's `artifacts`."""
        return {"sha256": self.sha256, "size": self.size, "writer": self.writer, "written_at": self.written_at}


class IndexedRun(Protocol):
    """What recovery needs of the workspace: its artifact index and its trace (`Workspace` is one)."""

    def indexed_sha256(self, rel: str) -> str | None: ...
    def index(self, record: ArtifactRecord) -> None: ...
    def unindex(self, rel: str) -> None: ...
    def trace(self, event: str, **fields: Any) -> dict[str, Any]: ...


def _write_synced(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


class WriteJournal:
    """The journal of one run folder: announcing writes and removals, the pending intents, and recovery.

    Not thread-safe by itself: the workspace calls it under its lock.
    """

    def __init__(self, root: Path):
        self.root = root
        self.folder = root / JOURNAL_DIR
        self._pending: dict[str, Path] = {}  # path -> intent file of a write indexed only in memory

    # ---- announcing ---------------------------------------------------------------------------

    def announce_write(self, record: ArtifactRecord, tmp_name: str) -> Path:
        """The fsynced intent of renaming temp file `tmp_name` onto `record.path`; returns its file.

        A torn intent (a crash while writing it) is unparseable and simply dropped on recovery:
        the rename it announces has not happened yet, so it needs no temp-and-rename of its own.
        """
        return self._announce({**record.__dict__, "tmp": tmp_name})

    def announce_removal(self, rel: str, writer: str) -> Path:
        """The fsynced intent of deleting artifact `rel`; the caller drops it once the delete is indexed and traced."""
        return self._announce({"path": rel, "remove": True, "writer": writer})

    def _announce(self, intent: dict[str, Any]) -> Path:
        self.folder.mkdir(parents=True, exist_ok=True)
        intent_file = self.folder / f"{uuid.uuid4().hex}.json"
        _write_synced(intent_file, json.dumps(intent).encode())
        return intent_file

    @staticmethod
    def drop(intent_file: Path) -> None:
        intent_file.unlink(missing_ok=True)

    # ---- pending intents ----------------------------------------------------------------------

    def keep(self, rel: str, intent_file: Path) -> None:
        """Keep a write's intent until a durable run.json write carries its index entry."""
        self._pending[rel] = intent_file

    def is_pending(self, rel: str) -> bool:
        return rel in self._pending

    def has_pending(self) -> bool:
        return bool(self._pending)

    def settle(self) -> None:
        """run.json now holds every pending entry durably: their intents are no longer needed by recovery.

        An unlink a power cut undoes is harmless: recovery finds the entries already indexed.
        """
        for intent_file in self._pending.values():
            intent_file.unlink(missing_ok=True)
        self._pending.clear()

    # ---- reading ------------------------------------------------------------------------------

    def entries(self) -> list[tuple[Path, dict[str, Any] | None]]:
        """The intent files in name order, each with its intent (None when torn or unreadable)."""
        out: list[tuple[Path, dict[str, Any] | None]] = []
        for f in sorted(self.folder.glob("*.json")) if self.folder.is_dir() else ():
            try:
                intent = json.loads(f.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                intent = None
            out.append((f, intent if isinstance(intent, dict) else None))
        return out

    def pending_writes(self) -> dict[str, dict[str, Any]]:
        """Writes whose intent is still kept (indexed in run.json not yet durably, or a crash cut the index
        update off): path -> intent. Read from disk, for `validate` of a folder no process holds."""
        return {
            intent["path"]: intent
            for _, intent in self.entries()
            if intent is not None and "path" in intent and "sha256" in intent
        }

    def rename_pending(self, rel: str, intent: dict[str, Any]) -> bool:
        """Is the write's temp file still there (the crash came before its rename)?"""
        tmp = intent.get("tmp")
        return isinstance(tmp, str) and bool(tmp) and ((self.root / rel).parent / tmp).is_file()

    def temp_files(self) -> set[str]:
        """Names of the temp files the intents announce (recovery must not take them for orphans)."""
        return {t for _, intent in self.entries() if intent is not None and isinstance(t := intent.get("tmp"), str)}

    # ---- recovery -----------------------------------------------------------------------------

    def recover(self, run: IndexedRun) -> None:
        """Finish or roll back every write and removal a crash interrupted.

        An intent whose target holds its content is finished (indexed if run.json lacks it,
        traced if the trace lacks it) and kept pending: its entry may be in a run.json a killed
        process left unsynced, so only the caller's next durable run.json write drops it. An
        intent whose target holds other content (a later write, or a rename that never
        happened) or none, and a torn intent (cut off before its rename), are dropped at once.
        A removal's intent is finished: the file and its index entry are gone, and the delete
        is traced once.
        """
        traced: set[tuple[str | None, str | None]] | None = (
            None  # (path, sha256) of the trace's write events, read if needed
        )
        for intent_file, intent in self.entries():
            if intent is None:  # torn: cut off before the rename it announces
                self.drop(intent_file)
            elif intent.get("remove"):
                self._finish_removal(run, intent)
                self.drop(intent_file)
            elif self._finish_write(intent):
                # The rename happened; the index update may not have. Finish it.
                record = ArtifactRecord(*(intent[k] for k in ("path", "sha256", "size", "writer", "written_at")))
                if run.indexed_sha256(record.path) != record.sha256:
                    run.index(record)
                    traced = self._traced_writes() if traced is None else traced
                    if (record.path, record.sha256) not in traced:  # the crash came before its trace event
                        run.trace(
                            "write",
                            agent=record.writer,
                            path=record.path,
                            sha256=record.sha256,
                            size=record.size,
                            detail="completed after an interrupted write",
                        )
                twin = self._pending.get(record.path)
                if twin is not None and twin != intent_file:
                    self.drop(twin)  # another intent for this path and content: one is enough
                self.keep(record.path, intent_file)
            else:
                self.drop(intent_file)

    def _finish_write(self, intent: dict[str, Any]) -> bool:
        """Remove the write's temp file; True when its target holds the content the intent announces."""
        target = self.root / intent["path"]
        (target.parent / intent["tmp"]).unlink(missing_ok=True)
        return target.is_file() and sha256_bytes(target.read_bytes()) == intent["sha256"]

    def _finish_removal(self, run: IndexedRun, intent: dict[str, Any]) -> None:
        rel = intent["path"]
        (self.root / rel).unlink(missing_ok=True)
        if run.indexed_sha256(rel) is not None:
            run.unindex(rel)
        if self._last_traced_event(rel) != "delete":
            run.trace(
                "delete",
                agent=intent.get("writer", "harness"),
                path=rel,
                detail="completed after an interrupted removal",
            )

    def _last_traced_event(self, rel: str) -> str | None:
        return next((e.get("event") for e in reversed(read_events(self.root)) if e.get("path") == rel), None)

    def _traced_writes(self) -> set[tuple[str | None, str | None]]:
        return {(e.get("path"), e.get("sha256")) for e in read_events(self.root) if e.get("event") == "write"}
