"""Everything the viewer shows, read from a workspace into its typed view (`model.RunView`).

Read-only and tolerant like `summarize` (a half-finished or hand-edited run still
shows), and deterministic: the same workspace gives the same view. The viewer's own
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
    VIEWER,
    by_number,
    id_of,
    kind_for_path,
    numbered,
    snapshot_path,
)
from harness.orchestrator.followup import children_of
from harness.surfaces.summary import summarize
from harness.surfaces.viewer.model import (
    Answer,
    Artifact,
    BudgetLine,
    Card,
    Claim,
    Decision,
    Diff,
    Draft,
    Event,
    Lineage,
    Metrics,
    Plan,
    Review,
    RunFacts,
    RunLink,
    RunView,
    Source,
    SourceRecord,
)
from harness.surfaces.viewer.model.fields import obj, objects, text
from harness.workspace.reader import RunReader


def _listing(reader: RunReader, pattern: str) -> list[str]:
    """Artifacts matching the glob, in numeric order for drafts and reviews."""
    return by_number(rel for rel in reader.list(pattern) if kind_for_path(rel))


def _utf16_offset(text: str, index: int) -> int:
    """A Python (code point) offset as a JavaScript (UTF-16) one."""
    prefix = text[: max(0, min(index, len(text)))]
    return len(prefix.encode("utf-16-le")) // 2


def _sources(reader: RunReader) -> list[Source]:
    """Every source by id: its record (None when missing or no JSON object) and its snapshot's text."""
    out: dict[str, Source] = {}
    for rel in _listing(reader, "sources/src-*.json"):
        sid, record = id_of(rel), reader.read_json(rel)
        out[sid] = Source(
            sid, SourceRecord.read(record) if isinstance(record, dict) else None, reader.read_text(snapshot_path(sid))
        )
    # a snapshot without its record still shows (validate reports it)
    for rel in _listing(reader, "sources/src-*.txt"):
        out.setdefault(id_of(rel), Source(id_of(rel), None, reader.read_text(rel)))
    return [out[sid] for sid in sorted(out)]


def _highlight(card: dict[str, Any], texts: dict[str, str | None]) -> dict[str, int] | None:
    """The card's span in its source's snapshot, in UTF-16 offsets (for viewer.js), if it lies inside it."""
    sid = card.get("source_id")
    text = texts.get(sid) if isinstance(sid, str) else None
    span = found if isinstance(found := card.get("span"), dict) else {}
    start, end = span.get("start"), span.get("end")
    if isinstance(text, str) and isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= len(text):
        return {"start": _utf16_offset(text, start), "end": _utf16_offset(text, end)}
    return None


def _cards(reader: RunReader, sources: list[Source]) -> list[Card]:
    texts = {s.id: s.text for s in sources}
    out = []
    for rel in _listing(reader, CARDS):
        card = reader.read_json(rel)
        out.append(Card.read(id_of(rel), card, _highlight(card, texts) if isinstance(card, dict) else None))
    return out


def _diff(old: Draft, new: Draft) -> Diff:
    a = (old.text or "").splitlines()
    b = (new.text or "").splitlines()
    lines = list(difflib.unified_diff(a, b, fromfile=old.path, tofile=new.path, n=2, lineterm=""))
    added = sum(1 for line in lines if line.startswith("+") and not line.startswith("+++"))
    removed = sum(1 for line in lines if line.startswith("-") and not line.startswith("---"))
    return Diff(old.path, new.path, lines, added, removed)


def _timeline(reader: RunReader) -> list[Event]:
    """The trace, without the viewer's own writes (so rebuilding gives the same page)."""
    return [Event.read(e) for e in reader.events() if e.get("path") != VIEWER]


def _artifact_index(run: dict[str, Any]) -> list[Artifact]:
    index = found if isinstance(found := run.get("artifacts"), dict) else {}
    return [
        Artifact.read({"path": rel, **entry})
        for rel, entry in sorted(index.items())
        if rel != VIEWER and isinstance(entry, dict)
    ]


def collect(root: Path | str) -> RunView:
    """The viewer's view of the workspace at `root`."""
    reader = RunReader(Path(root).resolve(), cache=True)
    run = reader.run()
    sources = _sources(reader)
    drafts = [
        Draft(rel, numbered(rel), reader.read_text(rel), sha256_bytes(reader.read_bytes(rel) or b""))
        for rel in reader.drafts()
    ]
    summary = summarize(reader)
    plan, claims, metrics = reader.read_json(PLAN), reader.read_json(CLAIMS), reader.read_json(METRICS)
    return RunView(
        facts=RunFacts.read(summary, run),
        lineage=_lineage(Path(root), run),
        final_report=reader.read_text(FINAL_REPORT),
        plan=Plan.read(plan, obj(run.get("branches"))) if isinstance(plan, dict) else None,
        decisions=[Decision.read(d) for d in objects(run.get("decisions"))],
        sources=sources,
        cards=_cards(reader, sources),
        claims=[Claim.read(c) for c in objects(obj(claims).get("claims"))],
        drafts=drafts,
        diffs=[_diff(a, b) for a, b in zip(drafts, drafts[1:])],
        reviews=[Review.read(rel, numbered(rel), reader.read_json(rel)) for rel in reader.reviews()],
        timeline=_timeline(reader),
        budget=BudgetLine.read_all(summary["budget"]),
        metrics=Metrics.read(metrics) if isinstance(metrics, dict) else None,
        answers=Answer.read_all(summary.get("answers")),
        cost=summary.get("cost") or None,
        artifacts=_artifact_index(run),
    )


def _lineage(root: Path, run: dict[str, Any]) -> Lineage:
    """The run this one follows up (run.json's `parent`) and its follow-ups (found next to it)."""
    parent = obj(run.get("parent"))
    return Lineage(
        parent=RunLink(str(parent.get("run_id")), text(parent.get("question"))) if parent else None,
        children=[RunLink(str(c["run_id"]), text(c["question"])) for c in children_of(root)],
    )
