"""A role whose declared outputs have all landed ends its step without another model call, and so does a
Researcher after a reply that only recorded cards, once its cards answer its question; a Researcher that reads on
in the same reply, one whose cards do not answer yet, and a step whose write was refused, are asked again."""

from __future__ import annotations

import json

from engines.test_llm_engine import (
    ScriptedModel,
    call,
    card_from_last_hit,
    make_ctx,
    research_tools,
    tool_reply,
)
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


def _researcher_run(ws, specs, *script):
    spec = specs["researcher"]
    brief = Brief(role="researcher", task="Find evidence for Q1.", question_id="Q1", outputs=("source-cards/",))
    search = tool_reply("search", {"query": "TaskGroup tasks cancelled exception", "k": 3}, "s1")
    model = ScriptedModel(script=[search, *script])
    ctx = make_ctx(ws, spec, brief, tools=research_tools(ws))
    return DeepAgentRole(spec, model).run(brief, ctx), model, ctx


def test_a_researcher_whose_cards_answer_its_question_ends_without_a_closing_reply(ws, specs):
    result, model, ctx = _researcher_run(ws, specs, card_from_last_hit, AIMessage("1 card"))
    assert result.status == "completed" and len(model.calls) == 2 and ctx.budget.llm_calls == 2
    assert len(ctx.files.outputs) == 1 and any("without a closing reply" in n for n in ctx.notes)


def test_a_researcher_that_reads_on_in_the_same_reply_is_asked_again(ws, specs):
    def card_and_read(msgs):
        card = card_from_last_hit(msgs)
        return AIMessage("", tool_calls=[*card.tool_calls, call("read_source", {"source_id": "src-000000000000"}, "r")])

    result, model, ctx = _researcher_run(ws, specs, card_and_read, AIMessage("1 card"))
    assert result.status == "completed" and len(model.calls) == 3 and result.summary == "1 card"


def test_a_researcher_whose_cards_do_not_answer_yet_decides_itself(ws, specs):
    plan = make_plan()
    plan["questions"][0]["text"] = "When was asyncio.timeout added?"  # a date, and a name no card holds
    ws.write("plan.json", plan, specs["planner"].policy)
    result, model, ctx = _researcher_run(ws, specs, card_from_last_hit, AIMessage("1 card"))
    assert result.status == "completed" and len(model.calls) == 3 and result.summary == "1 card"
    assert not any("without a closing reply" in n for n in ctx.notes)
