"""The parent graph, wired once: plan → approve → research ×N → fan-in → analyze → write → review → revise | finalize.

The routing is here too, so the whole control flow reads in one place: where the run
stops early, how a review routes, and the revise loop's bound (`max_revisions`).
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph

from harness.orchestrator.nodes import Pipeline
from harness.orchestrator.state import RunState

# LangGraph steps one run may take: plan rounds, one research step per branch, and every
# revise round's steps fit well under this, so reaching it means a routing bug, not work.
RECURSION_LIMIT = 200


def _unless_stopped(next_node: str):
    return lambda state: "stop" if state.get("outcome") else next_node


def _after_review(max_revisions: int):
    """A passing draft goes to the final gate; a draft to revise gets another round only while
    fewer than `max_revisions` rounds were done — the revise loop's bound; anything else stops."""

    def route(state: RunState) -> str:
        if state.get("outcome"):
            return "stop"
        if state.get("verdict") == "pass":
            return "final_gate"
        if state.get("verdict") == "revise" and state.get("round", 0) < max_revisions:
            return "revise"
        return "stop"

    return route


def build_graph(p: Pipeline, checkpointer=None):
    g = StateGraph(RunState)
    g.add_node("plan", p.plan)
    g.add_node("approve_plan", p.approve_plan)
    g.add_node("research", p.research)
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
    g.add_conditional_edges("approve_plan", p.after_approval, ["plan", "research", "analyze", "stop"])
    g.add_edge("research", "fan_in")
    g.add_conditional_edges("fan_in", _unless_stopped("analyze"), ["analyze", "stop"])
    g.add_conditional_edges("analyze", _unless_stopped("write"), ["write", "stop"])
    g.add_conditional_edges("write", _unless_stopped("review"), ["review", "stop"])
    g.add_conditional_edges("review", _after_review(p.run.config.max_revisions), ["final_gate", "revise", "stop"])
    g.add_conditional_edges("revise", p.after_revise, ["research", "analyze", "write"])
    g.add_conditional_edges("final_gate", _unless_stopped("finalize"), ["finalize", "stop"])
    g.add_edge("finalize", END)
    # The stop node ends the run, except at a budget gate a resume answered: then back to the step it cut.
    g.add_conditional_edges(
        "stop",
        p.after_stop,
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
