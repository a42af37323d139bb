"""The page header: the run's status, tiles of figures, lineage and the section links."""

from __future__ import annotations

from typing import Any

from harness.contract.statuses import BUDGET_DIMENSIONS
from harness.surfaces.summary import budget_amount, cost_text, dollars
from harness.surfaces.viewer.markup import Markup, el, join
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


def _run_link(run: dict[str, Any]) -> Markup:
    """A sibling run's viewer (runs live side by side in one runs folder), with its question."""
    return join([el("a", el("code", run["run_id"]), href=f"../{run['run_id']}/index.html"), " ", run["question"] or ""])


def _lineage(lineage: dict[str, Any]) -> Markup | None:
    rows = []
    if lineage.get("parent"):
        rows.append(el("div", "Follows up: ", _run_link(lineage["parent"]), class_="lineage-parent"))
    if lineage.get("children"):
        rows.append(
            el(
                "div",
                "Follow-ups: ",
                join([_run_link(c) for c in lineage["children"]], " · "),
                class_="lineage-children",
            )
        )
    return el("div", rows, class_="lineage") if rows else None


def header(data: dict[str, Any]) -> Markup:
    s = data["summary"]
    plan, src, claims = s["plan"], s["sources"], s["claims"]
    claim_note = " · ".join(f"{k.replace('_', ' ')} {v}" for k, v in claims.items() if k != "total" and v)
    reviews = [f"{r['path'].split('/')[-1].removesuffix('.json')}: {r['verdict']}" for r in s["reviews"]]
    spent, limits = s["budget"]["spent"], s["budget"]["limits"]
    budget = [
        f"{k.replace('_', ' ')} {budget_amount(k, spent.get(k, 0))} / {budget_amount(k, limits.get(k))}"
        for k in BUDGET_DIMENSIONS
        if k in spent or k in limits
    ]
    cost = s.get("cost")
    engines = sorted({e for e in ((data["run"].get("engines") or {}).values()) if e})
    tiles = [
        _tile(
            "Plan",
            f"rev {plan['revision']}" if plan["revision"] else "none",
            "approved" if plan["approved"] else "not approved",
            f"{len(plan['questions'])} questions",
        ),
        _tile(
            "Sources",
            src["total"],
            f"{src['primary']} primary · {src['secondary']} secondary",
            f"{src['flagged']} flagged ({src.get('flagged_sentences', 0)} sentences) · {src['duplicates']} duplicate hits",
        ),
        _tile("Cards", s["cards"]),
        _tile("Claims", claims["total"], claim_note),
        _tile("Drafts", len(s["drafts"]), " · ".join(reviews)),
        _tile("Budget", budget[0] if budget else "—", *budget[1:]),
        *([_tile("Cost", dollars(cost["usd"]), cost_text(cost).removeprefix("cost: "))] if cost else []),
        _tile(
            "Final report",
            "yes" if s["final_report"] else "not yet",
            ("engine: " + ", ".join(engines)) if engines else None,
        ),
    ]
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
    status = s["status"] or "unknown"
    return el(
        "header",
        el(
            "div",
            el("span", "research run", class_="brand"),
            el("code", s["run_id"] or "?"),
            badge(status),
            el("span", s["status_reason"], class_="reason") if s["status_reason"] else None,
            el("a", "← back to the app", href=data["app_link"], id="v-app") if data.get("app_link") else None,
            class_="title-row",
        ),
        el("h1", s["question"] or ""),
        _lineage(data.get("lineage") or {}),
        el("div", tiles, class_="tiles"),
        nav,
        class_="top",
    )
