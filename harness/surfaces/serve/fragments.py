"""The run page's read-only parts as HTML, rendered by the audit viewer's own section functions (`viewer/page/`).

serve.js draws only what is the app's own (the forms: a new run, the plan gate's edits, the sign-off, a resume, a
follow-up); everything it shows of a run as it is (the status, the branches, the budget, the cost, the answer
check, the review rounds, the refinement, the final gate's report and each trace line) is rendered here, by the
functions that render the viewer, from the same typed view (`collect()`), so every text is escaped by `el()` and
the two never disagree. The page parses each fragment and inserts its nodes (serve.js `fragment`), its links
resolved against the run's audit viewer (`/runs/RUN_ID/`), where the viewer's anchors and the run's files are.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.surfaces.viewer.collect import collect
from harness.surfaces.viewer.markup import join
from harness.surfaces.viewer.model import Event
from harness.surfaces.viewer.page.common import badge
from harness.surfaces.viewer.page.drafts import review_block
from harness.surfaces.viewer.page.metrics import answers_part, budget_meters, cost_part
from harness.surfaces.viewer.page.plan import branches_table, refinement_part
from harness.surfaces.viewer.page.report import report_body
from harness.surfaces.viewer.page.timeline import trace_line


def run_fragments(run_dir: Path, detail: dict[str, Any]) -> dict[str, str]:
    """The run page's parts for the run at `run_dir`, whose detail (`runs.detail`) is `detail`, by name."""
    view = collect(run_dir)
    reviews = [review_block(r) for r in view.reviews]
    out = {
        "status": badge(detail.get("status") or "?"),
        "branches": branches_table(view),
        "budget": budget_meters(view),
        "cost": cost_part(view),
        "answers": join(answers_part(view)),
        "reviews": join(reviews) if reviews else "",
        "refinement": (refinement_part(view.plan.refinement) if view.plan else None) or "",
    }
    draft = detail.get("draft")
    if isinstance(draft, dict) and isinstance(draft.get("report"), str):
        out["report"] = report_body(draft["report"])
    return {name: str(html) for name, html in out.items()}


def row_fragments(row: dict[str, Any]) -> dict[str, str]:
    """The runs list's parts of one row as HTML: its status badge."""
    return {"status": str(badge(row.get("status") or "?"))}


def trace_html(event: dict[str, Any]) -> str:
    """One trace event as the live trace's line."""
    return str(trace_line(Event.read(event)))
