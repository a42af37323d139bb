"""Everything the viewer shows, read from a workspace into one JSON-ready dict and its typed view (`model`).

Read-only and tolerant like `summarize` (a half-finished or hand-edited run still
shows), and deterministic: the same workspace gives the same dict. The viewer's own
file (index.html) is left out, and so are the trace events of writing it, so building
the viewer twice gives the same page.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

from harness.contract.formats import sha256_bytes
from harness.contract.layout import (
    CARDS,
    CLAIMS,
    FINAL_REPORT,
    METRICS,
    PLAN,
    README,
    VIEWER,
    by_number,
    id_of,
    kind_for_path,
    numbered,
    snapshot_path,
)
from harness.orchestrator.followup import children_of
from harness.surfaces.summary import summarize
from harness.surfaces.viewer.model import RunView
from harness.workspace.reader import RunReader


def _listing(reader: RunReader, pattern: str) -> list[str]:
    """Artifacts matching the glob, in numeric order for drafts and reviews."""
    return by_number(rel for rel in reader.list(pattern) if kind_for_path(rel))


def _utf16_offset(text: str, index: int) -> int:
    """A Python (code point) offset as a JavaScript (UTF-16) one."""
    prefix = text[: max(0, min(index, len(text)))]
    return len(prefix.encode("utf-16-le")) // 2


def _sources(reader: RunReader) -> dict[str, dict[str, Any]]:
    out = {}
    for rel in _listing(reader, "sources/src-*.json"):
        sid = id_of(rel)
        out[sid] = {"record": reader.read_json(rel), "text": reader.read_text(snapshot_path(sid))}
    # a snapshot without its record still shows (validate reports it)
    for rel in _listing(reader, "sources/src-*.txt"):
        out.setdefault(id_of(rel), {"record": None, "text": reader.read_text(rel)})
    return dict(sorted(out.items()))


def _cards(reader: RunReader, sources: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    out = {}
    for rel in _listing(reader, CARDS):
        card = reader.read_json(rel)
        entry: dict[str, Any] = {"card": card, "highlight": None}
        if isinstance(card, dict):
            sid = card.get("source_id")
            text = (sources.get(sid) or {}).get("text") if isinstance(sid, str) else None
            span = found if isinstance(found := card.get("span"), dict) else {}
            start, end = span.get("start"), span.get("end")
            if (
                isinstance(text, str)
                and isinstance(start, int)
                and isinstance(end, int)
                and 0 <= start < end <= len(text)
            ):
                entry["highlight"] = {"start": _utf16_offset(text, start), "end": _utf16_offset(text, end)}
        out[id_of(rel)] = entry
    return out


def _diff(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    a = (old["text"] or "").splitlines()
    b = (new["text"] or "").splitlines()
    lines = list(difflib.unified_diff(a, b, fromfile=old["path"], tofile=new["path"], n=2, lineterm=""))
    added = sum(1 for line in lines if line.startswith("+") and not line.startswith("+++"))
    removed = sum(1 for line in lines if line.startswith("-") and not line.startswith("---"))
    return {"from": old["path"], "to": new["path"], "lines": lines, "added": added, "removed": removed}


def _timeline(reader: RunReader) -> list[dict[str, Any]]:
    """The trace, without the viewer's own writes (so rebuilding gives the same page)."""
    return [e for e in reader.events() if e.get("path") != VIEWER]


def _artifact_index(run: dict[str, Any]) -> list[dict[str, Any]]:
    index = found if isinstance(found := run.get("artifacts"), dict) else {}
    return [{"path": rel, **entry} for rel, entry in sorted(index.items()) if rel != VIEWER and isinstance(entry, dict)]


def _run_details(run: dict[str, Any]) -> dict[str, Any]:
    """What the viewer shows of run.json beyond the summary (no local paths of agent specs)."""
    config = found if isinstance(found := run.get("config"), dict) else {}
    return {
        "created_at": run.get("created_at"),
        "harness_version": run.get("harness_version"),
        "engines": config.get("engines"),
        "models": config.get("models"),
        "corpus": run.get("corpus"),
        "decisions": run.get("decisions"),
        "branches": run.get("branches"),
        "final_approval": run.get("final_approval"),
        "stats": run.get("stats"),
    }


def collect(root: Path | str) -> RunView:
    """The viewer's view of the workspace at `root`."""
    reader = RunReader(Path(root).resolve(), cache=True)
    run = reader.run()
    sources = _sources(reader)
    drafts = [
        {
            "path": rel,
            "number": numbered(rel),
            "text": reader.read_text(rel),
            "sha256": sha256_bytes(reader.read_bytes(rel) or b""),
        }
        for rel in reader.drafts()
    ]
    reviews = [{"path": rel, "number": numbered(rel), "review": reader.read_json(rel)} for rel in reader.reviews()]
    data = {
        "summary": summarize(reader),
        "run": _run_details(run),
        "artifacts": _artifact_index(run),
        "timeline": _timeline(reader),
        "plan": reader.read_json(PLAN),
        "sources": sources,
        "cards": _cards(reader, sources),
        "claims": reader.read_json(CLAIMS),
        "drafts": drafts,
        "diffs": [_diff(a, b) for a, b in zip(drafts, drafts[1:])],
        "reviews": reviews,
        "final_report": reader.read_text(FINAL_REPORT),
        "metrics": reader.read_json(METRICS),
        "readme": reader.read_text(README),
        "lineage": _lineage(Path(root), run),
    }
    return RunView.read(data, run)


def _lineage(root: Path, run: dict[str, Any]) -> dict[str, Any]:
    """The run this one follows up (run.json's `parent`) and its follow-ups (found next to it)."""
    parent = run.get("parent") if isinstance(run.get("parent"), dict) else None
    return {
        "parent": {"run_id": parent.get("run_id"), "question": parent.get("question")} if parent else None,
        "children": [{"run_id": c["run_id"], "question": c["question"]} for c in children_of(root)],
    }
