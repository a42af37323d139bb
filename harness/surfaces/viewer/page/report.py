"""The final report, rendered from its Markdown."""

from __future__ import annotations

from harness.surfaces.viewer.markup import Markup, el, render_markdown
from harness.surfaces.viewer.model import RunView
from harness.surfaces.viewer.page.common import (
    _section,
)

# ---- report ------------------------------------------------------------------------------


def report_body(text: str) -> Markup:
    """A report's Markdown as the page shows it: the viewer's final report, and the app's final gate the draft's."""
    return render_markdown(text, id_prefix="r-")


def report_section(view: RunView) -> Markup:
    text = view.final_report
    if text is None:
        status = view.facts.status
        return _section(
            "v-report",
            "Final report",
            el("p", f"No final report (run status: {status}). The drafts are under Drafts & reviews.", class_="empty"),
        )
    hint = el(
        "p",
        "Click a citation to open its claim, the evidence cards and the quote highlighted in its source.",
        class_="hint",
    )
    return _section("v-report", "Final report", hint, el("article", report_body(text), class_="report markdown"))
