"""The page header: the run's status, tiles of figures, lineage and the section links."""

from __future__ import annotations

from typing import Any

from harness.surfaces.summary import budget_amount, cost_text, dollars
from harness.surfaces.viewer.markup import Markup, el, join
from harness.surfaces.viewer.model import Lineage, RunLink, RunView
from harness.surfaces.viewer.page.common import (
    badge,
)

# ---- header -----------------------------------------------------------------------------


def _tile(label: str, value: Any, *notes: Any) -> Markup:
    return el(
        "div",
        el("div", label, class_="tile-label"),
        el("div", value, class_="tile-value"),
        [el("div", n, class_="tile-note") for n in notes if n],
        class_="tile",
    )


def _run_link(run: RunLink) -> Markup:
    """A sibling run's viewer (runs live side by side in one runs folder), with its question."""
    return join([el("a", el("code", run.run_id), href=f"../{run.run_id}/index.html"), " ", run.question or ""])


def _lineage(lineage: Lineage) -> Markup | None:
    rows = []
    if lineage.parent:
        rows.append(el("div", "Follows up: ", _run_link(lineage.parent), class_="lineage-parent"))
    if lineage.children:
        rows.append(
            el(
                "div",
                "Follow-ups: ",
                join([_run_link(c) for c in lineage.children], " · "),
                class_="lineage-children",
            )
        )
    return el("div", rows, class_="lineage") if rows else None


def _tiles(view: RunView) -> list[Markup]:
    f = view.facts
    src = f.sources
    claim_note = " · ".join(f"{k.replace('_', ' ')} {v}" for k, v in f.claims.items() if v)
    reviews = [f"{r.path.split('/')[-1].removesuffix('.json')}: {r.verdict}" for r in view.reviews]
    budget = [
        f"{b.dimension.replace('_', ' ')} {budget_amount(b.dimension, b.spent)} / {budget_amount(b.dimension, b.limit)}"
        for b in view.budget
    ]
    cost = view.cost
    return [
        _tile(
            "Plan",
            f"rev {f.plan_revision}" if f.plan_revision else "none",
            "approved" if f.plan_approved else "not approved",
            f"{f.plan_questions} questions",
        ),
        _tile(
            "Sources",
            src.total,
            f"{src.primary} primary · {src.secondary} secondary",
            f"{src.flagged} flagged ({src.flagged_sentences} sentences) · {src.duplicates} duplicate hits",
        ),
        _tile("Cards", f.cards),
        _tile("Claims", f.claims_total, claim_note),
        _tile("Drafts", len(view.drafts), " · ".join(reviews)),
        _tile("Budget", budget[0] if budget else "—", *budget[1:]),
        *([_tile("Cost", dollars(cost["usd"]), cost_text(cost).removeprefix("cost: "))] if cost else []),
        _tile(
            "Final report",
            "yes" if f.final_report else "not yet",
            ("engine: " + ", ".join(f.engines)) if f.engines else None,
        ),
    ]


def header(view: RunView) -> Markup:
    f = view.facts
    nav = el(
        "nav",
        [
            el("a", label, href=f"#v-{key}")
            for key, label in (
                ("report", "Report"),
                ("evidence", "Evidence"),
                ("drafts", "Drafts & reviews"),
                ("plan", "Plan"),
                ("timeline", "Timeline"),
                ("metrics", "Metrics"),
                ("files", "Files"),
            )
        ],
    )
    status = f.status or "unknown"
    return el(
        "header",
        el(
            "div",
            el("span", "research run", class_="brand"),
            el("code", f.run_id or "?"),
            badge(status),
            el("span", f.status_reason, class_="reason") if f.status_reason else None,
            el("a", "← back to the app", href=view.app_link, id="v-app") if view.app_link else None,
            class_="title-row",
        ),
        el("h1", f.question or ""),
        _lineage(view.lineage),
        el("div", _tiles(view), class_="tiles"),
        nav,
        class_="top",
    )
