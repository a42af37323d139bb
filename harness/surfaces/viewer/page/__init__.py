"""The viewer page: one self-contained HTML file built from `collect()`'s view of a run (`model.RunView`).

The page is readable without JavaScript: every section is rendered here, with every
piece of text escaped (see `markup`). The same data is embedded as JSON in a
``<script type="application/json">`` block (with <, > and & escaped, so no text can
close it) for `viewer.js`, which adds the claim/status/question filters and the
evidence panel that opens a citation's claim, cards and highlighted source quote.
A Content-Security-Policy allows only the page's own script and style (by hash).
"""

from __future__ import annotations

from harness.surfaces.viewer.markup import Markup, el, join
from harness.surfaces.viewer.model import RunView
from harness.surfaces.viewer.page.common import (
    _asset,
    _csp_hash,
    embed_json,
)
from harness.surfaces.viewer.page.drafts import drafts_section
from harness.surfaces.viewer.page.evidence import evidence_section
from harness.surfaces.viewer.page.header import header
from harness.surfaces.viewer.page.metrics import files_section, metrics_section
from harness.surfaces.viewer.page.plan import plan_section
from harness.surfaces.viewer.page.report import report_section
from harness.surfaces.viewer.page.timeline import timeline_section

__all__ = ["embed_json", "render_page"]

# ---- the page ----------------------------------------------------------------------------------


def render_page(view: RunView) -> str:
    css, js = _asset("viewer.css"), _asset("viewer.js")
    csp = (
        f"default-src 'none'; script-src {_csp_hash(js)}; style-src {_csp_hash(css)}; img-src data:; "
        "base-uri 'none'; form-action 'none'"
    )
    facts = view.facts
    head = join(
        [
            Markup('<meta charset="utf-8">'),
            el("meta", name="viewport", content="width=device-width, initial-scale=1"),
            Markup(f'<meta http-equiv="Content-Security-Policy" content="{csp}">'),  # built from hashes only
            el("title", f"research run {facts.run_id or ''} — {facts.question or ''}"),
            Markup(f"<style>{css}</style>"),
        ],
        "\n",
    )
    panel = el(
        "aside",
        el(
            "div",
            el("span", "Evidence", class_="panel-title"),
            el("button", "×", type="button", id="v-panel-close", title="Close (Esc)", aria_label="Close"),
            class_="panel-head",
        ),
        el("div", "", id="v-panel-body"),
        id="v-panel",
        class_="panel",
        hidden=True,
    )
    body = join(
        [
            header(view),
            el(
                "main",
                report_section(view),
                evidence_section(view),
                drafts_section(view),
                plan_section(view),
                timeline_section(view),
                metrics_section(view),
                files_section(view),
            ),
            panel,
            el(
                "noscript",
                el(
                    "p",
                    "JavaScript is off: citation links open the card files; the filters and the evidence panel need JavaScript.",
                    class_="hint",
                ),
            ),
            Markup(f'<script type="application/json" id="v-data">{embed_json(view.as_json())}</script>'),
            Markup(f"<script>{js}</script>"),
        ],
        "\n",
    )
    return f'<!DOCTYPE html>\n<html lang="en">\n<head>\n{head}\n</head>\n<body>\n{body}\n</body>\n</html>\n'
