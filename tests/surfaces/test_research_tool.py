"""`harness.research_tool(...)` inside a real `create_deep_agent` agent driven by a scripted chat model.

The model calls the tool once and answers with what it read; the tool runs a whole offline run on the
fixture corpus, bounded by the budget the app gave it (the harness's defaults for the rest), and
answers with the report and each cited claim's quotes, spans and sources, which the tests check
against the run folder. A run its budget stops reaches the model as a tool error naming the status.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from deepagents import create_deep_agent
from langchain_core.messages import HumanMessage, ToolMessage

import harness
from fakes.scripted import Say, ScriptedChatModel, Turn, call
from fakes.workspaces import FIXTURE_QUESTION
from harness.errors import UsageError
from harness.runtime.budget import DEFAULT_RUN_LIMITS
from harness.workspace.validate import validate_workspace


def caller(question: str):
    """A model that researches `question` once, then repeats the tool's first line (or its error) as its answer."""

    def policy(turn: Turn):
        if not turn.results:
            return call("research", question=question)
        result = turn.last[0]
        return Say(("ERROR " if result.error else "ANSWER ") + result.content.splitlines()[0])

    return ScriptedChatModel(policy=policy)


def ask(tool, question: str) -> tuple[dict, ToolMessage]:
    agent = create_deep_agent(model=caller(question), tools=[tool], system_prompt="You answer with verified research.")
    out = agent.invoke({"messages": [HumanMessage(question)]})
    answers = [m for m in out["messages"] if isinstance(m, ToolMessage) and m.name == "research"]
    assert len(answers) == 1
    return out, answers[0]


def test_a_deep_agent_gets_the_verified_report_and_its_evidence(fixture_corpus, tmp_path):
    tool = harness.research_tool(corpus=fixture_corpus, runs_dir=tmp_path / "runs", budget={"searches": 40})
    out, message = ask(tool, FIXTURE_QUESTION)

    artifact = message.artifact
    run_dir = Path(artifact["run_dir"])
    report = (run_dir / "final-report.md").read_text(encoding="utf-8")
    assert message.status == "success" and message.content.startswith(report.rstrip())
    assert out["messages"][-1].text == "ANSWER " + report.splitlines()[0]
    assert validate_workspace(run_dir) == [] and artifact["validation"]["clean"]
    manifest = json.loads((run_dir / "run.json").read_text())
    assert manifest["status"] == "completed"
    # bounded in every counted dimension; dollars have no default and stay unset
    assert manifest["budget"]["limits"] == {**DEFAULT_RUN_LIMITS, "searches": 40, "usd": None}

    assert artifact["cited_claims"] and list(artifact["evidence"]) == artifact["cited_claims"]
    for claim_id, item in artifact["evidence"].items():
        assert f"- {claim_id} ({item['status']}): {item['statement']}" in message.content
        for card in item["cards"]:
            source = card["source"]
            snapshot = (run_dir / "sources" / f"{source['source_id']}.txt").read_text(encoding="utf-8")
            assert card["quote"] == snapshot[card["span"]["start"] : card["span"]["end"]] and card["verbatim"]
            span = f"characters {card['span']['start']}-{card['span']['end']}"
            assert f'"{card["quote"]}" ({source["title"]}, {source["path"]}, {span})' in message.content
    assert f"Run folder: {run_dir}" in message.content and "`research validate`: clean." in message.content


def test_a_run_its_budget_stops_is_a_tool_error_the_model_reads(fixture_corpus, tmp_path):
    tool = harness.research_tool(corpus=fixture_corpus, runs_dir=tmp_path / "runs", budget={"searches": 1})
    out, message = ask(tool, FIXTURE_QUESTION)
    assert message.status == "error"
    assert message.content.startswith("the research run ended budget_exhausted")
    assert out["messages"][-1].text.startswith("ERROR the research run ended budget_exhausted")
    (run_dir,) = (tmp_path / "runs").iterdir()
    assert str(run_dir) in message.content and validate_workspace(run_dir) == []


@pytest.mark.parametrize(
    ("budget", "says"),
    [
        ({"searches": 0}, "budget.searches: must be more than 0"),
        ({"llm_calls": None, "tokens": -5}, "budget.tokens: must be more than 0"),
        ({"searches": 2.5}, "budget.searches: expected an integer"),
        ({"dollars": 3}, "budget.dollars: not a budget"),
    ],
)
def test_a_tool_cannot_be_built_without_a_bound(budget, says, tmp_path):
    with pytest.raises(UsageError) as err:
        harness.research_tool(corpus=tmp_path, budget=budget)
    assert str(err.value).startswith(says) and "\n" not in str(err.value)
