"""Everything the viewer shows, read from a workspace into one JSON-ready dict.

Read-only and tolerant like `summarize` (a half-finished or hand-edited run still
shows), and deterministic: the same workspace gives the same dict. The viewer's own
file (index.html) is left out, and so are the trace events of writing it, so building
the viewer twice gives the same page.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

from ..artifacts import kind_for_path, numbered
from ..integrity import FileReader, draft_number
from ..summary import summarize
from ..textnorm import sha256_bytes
from ..tracefile import read_events

VIEWER_FILE = "index.html"


def _listing(root: Path, folder: str, pattern: str) -> list[str]:
    base = root / folder
    if not base.is_dir():
        return []
    rels = [f"{folder}/{p.name}" for p in base.glob(pattern) if p.is_file() and kind_for_path(f"{folder}/{p.name}")]
    return sorted(rels, key=lambda rel: (numbered(rel) or 0, rel))


def _utf16_offset(text: str, index: int) -> int:
    """A Python (code point) offset as a JavaScript (UTF-16) one."""
    prefix = text[:max(0, min(index, len(text)))]
    return len(prefix.encode("utf-16-le")) // 2


def _sources(root: Path, reader: FileReader) -> dict[str, dict[str, Any]]:
    out = {}
    for rel in _listing(root, "sources", "src-*.json"):
        sid = rel.removeprefix("sources/").removesuffix(".json")
        out[sid] = {"record": reader.read_json(rel), "text": reader.read_text(f"sources/{sid}.txt")}
    # a snapshot without its record still shows (validate reports it)
    for rel in _listing(root, "sources", "src-*.txt"):
        sid = rel.removeprefix("sources/").removesuffix(".txt")
        out.setdefault(sid, {"record": None, "text": reader.read_text(rel)})
    return dict(sorted(out.items()))


def _cards(root: Path, reader: FileReader, sources: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    out = {}
    for rel in _listing(root, "source-cards", "*.json"):
        card = reader.read_json(rel)
        entry: dict[str, Any] = {"card": card, "highlight": None}
        if isinstance(card, dict):
            text = (sources.get(card.get("source_id")) or {}).get("text")
            span = card.get("span") if isinstance(card.get("span"), dict) else {}
            start, end = span.get("start"), span.get("end")
            if isinstance(text, str) and isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= len(text):
                entry["highlight"] = {"start": _utf16_offset(text, start), "end": _utf16_offset(text, end)}
        out[rel.removeprefix("source-cards/").removesuffix(".json")] = entry
    return out


def _diff(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    a = (old["text"] or "").splitlines()
    b = (new["text"] or "").splitlines()
    lines = list(difflib.unified_diff(a, b, fromfile=old["path"], tofile=new["path"], n=2, lineterm=""))
    added = sum(1 for line in lines if line.startswith("+") and not line.startswith("+++"))
    removed = sum(1 for line in lines if line.startswith("-") and not line.startswith("---"))
    return {"from": old["path"], "to": new["path"], "lines": lines, "added": added, "removed": removed}


def _timeline(root: Path) -> list[dict[str, Any]]:
    """The trace, without the viewer's own writes (so rebuilding gives the same page)."""
    return [e for e in read_events(root) if e.get("path") != VIEWER_FILE]


def _artifact_index(run: dict[str, Any]) -> list[dict[str, Any]]:
    index = run.get("artifacts") if isinstance(run.get("artifacts"), dict) else {}
    return [{"path": rel, **entry} for rel, entry in sorted(index.items())
            if rel != VIEWER_FILE and isinstance(entry, dict)]


def _run_details(run: dict[str, Any]) -> dict[str, Any]:
    """What the viewer shows of run.json beyond the summary (no local paths of agent specs)."""
    config = run.get("config") if isinstance(run.get("config"), dict) else {}
    return {"created_at": run.get("created_at"), "harness_version": run.get("harness_version"),
            "engines": config.get("engines"), "models": config.get("models"), "corpus": run.get("corpus"),
            "decisions": run.get("decisions"), "branches": run.get("branches"),
            "final_approval": run.get("final_approval"), "stats": run.get("stats")}


def collect(root: Path | str) -> dict[str, Any]:
    """The viewer's data for the workspace at `root`."""
    root = Path(root).resolve()
    reader = FileReader(root, cache=True)
    run = reader.read_json("run.json")
    run = run if isinstance(run, dict) else {}
    sources = _sources(root, reader)
    drafts = [{"path": rel, "number": numbered(rel), "text": reader.read_text(rel), "sha256": sha256_bytes(reader.read_bytes(rel) or b"")}
              for rel in _listing(root, "drafts", "draft-*.md")]
    reviews = [{"path": rel, "number": numbered(rel), "review": reader.read_json(rel)}
               for rel in _listing(root, "reviews", "review-*.json")]
    return {
        "summary": summarize(root),
        "run": _run_details(run),
        "artifacts": _artifact_index(run),
        "timeline": _timeline(root),
        "plan": reader.read_json("plan.json"),
        "sources": sources,
        "cards": _cards(root, reader, sources),
        "claims": reader.read_json("claims.json"),
        "drafts": drafts,
        "diffs": [_diff(a, b) for a, b in zip(drafts, drafts[1:])],
        "reviews": reviews,
        "final_report": reader.read_text("final-report.md"),
        "metrics": reader.read_json("metrics.json"),
        "readme": reader.read_text("README.md"),
    }


def claims_by_card(data: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """card id -> the claims that use it (supporting or contradicting)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for claim in claim_list(data):
        for card_id in (claim.get("supporting_cards") or []) + (claim.get("contradicting_cards") or []):
            out.setdefault(card_id, []).append(claim)
    return out


def claim_list(data: dict[str, Any]) -> list[dict[str, Any]]:
    doc = data.get("claims")
    claims = doc.get("claims") if isinstance(doc, dict) else None
    return [c for c in claims if isinstance(c, dict)] if isinstance(claims, list) else []


def question_ids(data: dict[str, Any]) -> list[str]:
    plan = data.get("plan")
    qs = plan.get("questions") if isinstance(plan, dict) else None
    ids = [q.get("id") for q in qs if isinstance(q, dict) and isinstance(q.get("id"), str)] if isinstance(qs, list) else []
    return sorted(set(ids), key=lambda q: (len(q), q))


def draft_number_of(path: Any) -> int | None:
    """N of a review's `draft` field (drafts/draft-N.md), tolerating junk."""
    return draft_number(path) if isinstance(path, str) else None
