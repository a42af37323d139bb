"""Budget, answers, quality ratios, cost per role, and the artifact index."""

from __future__ import annotations

from typing import Any

from harness.contract.statuses import BUDGET_DIMENSIONS
from harness.surfaces.summary import budget_amount, cost_text, dollars
from harness.surfaces.viewer.markup import Markup, el
from harness.surfaces.viewer.page.common import (
    _section,
    _short,
    _table,
)

# ---- metrics and files --------------------------------------------------------------------------


def metrics_section(data: dict[str, Any]) -> Markup:
    s = data["summary"]
    spent, limits = s["budget"]["spent"], s["budget"]["limits"]
    budget_rows = [
        el(
            "tr",
            el("td", k.replace("_", " ")),
            el("td", budget_amount(k, spent.get(k, 0)), class_="num"),
            el("td", budget_amount(k, limits.get(k)), class_="num"),
        )
        for k in BUDGET_DIMENSIONS
        if k in spent or k in limits
    ]
    parts = [el("h3", "Budget"), _table(["dimension", "spent", "limit"], budget_rows)]
    metrics = data.get("metrics")
    if isinstance(metrics, dict):
        ratio_rows = []
        for name, r in (metrics.get("ratios") or {}).items():
            if isinstance(r, dict):
                value = r.get("value")
                ratio_rows.append(
                    el(
                        "tr",
                        el("td", name.replace("_", " ")),
                        el("td", f"{value:.0%}" if isinstance(value, (int, float)) else "n/a", class_="num"),
                        el("td", f"{r.get('numerator')} / {r.get('denominator')}", class_="num"),
                    )
                )
        role_rows = [
            el(
                "tr",
                el("td", role),
                *[
                    el("td", str(v.get(k, "")), class_="num")
                    for k in ("delegations", "llm_calls", "tokens", "cached_tokens", "wall_seconds")
                ],
                el("td", dollars(v["usd"]) if "usd" in v else "", class_="num"),
            )
            for role, v in (metrics.get("roles") or {}).items()
            if isinstance(v, dict)
        ]
        answer_rows = [
            el(
                "tr",
                el("td", a.get("question_id")),
                el("td", a.get("question")),
                el("td", a.get("verdict"), class_=f"answer-{a.get('verdict')}"),
                el("td", a.get("reason")),
                el("td", ((a.get("reviewer") or {}).get("verdict")) or "—"),
            )
            for a in (s.get("answers") or {}).get("questions") or []
        ]
        if answer_rows:
            parts += [
                el("h3", "Answers (the answer check, evidence/answers.py)"),
                _table(["question", "text", "verdict", "reason", "model reviewer"], answer_rows),
            ]
        parts += [
            el("h3", "Quality (metrics.json)"),
            _table(["ratio", "value", "of"], ratio_rows),
            el("h3", "Cost per role"),
            *([el("p", cost_text(s["cost"]))] if s.get("cost") else []),
            _table(["role", "delegations", "model calls", "tokens", "cached tokens", "seconds", "dollars"], role_rows),
        ]
    return _section("v-metrics", "Metrics", parts)


def files_section(data: dict[str, Any]) -> Markup:
    rows = [
        el(
            "tr",
            el("td", el("a", a["path"], href=a["path"])),
            el("td", a.get("writer")),
            el("td", str(a.get("size", "")), class_="num"),
            el("td", _short(a.get("sha256"))),
            el("td", a.get("written_at")),
        )
        for a in data["artifacts"]
    ]
    hint = el(
        "p",
        "The artifact index of run.json: every file written through the workspace API, with its sha256. "
        "`research validate` re-checks them.",
        class_="hint",
    )
    return _section("v-files", "Files", hint, _table(["path", "writer", "bytes", "sha256", "written at"], rows))
