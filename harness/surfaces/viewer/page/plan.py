"""The plan, its approval, refinement and the run's decisions."""

from __future__ import annotations

from harness.contract.statuses import DELIVERABLE, RESEARCH
from harness.surfaces.viewer.markup import Markup, el
from harness.surfaces.viewer.model import Approval, Decision, Plan, Question, Refinement, RunView
from harness.surfaces.viewer.page.common import (
    _list,
    _section,
    _short,
    _table,
    badge,
)

# ---- plan ------------------------------------------------------------------------------------


def _approval(approval: Approval | None) -> Markup:
    if approval is None:
        return el("p", badge("not decided", "pending"), " No approval recorded for this revision.", class_="approval")
    extra = [f"by {approval.by}", f"at {approval.at}"]
    if approval.edited:
        extra.append("edited before approval")
    return el(
        "div",
        badge(approval.decision or "?"),
        " ",
        " · ".join(extra),
        " · plan sha256 ",
        _short(approval.plan_sha256),
        el("blockquote", approval.feedback) if approval.feedback else None,
        class_="approval",
    )


def plan_section(view: RunView) -> Markup:
    plan = view.plan
    if plan is None:
        return _section("v-plan", "Plan", el("p", "No plan yet.", class_="empty"))
    # the deliverable is shown above as the Deliverable, not as research
    rows = [_question_row(q) for q in plan.questions if q.kind != DELIVERABLE]
    return _section(
        "v-plan",
        "Plan",
        _approval(plan.approval),
        _plan_facts(plan),
        el("h3", "Questions"),
        _table(
            ["id", "kind", "critical", "branch", "question", "criteria", "sources", "search terms"],
            rows,
            cls="questions",
        ),
        refinement_part(plan.refinement),
        el("h3", "Decisions"),
        _table(["gate", "decision", "by", "at", "feedback", "sha256"], _decision_rows(view.decisions)),
        extra=el("small", f" revision {plan.revision}"),
    )


def _plan_facts(plan: Plan) -> Markup:
    """What the plan delivers and bounds: its deliverable, scope, criteria and stop conditions."""
    return el(
        "dl",
        el("dt", "Deliverable"),
        el("dd", plan.deliverable),
        el("dt", "In scope"),
        el("dd", ", ".join(plan.in_scope) or "—"),
        el("dt", "Out of scope"),
        el("dd", ", ".join(plan.out_of_scope) or "—"),
        el("dt", "Criteria"),
        el("dd", ", ".join(plan.criteria) or "—"),
        el("dt", "Stop conditions"),
        el("dd", _list(plan.stop_conditions)),
        class_="facts",
    )


def _question_row(q: Question) -> Markup:
    """One research question of the plan, with how its branch ended (linked to by its `v-q-` id)."""
    return el(
        "tr",
        el("td", el("strong", q.id), " ", badge(q.tag, "tag") if q.tag else None),
        el("td", q.kind),
        el("td", "critical" if q.critical else "—"),
        el("td", badge(q.branch) if q.branch else "—"),
        el("td", q.text),
        el("td", ", ".join(q.criteria)),
        el("td", ", ".join(q.allowed_sources or ["corpus"])),
        el("td", _list(q.search_terms)),
        id=f"v-q-{q.id}",
    )


def branches_table(view: RunView) -> Markup:
    """Each research question's branch: its status (pending until it has one) and the cards it has written so far
    (the app's run page, live)."""
    cards: dict[str | None, int] = {}
    for card in view.cards:
        cards[card.question_id] = cards.get(card.question_id, 0) + 1
    questions = [q for q in view.plan.questions if q.kind == RESEARCH and q.id] if view.plan else []
    if not questions:
        return el("p", "no branches yet", class_="muted")
    rows = [
        el(
            "tr",
            el("td", q.id),
            el("td", q.text),
            el("td", badge(q.branch) if q.branch else el("span", "pending", class_="muted")),
            el("td", f"{cards.get(q.id, 0)} card(s)", class_="cards"),
            data_qid=q.id,
        )
        for q in questions
    ]
    return el("table", el("tbody", rows), id="branches")


def refinement_part(refinement: Refinement | None) -> Markup | None:
    """The feedback that refined the plan and what it changed, question by question; None when never refined."""
    if refinement is None:
        return None
    changes = [
        el("tr", el("td", c.question_id), el("td", badge(c.tag, "tag")), el("td", c.note)) for c in refinement.changes
    ]
    return el(
        "div",
        el("h3", "Refinement"),
        el("blockquote", refinement.feedback),
        _table(["question", "tag", "what changed"], changes),
    )


def _decision_rows(decisions: list[Decision]) -> list[Markup]:
    """The run's decisions at its gates, one row each, bound to the hash of what was decided."""
    return [
        el(
            "tr",
            el("td", d.gate),
            el("td", badge(d.decision or "?")),
            el("td", d.by),
            el("td", d.at),
            el("td", d.feedback or ""),
            el("td", _short(d.sha256)),
        )
        for d in decisions
    ]
