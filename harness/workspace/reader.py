"""The read-only view of a run folder: what every reader outside the Workspace goes through.

`RunReader` is tolerant (a missing or broken file reads as None, so a half-finished or
hand-edited run can still be summarized, viewed, measured and validated) and typed (the
plan, claims, cards, sources, snapshots, drafts, reviews and trace by name, at the paths
`contract.layout` defines). It never writes. The integrity checks, `research validate`,
the Reviewer's checks, the metrics, `research inspect` and the viewer all read through
it; `harness.open_run` hands one to users.

`quote_check` is the one rule for "is this card's quote in its stored snapshot, at its
span" (invariant 3): the write guard, `validate`, the Reviewer's checks and the metrics
all ask it.
"""

from __future__ import annotations

import builtins
import json
from pathlib import Path
from typing import Any, cast

from harness.contract import layout
from harness.contract.formats import sha256_bytes
from harness.contract.globs import literal_folders, matches
from harness.contract.quotes import quote_matches
from harness.errors import WorkspaceError
from harness.workspace.paths import servable
from harness.workspace.trace import read_events


class RunReader:
    """Reads one run folder by workspace-relative path; `cache=True` reads each file once (whole-run checks)."""

    def __init__(self, root: Path | str, cache: bool = False):
        self.root = Path(root)
        self._cache: dict[str, bytes | None] | None = {} if cache else None

    # ---- files -------------------------------------------------------------------------

    def read_bytes(self, rel: str) -> bytes | None:
        if self._cache is not None and rel in self._cache:
            return self._cache[rel]
        path = servable(self.root, rel)  # nothing outside the run folder or in its private folder, symlinks included
        try:
            data = path.read_bytes() if path is not None and path.is_file() else None
        except OSError:
            data = None
        if self._cache is not None:
            self._cache[rel] = data
        return data

    def read_text(self, rel: str) -> str | None:
        data = self.read_bytes(rel)
        if data is None:
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return None

    def read_json(self, rel: str) -> Any | None:
        text = self.read_text(rel)
        if text is None:
            return None
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            return None

    def exists(self, rel: str) -> bool:
        return self.read_bytes(rel) is not None

    def list(self, pattern: str) -> list[str]:
        """Files matching the glob, sorted; the private folder and dotfiles are never listed."""
        start = self.root.joinpath(*literal_folders(pattern))
        if not start.is_dir():
            return []
        out = []
        for p in start.rglob("*"):
            rel = p.relative_to(self.root).as_posix()
            if any(part.startswith(".") for part in rel.split("/")) or not p.is_file():
                continue
            if matches(rel, [pattern]):
                out.append(rel)
        return sorted(out)

    def files(self) -> builtins.list[str]:
        """Every file (or symlink) of the run outside the private folder and dotfiles, sorted."""
        out = []
        for p in self.root.rglob("*"):
            rel = p.relative_to(self.root).as_posix()
            if any(part.startswith(".") for part in rel.split("/")):
                continue
            if p.is_file() or p.is_symlink():
                out.append(rel)
        return sorted(out)

    # ---- artifacts by name ---------------------------------------------------------------

    def run(self) -> dict[str, Any]:
        doc = self.read_json(layout.RUN)
        return doc if isinstance(doc, dict) else {}

    def plan(self) -> dict[str, Any] | None:
        doc = self.read_json(layout.PLAN)
        return doc if isinstance(doc, dict) else None

    def questions(self) -> builtins.list[dict[str, Any]]:
        plan = self.plan() or {}
        qs = plan.get("questions")
        return [q for q in qs if isinstance(q, dict)] if isinstance(qs, list) else []

    def claims(self) -> dict[str, dict[str, Any]] | None:
        """claim id -> claim, or None when there is no readable claims.json."""
        doc = self.read_json(layout.CLAIMS)
        if not isinstance(doc, dict) or not isinstance(doc.get("claims"), list):
            return None
        # the schema makes every id a string; a hand-edited claim without one is kept, under None, as read
        return {cast(str, c.get("claim_id")): c for c in doc["claims"] if isinstance(c, dict)}

    def card(self, card_id: str) -> dict[str, Any] | None:
        doc = self.read_json(layout.card_path(card_id))
        return doc if isinstance(doc, dict) else None

    def card_ids(self) -> builtins.list[str]:
        return [layout.id_of(rel) for rel in self.list(layout.CARDS)]

    def source(self, source_id: str) -> dict[str, Any] | None:
        doc = self.read_json(layout.source_record_path(source_id))
        return doc if isinstance(doc, dict) else None

    def source_ids(self) -> builtins.list[str]:
        return [layout.id_of(rel) for rel in self.list(layout.SOURCE_RECORDS) if layout.kind_for_path(rel)]

    def snapshot(self, source_id: str) -> str | None:
        return self.read_text(layout.snapshot_path(source_id))

    def drafts(self) -> builtins.list[str]:
        return layout.by_number(rel for rel in self.list(layout.DRAFTS) if layout.kind_for_path(rel))

    def reviews(self) -> builtins.list[str]:
        return layout.by_number(rel for rel in self.list(layout.REVIEWS) if layout.kind_for_path(rel))

    def events(self) -> builtins.list[dict[str, Any]]:
        return read_events(self.root)

    # ---- the verbatim rule ------------------------------------------------------------------

    def quote_check(self, card: dict[str, Any]) -> str | None:
        """None when the card's quote is verbatim in its source's stored snapshot at its span; else the rule
        it breaks: source-exists, snapshot-exists, snapshot-hash or quote-in-source."""
        source_id = card.get("source_id")
        record = self.source(source_id) if isinstance(source_id, str) else None
        if record is None or not isinstance(source_id, str):
            return "source-exists"
        data = self.read_bytes(layout.snapshot_path(source_id))
        if data is None:
            return "snapshot-exists"
        if sha256_bytes(data) != record.get("sha256"):
            return "snapshot-hash"
        span = found if isinstance(found := card.get("span"), dict) else {}
        start, end = span.get("start", -1), span.get("end", -1)
        if not isinstance(start, int) or not isinstance(end, int):
            return "quote-in-source"
        if not quote_matches(data.decode("utf-8", errors="replace"), str(card.get("quote", "")), start, end):
            return "quote-in-source"
        return None


def open_run(root: Path | str) -> RunReader:
    """A read-only view of the run folder at `root` (one `research run` left); WorkspaceError if it is not one."""
    reader = RunReader(root)
    if not (reader.root / layout.RUN).is_file():
        raise WorkspaceError(f"{reader.root}: not a run workspace (no {layout.RUN})")
    return reader
