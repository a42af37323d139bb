"""A role whose declared outputs have all landed ends its step without another model call; a Researcher,
whose cards come through a service, and a step whose write was refused, are asked again."""

from __future__ import annotations

import json

from engines.test_llm_engine import ScriptedModel, make_ctx, tool_reply
from langchain_core.messages import AIMessage

from fakes.workspaces import make_plan
from harness.engines.llm.agent import DeepAgentRole
from harness.runtime.interface import Brief

pytest_plugins = ["engines.test_llm_engine"]


def test_a_planner_that_wrote_its_plan_ends_without_another_call(ws, specs):
    spec = specs["planner"]
    brief = Brief(role="planner", task="Plan.", outputs=("plan.json",))
    plan = make_plan()
    model = ScriptedModel(
        script=[
            tool_reply("write_file", {"file_path": "/plan.json", "content": json.dumps(plan)}, "w1"),
            AIMessage("done: plan.json written"),  # what the model would have said, at the price of a call
        ]
    )
    ctx = make_ctx(ws, spec, brief)
    result = DeepAgentRole(spec, model).run(brief, ctx)
    assert result.status == "completed" and "plan.json" in result.summary
    assert len(model.calls) == 1 and ctx.budget.llm_calls == 1
    assert set(ctx.files.outputs) == {"plan.json"} and not ctx.files.errors
    assert any("without another model call" in n for n in ctx.notes)


def test_a_refused_write_is_answered_and_the_corrected_one_ends_the_step(ws, specs):
    spec = specs["planner"]
    brief = Brief(role="planner", task="Plan.", outputs=("plan.json",))
    bad = make_plan()
    del bad["deliverable"]
    model = ScriptedModel(
        script=[
            tool_reply("write_file", {"file_path": "/plan.json", "content": json.dumps(bad)}, "w1"),
            tool_reply("write_file", {"file_path": "/plan.json", "content": json.dumps(make_plan())}, "w2"),
            AIMessage("done"),
        ]
    )
    ctx = make_ctx(ws, spec, brief)
    result = DeepAgentRole(spec, model).run(brief, ctx)
    assert result.status == "completed"
    assert len(model.calls) == 2  # the refusal went back to the model; the landed write ended the step


def test_a_step_with_nothing_to_write_still_answers(ws, specs):
    spec = specs["planner"]
    brief = Brief(role="planner", task="Plan.")  # no declared output: the model says when it is done
    model = ScriptedModel(script=[tool_reply("read_file", {"file_path": "/plan.json"}, "r1"), AIMessage("read it")])
    result = DeepAgentRole(spec, model).run(brief, make_ctx(ws, spec, brief))
    assert result.status == "completed" and len(model.calls) == 2 and result.summary == "read it"
