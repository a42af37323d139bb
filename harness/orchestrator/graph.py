"""The parent graph, wired once: plan → approve → research ×N → fan-in → analyze → write → review → revise | finalize.

Every routing decision is here, so the whole control flow reads in one place: where the
run stops, the plan loop's bound (`MAX_PLAN_ROUNDS`), the fan-out to one research branch
per question, how a review routes, the revise loop's bound (`max_revisions`) and where a
revise round goes, and where a resumed budget gate goes back to.

The nodes (`nodes.py`) only report what happened. A node that must end the run says so by
setting `outcome` (and why, in `reason`), and every edge here sends a set outcome to `stop`:
a step's delegation failed or ran out of the run's budget (`Pipeline._stop_on_failure`), a
critical research branch broke or the budget cut research (`Pipeline.fan_in`), a plan or a
final draft was rejected (`approve_plan`, `finalize_gate`), or a step wrote nothing.
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.types import Send

from harness.contract.statuses import PASS, REVISE
from harness.orchestrator.nodes import Pipeline
from harness.orchestrator.state import RunState

# LangGraph steps one run may take: plan rounds, one research step per branch, and every
# revise round's steps fit well under this, so reaching it means a routing bug, not work.
RECURSION_LIMIT = 200
# Plans a run may draft: a plan rejected with feedback is refined until this many were written.
MAX_PLAN_ROUNDS = 3


def _unless_stopped(next_node: str):
    return lambda state: "stop" if state.get("outcome") else next_node


def _fan_out(p: Pipeline):
    """One research branch per question still to research, run in parallel; with none left, on to analyze."""

    def route(state: RunState):
        todo = state.get("todo") or []
        if not todo:
            return "analyze"
        p.start_research()
        review = state.get("review") if state.get("round", 0) else None
        return [Send("research", {"qid": qid, "round": state.get("round", 0), "review": review}) for qid in todo]

    return route


def _after_approval(fan_out):
    """An approved plan fans out; a plan rejected with feedback goes back to the Planner while fewer than
    `MAX_PLAN_ROUNDS` plans were written — the plan loop's bound; past it the run stops (rejected)."""

    def route(state: RunState):
        if state.get("outcome"):
            return "stop"
        if state.get("plan_feedback"):
            return "plan" if state.get("plan_rounds", 1) < MAX_PLAN_ROUNDS else "stop"
        return fan_out(state)

    return route


def _after_review(max_revisions: int):
    """A passing draft goes to the final gate; a draft to revise gets another round only while
    fewer than `max_revisions` rounds were done — the revise loop's bound; anything else stops."""

    def route(state: RunState) -> str:
        if state.get("outcome"):
            return "stop"
        if state.get("verdict") == PASS:
            return "final_gate"
        if state.get("verdict") == REVISE and state.get("round", 0) < max_revisions:
            return "revise"
        return "stop"

    return route


def _after_revise(p: Pipeline, fan_out):
    """A revise round researches again the questions the review sends back to the Researcher; else it
    rebuilds the claim table when a defect goes to the Analyst (or to the Researcher without a question
    to research); else it rewrites. The decision is traced (`revise_research|analyze|write`)."""

    def route(state: RunState):
        todo = state.get("todo") or []
        routes = set(state.get("review_routes") or ())
        nxt = "research" if todo else ("analyze" if routes & {"analyst", "researcher"} else "write")
        p.decided(
            f"revise_{nxt}",
            {"round": state.get("round", 0), "defects": state.get("review_errors", 0), "research": todo},
        )
        return fan_out(state) if nxt == "research" else nxt

    return route


def _after_stop(fan_out):
    """Out of the stop node: the end, or (after a budget gate was answered) back to the step the budget cut."""

    def route(state: RunState):
        if state.get("outcome"):
            return "end"
        step = state.get("stopped_at") or "analyze"
        return fan_out(state) if step == "research" else step

    return route


def build_graph(p: Pipeline, checkpointer=None):
    fan_out = _fan_out(p)
    g = StateGraph(RunState)
    g.add_node("plan", p.plan)
    g.add_node("approve_plan", p.approve_plan)
    # a Send target: its input is the ResearchTask each Send carries, not the graph's state
    g.add_node("research", p.research)  # type: ignore[arg-type]
    g.add_node("fan_in", p.fan_in)
    g.add_node("analyze", p.analyze)
    g.add_node("write", p.write)
    g.add_node("review", p.review)
    g.add_node("revise", p.revise)
    g.add_node("final_gate", p.finalize_gate)
    g.add_node("finalize", p.finalize)
    g.add_node("stop", p.stop)

    g.add_edge(START, "plan")
    g.add_conditional_edges("plan", _unless_stopped("approve_plan"), ["approve_plan", "stop"])
    g.add_conditional_edges("approve_plan", _after_approval(fan_out), ["plan", "research", "analyze", "stop"])
    g.add_edge("research", "fan_in")
    g.add_conditional_edges("fan_in", _unless_stopped("analyze"), ["analyze", "stop"])
    g.add_conditional_edges("analyze", _unless_stopped("write"), ["write", "stop"])
    g.add_conditional_edges("write", _unless_stopped("review"), ["review", "stop"])
    g.add_conditional_edges("review", _after_review(p.run.config.max_revisions), ["final_gate", "revise", "stop"])
    g.add_conditional_edges("revise", _after_revise(p, fan_out), ["research", "analyze", "write"])
    g.add_conditional_edges("final_gate", _unless_stopped("finalize"), ["finalize", "stop"])
    g.add_edge("finalize", END)
    # The stop node ends the run, except at a budget gate a resume answered: then back to the step it cut.
    g.add_conditional_edges(
        "stop",
        _after_stop(fan_out),
        {
            "end": END,
            "plan": "plan",
            "research": "research",
            "analyze": "analyze",
            "write": "write",
            "review": "review",
        },
    )
    return g.compile(checkpointer=checkpointer)


def graph_config(thread_id: str | None, concurrency: int) -> dict[str, Any]:
    """The LangGraph run config of one run: its thread (None inside a server, which names it), branches at once, step bound."""
    config: dict[str, Any] = {"max_concurrency": concurrency, "recursion_limit": RECURSION_LIMIT}
    if thread_id is not None:
        config["configurable"] = {"thread_id": thread_id}
    return config
