"""A run at a glance: the one summary `research inspect` prints and the viewer shows.

Read-only and tolerant: a half-finished or hand-edited workspace still summarizes.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from .artifacts import numbered
from .integrity import FileReader

CLAIM_STATUSES = ("verified", "verified_with_limit", "conflicted", "rejected", "unsupported")


def _sorted_numbered(paths: list[str]) -> list[str]:
    return sorted(paths, key=lambda p: numbered(p) or 0)


def summarize(root: Path | str) -> dict[str, Any]:
    root = Path(root)
    reader = FileReader(root, cache=True)
    run = reader.read_json("run.json") or {}
    plan = reader.read_json("plan.json")
    branches = run.get("branches") or {}
    questions = []
    if isinstance(plan, dict):
        for q in plan.get("questions", []):
            if isinstance(q, dict):
                questions.append({"id": q.get("id"), "kind": q.get("kind"), "critical": q.get("critical"),
                                  "text": q.get("text"), "tag": q.get("tag"),
                                  "branch": (branches.get(q.get("id")) or {}).get("status")})
    sources = sorted(p.name for p in (root / "sources").glob("src-*.json")) if (root / "sources").is_dir() else []
    kinds = Counter()
    flagged = 0
    for name in sources:
        rec = reader.read_json(f"sources/{name}") or {}
        kinds[rec.get("kind", "unknown")] += 1
        flagged += bool(rec.get("flags"))
    cards = sorted((root / "source-cards").glob("*.json")) if (root / "source-cards").is_dir() else []
    claims_doc = reader.read_json("claims.json")
    claim_counts = Counter()
    if isinstance(claims_doc, dict):
        for c in claims_doc.get("claims", []):
            if isinstance(c, dict):
                claim_counts[c.get("status", "unknown")] += 1
    drafts = _sorted_numbered([f"drafts/{p.name}" for p in (root / "drafts").glob("draft-*.md")]) if (root / "drafts").is_dir() else []
    reviews = []
    review_paths = _sorted_numbered([f"reviews/{p.name}" for p in (root / "reviews").glob("review-*.json")]) if (root / "reviews").is_dir() else []
    for rel in review_paths:
        rev = reader.read_json(rel) or {}
        defects = rev.get("defects") or []
        reviews.append({"path": rel, "draft": rev.get("draft"), "verdict": rev.get("verdict"),
                        "errors": sum(1 for d in defects if d.get("severity") == "error"),
                        "warnings": sum(1 for d in defects if d.get("severity") == "warning"),
                        "codes": dict(Counter(d.get("code") for d in defects))})
    budget = run.get("budget") or {}
    final = "final-report.md" if (root / "final-report.md").is_file() else None
    return {
        "run_id": run.get("run_id"),
        "status": run.get("status"),
        "status_reason": run.get("status_reason"),
        "question": run.get("question"),
        "plan": {"revision": plan.get("revision") if isinstance(plan, dict) else None,
                 "approved": bool(isinstance(plan, dict) and (plan.get("approval") or {}).get("decision") == "approved"),
                 "questions": questions},
        "sources": {"total": len(sources), "primary": kinds.get("primary", 0), "secondary": kinds.get("secondary", 0),
                    "flagged": flagged, "duplicates": (run.get("stats") or {}).get("duplicate_sources", 0)},
        "cards": len(cards),
        "claims": {s: claim_counts.get(s, 0) for s in CLAIM_STATUSES} | {"total": sum(claim_counts.values())},
        "drafts": drafts,
        "reviews": reviews,
        "budget": {"limits": budget.get("limits", {}), "spent": budget.get("spent", {})},
        "final_report": final,  # workspace-relative, like every path here: the summary travels (viewer) without local paths
    }
