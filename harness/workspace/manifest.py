"""run.json: the manifest a new run starts with, and its layout (one line per top-level field and one
line per artifact index entry, encoded incrementally)."""

from __future__ import annotations

import copy
import json
from typing import Any

from harness.contract.statuses import CREATED
from harness.contract.version import __version__

SCHEMA_VERSION = 1


def initial_manifest(
    run_id: str,
    question: str,
    created: str,
    *,
    config: dict[str, Any] | None = None,
    budget: dict[str, Any] | None = None,
    artifacts: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The run.json of a run just created at `created`: status `created`, its configuration and budget
    snapshot, the index of the files copied from workspace_template/, and nothing done yet."""
    return {
        "schema_version": SCHEMA_VERSION,
        "run_id": run_id,
        "question": question,
        "status": CREATED,
        "status_reason": None,
        "created_at": created,
        "updated_at": created,
        "harness_version": __version__,
        "config": config or {},
        "artifacts": artifacts or {},
        "budget": budget or {"limits": {}, "spent": {}},
        "decisions": [],
        "final_approval": None,
        "corpus": None,
        "stats": {},
        "branches": {},
        "final_report": None,
    }


# No `indent`: CPython's C encoder is used only without one.
_encode = json.JSONEncoder(ensure_ascii=False).encode


def dump_manifest(manifest: dict[str, Any]) -> str:
    """run.json's layout: one line per top-level field, and one line per artifact index entry."""
    return ManifestEncoder().encode(manifest)


class ManifestEncoder:
    """Encodes run.json in `dump_manifest`'s layout, remembering each index entry's line.

    run.json is rewritten after every artifact write and every model call, and its index
    grows with every registered source. `dump_json`'s indented layout makes CPython fall
    back to its pure-Python encoder, so here every piece goes through the C encoder; and
    since a rewrite changes at most a few index entries, only entries that differ from
    the last encoding are encoded again, which keeps a rewrite's cost from growing with
    the index. The layout stays readable and diffs well (an artifact write changes one
    line); `json.loads` of the text equals the manifest. Not thread-safe: one per
    Workspace, used under its lock.
    """

    def __init__(self) -> None:
        self._lines: dict[str, tuple[Any, str]] = {}  # index key -> (a copy of its entry, its line)

    def encode(self, manifest: dict[str, Any]) -> str:
        fields = []
        for key, value in manifest.items():
            text = self._index(value) if key == "artifacts" and isinstance(value, dict) and value else _encode(value)
            fields.append(f"  {_encode(key)}: {text}")
        return "{\n" + ",\n".join(fields) + "\n}\n"

    def _index(self, index: dict[str, Any]) -> str:
        lines = {}
        for key, entry in index.items():
            known = self._lines.get(key)
            # Compared by value with a private copy, so an entry changed in place is re-encoded too
            # (== does not tell 1 from 1.0 or True; index entries hold strings and ints).
            if known is None or known[0] != entry:
                known = (copy.deepcopy(entry), _encode({key: entry})[1:-1])
            lines[key] = known
        self._lines = lines  # entries no longer indexed are forgotten
        return "{\n" + ",\n".join(f"    {line}" for _, line in lines.values()) + "\n  }"
