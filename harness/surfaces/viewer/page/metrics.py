"""Budget, answers, quality ratios, cost per role, and the artifact index."""

from __future__ import annotations

from harness.contract.statuses import BUDGET_DIMENSIONS, LLM_CALLS, TOKENS, USD
from harness.surfaces.summary import budget_amount, cost_text, dollars
from harness.surfaces.viewer.markup import Markup, el
from harness.surfaces.viewer.model import Metrics, RunView
from harness.surfaces.viewer.page.common import (
    _section,
    _short,
    _table,
)

# ---- metrics and files --------------------------------------------------------------------------


def _budget_rows(view: RunView) -> list[Markup]:
    return [
        el(
            "tr",
            el("td", b.dimension.replace("_", " ")),
            el("td", budget_amount(b.dimension, b.spent), class_="num"),
            el("td", budget_amount(b.dimension, b.limit), class_="num"),
        )
        for b in view.budget
    ]


def _figure(value: float | None) -> str:
    return "" if value is None else str(value)


def _metrics_parts(view: RunView, metrics: Metrics) -> list[Markup]:
    """Answers, quality ratios and cost per role, once metrics.json is written."""
    ratio_rows = [
        el(
            "tr",
            el("td", r.name.replace("_", " ")),
            el("td", f"{r.value:.0%}" if r.value is not None else "n/a", class_="num"),
            el("td", f"{r.numerator} / {r.denominator}", class_="num"),
        )
        for r in metrics.ratios
    ]
    role_rows = [
        el(
            "tr",
            el("td", c.role),
            *[
                el("td", _figure(v), class_="num")
                for v in (c.delegations, c.llm_calls, c.tokens, c.cached_tokens, c.wall_seconds)
            ],
            el("td", dollars(c.usd) if c.usd is not None else "", class_="num"),
        )
        for c in metrics.roles
    ]
    return answers_part(view) + [
        el("h3", "Quality (metrics.json)"),
        _table(["ratio", "value", "of"], ratio_rows),
        el("h3", "Cost per role"),
        *([el("p", cost_text(view.cost))] if view.cost else []),
        _table(["role", "delegations", "model calls", "tokens", "cached tokens", "seconds", "dollars"], role_rows),
    ]


def answers_part(view: RunView) -> list[Markup]:
    """The answer check's verdict on each research question (none before metrics.json): the viewer's metrics and the
    app's run page both show it."""
    rows = [
        el(
            "tr",
            el("td", a.question_id),
            el("td", a.question),
            el("td", a.verdict, class_=f"answer-{a.verdict}"),
            el("td", a.reason),
            el("td", a.reviewer_verdict or "—"),
        )
        for a in view.answers
    ]
    if not rows:
        return []
    return [
        el("h3", "Answers (the answer check, evidence/answers.py)"),
        _table(["question", "text", "verdict", "reason", "model reviewer"], rows),
    ]


def budget_meters(view: RunView) -> Markup:
    """The budget as meters, spent against each limit (the app's run page, live): model calls and tokens only where
    a model runs (an offline run spends neither), dollars only under a dollar limit (what was spent is the cost's)."""
    lines = {b.dimension: b for b in view.budget}
    llm = not view.facts.engines or any(e != "offline" for e in view.facts.engines)
    rows = []
    for dim in BUDGET_DIMENSIONS:
        line = lines.get(dim)
        spent, limit = (line.spent or 0, line.limit) if line else (0, None)
        if (dim == USD and limit is None) or (not llm and dim in (LLM_CALLS, TOKENS)):
            continue
        meter = el("meter", min=0, max=limit, value=min(spent, limit), high=limit * 0.8) if limit else None
        rows.append(
            el(
                "tr",
                el("td", dim.replace("_", " ")),
                el("td", meter),
                el("td", f"{budget_amount(dim, spent)} / {budget_amount(dim, limit)}"),
                data_dim=dim,
            )
        )
    return el("table", el("tbody", rows), id="budget")


def cost_part(view: RunView) -> Markup:
    """The run's cost line and dollars per role that has run (the app's run page)."""
    cost = view.cost
    if not cost:
        return Markup("")
    rows = [
        el(
            "tr",
            el("td", role),
            el("td", str(r.get("llm_calls"))),
            el("td", str(r.get("tokens"))),
            el("td", str(r.get("cached_tokens") or 0)),
            el("td", dollars(r.get("usd"))),
            data_role=role,
        )
        for role, r in (cost.get("roles") or {}).items()
        if isinstance(r, dict) and r.get("delegations")
    ]
    head = el("thead", el("tr", [el("th", t) for t in ("role", "model calls", "tokens", "cached", "dollars")]))
    return el("div", el("p", cost_text(cost)), el("table", head, el("tbody", rows)), id="cost")


def metrics_section(view: RunView) -> Markup:
    parts = [el("h3", "Budget"), _table(["dimension", "spent", "limit"], _budget_rows(view))]
    if view.metrics is not None:
        parts += _metrics_parts(view, view.metrics)
    return _section("v-metrics", "Metrics", parts)


def files_section(view: RunView) -> Markup:
    rows = [
        el(
            "tr",
            el("td", el("a", a.path, href=a.path)),
            el("td", a.writer),
            el("td", _figure(a.size), class_="num"),
            el("td", _short(a.sha256)),
            el("td", a.written_at),
        )
        for a in view.artifacts
    ]
    hint = el(
        "p",
        "The artifact index of run.json: every file written through the workspace API, with its sha256. "
        "`research validate` re-checks them.",
        class_="hint",
    )
    return _section("v-files", "Files", hint, _table(["path", "writer", "bytes", "sha256", "written at"], rows))
