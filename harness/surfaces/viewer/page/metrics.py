"""Budget, answers, quality ratios, cost per role, and the artifact index."""

from __future__ import annotations

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
    answer_rows = [
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
    parts = []
    if answer_rows:
        parts += [
            el("h3", "Answers (the answer check, evidence/answers.py)"),
            _table(["question", "text", "verdict", "reason", "model reviewer"], answer_rows),
        ]
    return parts + [
        el("h3", "Quality (metrics.json)"),
        _table(["ratio", "value", "of"], ratio_rows),
        el("h3", "Cost per role"),
        *([el("p", cost_text(view.cost))] if view.cost else []),
        _table(["role", "delegations", "model calls", "tokens", "cached tokens", "seconds", "dollars"], role_rows),
    ]


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
