"""The parent graph, wired once: plan → approve → research ×N → fan-in → analyze → write → review → revise | finalize."""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph

from .nodes import Pipeline
from .state import RunState


def _unless_stopped(next_node: str):
    return lambda state: "stop" if state.get("outcome") else next_node


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
    g.add_conditional_edges("fan_in", p.after_fan_in, ["analyze", "stop"])
    g.add_conditional_edges("analyze", _unless_stopped("write"), ["write", "stop"])
    g.add_conditional_edges("write", _unless_stopped("review"), ["review", "stop"])
    g.add_conditional_edges("review", p.route, ["final_gate", "revise", "stop"])
    g.add_conditional_edges("revise", p.after_revise, ["research", "analyze", "write"])
    g.add_conditional_edges("final_gate", p.after_gate, ["finalize", "stop"])
    g.add_edge("finalize", END)
    g.add_edge("stop", END)
    return g.compile(checkpointer=checkpointer)
