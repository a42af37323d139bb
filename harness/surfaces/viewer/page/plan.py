"""The plan, its approval, refinement and the run's decisions."""

from __future__ import annotations

from typing import Any

from harness.contract.statuses import DELIVERABLE
from harness.surfaces.viewer.markup import Markup, el
from harness.surfaces.viewer.page.common import (
    _list,
    _section,
    _short,
    _table,
    badge,
)

# ---- plan ------------------------------------------------------------------------------------


def _approval(approval: Any) -> Markup:
    if not isinstance(approval, dict):
        return el("p", badge("not decided", "pending"), " No approval recorded for this revision.", class_="approval")
    extra = [f"by {approval.get('by')}", f"at {approval.get('at')}"]
    if approval.get("edited"):
        extra.append("edited before approval")
    return el(
        "div",
        badge(approval.get("decision") or "?"),
        " ",
        " · ".join(extra),
        " · plan sha256 ",
        _short(approval.get("plan_sha256")),
        el("blockquote", approval.get("feedback")) if approval.get("feedback") else None,
        class_="approval",
    )


def plan_section(data: dict[str, Any]) -> Markup:
    plan = data.get("plan")
    if not isinstance(plan, dict):
        return _section("v-plan", "Plan", el("p", "No plan yet.", class_="empty"))
    branches = {q["id"]: q.get("branch") for q in data["summary"]["plan"]["questions"]}
    rows = [
        _question_row(q, branches.get(q.get("id")))
        for q in plan.get("questions") or []
        # the deliverable is shown above as the Deliverable, not as research
        if isinstance(q, dict) and q.get("kind") != DELIVERABLE
    ]
    return _section(
        "v-plan",
        "Plan",
        _approval(plan.get("approval")),
        _plan_facts(plan),
        el("h3", "Questions"),
        _table(
            ["id", "kind", "critical", "branch", "question", "criteria", "sources", "search terms"],
            rows,
            cls="questions",
        ),
        _refinement(plan.get("refinement")),
        el("h3", "Decisions"),
        _table(["gate", "decision", "by", "at", "feedback", "sha256"], _decision_rows(data["run"])),
        extra=el("small", f" revision {plan.get('revision')}"),
    )


def _plan_facts(plan: dict[str, Any]) -> Markup:
    """What the plan delivers and bounds: its deliverable, scope, criteria and stop conditions."""
    scope = plan.get("scope") or {}
    return el(
        "dl",
        el("dt", "Deliverable"),
        el("dd", plan.get("deliverable")),
        el("dt", "In scope"),
        el("dd", ", ".join(scope.get("in_scope") or []) or "—"),
        el("dt", "Out of scope"),
        el("dd", ", ".join(scope.get("out_of_scope") or []) or "—"),
        el("dt", "Criteria"),
        el("dd", ", ".join(plan.get("criteria") or []) or "—"),
        el("dt", "Stop conditions"),
        el("dd", _list(plan.get("stop_conditions") or [])),
        class_="facts",
    )


def _question_row(q: dict[str, Any], branch: Any) -> Markup:
    """One research question of the plan, with how its branch ended (linked to by its `v-q-` id)."""
    return el(
        "tr",
        el("td", el("strong", q.get("id")), " ", badge(q["tag"], "tag") if q.get("tag") else None),
        el("td", q.get("kind")),
        el("td", "critical" if q.get("critical") else "—"),
        el("td", badge(branch) if branch else "—"),
        el("td", q.get("text")),
        el("td", ", ".join(q.get("criteria") or [])),
        el("td", ", ".join(q.get("allowed_sources") or ["corpus"])),
        el("td", _list(q.get("search_terms") or [])),
        id=f"v-q-{q.get('id')}",
    )


def _refinement(refinement: Any) -> Markup | None:
    """The feedback that refined the plan and what it changed, question by question; None when never refined."""
    if not isinstance(refinement, dict):
        return None
    changes = [
        el("tr", el("td", c.get("question_id")), el("td", badge(c.get("tag"), "tag")), el("td", c.get("note")))
        for c in refinement.get("changes") or []
        if isinstance(c, dict)
    ]
    return el(
        "div",
        el("h3", "Refinement"),
        el("blockquote", refinement.get("feedback")),
        _table(["question", "tag", "what changed"], changes),
    )


def _decision_rows(run: dict[str, Any]) -> list[Markup]:
    """The run's decisions at its gates, one row each, bound to the hash of what was decided."""
    return [
        el(
            "tr",
            el("td", d.get("gate")),
            el("td", badge(d.get("decision") or "?")),
            el("td", d.get("by")),
            el("td", d.get("at")),
            el("td", d.get("feedback") or ""),
            el("td", _short(d.get("sha256"))),
        )
        for d in run.get("decisions") or []
        if isinstance(d, dict)
    ]
