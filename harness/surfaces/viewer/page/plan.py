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
    scope = plan.get("scope") or {}
    facts = el(
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
    rows = []
    for q in plan.get("questions") or []:
        if not isinstance(q, dict) or q.get("kind") == DELIVERABLE:  # shown above as the Deliverable, not research
            continue
        branch = branches.get(q.get("id"))
        rows.append(
            el(
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
        )
    refinement = plan.get("refinement")
    ref_block = None
    if isinstance(refinement, dict):
        changes = [
            el("tr", el("td", c.get("question_id")), el("td", badge(c.get("tag"), "tag")), el("td", c.get("note")))
            for c in refinement.get("changes") or []
            if isinstance(c, dict)
        ]
        ref_block = el(
            "div",
            el("h3", "Refinement"),
            el("blockquote", refinement.get("feedback")),
            _table(["question", "tag", "what changed"], changes),
        )
    decisions = [
        el(
            "tr",
            el("td", d.get("gate")),
            el("td", badge(d.get("decision") or "?")),
            el("td", d.get("by")),
            el("td", d.get("at")),
            el("td", d.get("feedback") or ""),
            el("td", _short(d.get("sha256"))),
        )
        for d in data["run"].get("decisions") or []
        if isinstance(d, dict)
    ]
    return _section(
        "v-plan",
        "Plan",
        _approval(plan.get("approval")),
        facts,
        el("h3", "Questions"),
        _table(
            ["id", "kind", "critical", "branch", "question", "criteria", "sources", "search terms"],
            rows,
            cls="questions",
        ),
        ref_block,
        el("h3", "Decisions"),
        _table(["gate", "decision", "by", "at", "feedback", "sha256"], decisions),
        extra=el("small", f" revision {plan.get('revision')}"),
    )
