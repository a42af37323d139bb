"""A weaker model over the OpenAI protocol, through the real langchain-openai client at a local stub.

Each thing a 7-14B open model gets wrong gets an error naming what to fix and another turn,
never the end of the step; reasoning blocks are stripped before a reply is read as a status or
a document; and seeded weak models (tests/fakes/weak.py) complete runs with valid workspaces.
The figure over more seeds: `bench/bench_imperfect.py --transport openai-weak`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fakes.openai_stub import OpenAIStub, clean_env, start_llm_run, text, tool_calls
from fakes.realistic import DOCS, Quirks, random_quirks, realistic_policies
from fakes.scripted import OpenAIDispatch, openai_reply
from fakes.weak import THINK, WeakShape
from fakes.workspaces import delegations, manifest, write_docs
from harness.workspace.validate import validate_workspace

QUESTION = "How do asyncio.TaskGroup and asyncio.gather differ when a task fails?"


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return write_docs(tmp_path / "corpus", DOCS)


@pytest.fixture(autouse=True)
def _env(monkeypatch):
    clean_env(monkeypatch, api_key=None)
    monkeypatch.setenv("RESEARCH_LLM_RETRY_BASE_DELAY", "0")


def run(tmp_path, corpus, dispatch, name="runs"):
    with OpenAIStub(dispatch) as stub:
        result = start_llm_run(
            tmp_path / name, corpus, model="openai:qwen2.5-7b-instruct", base_url=stub.base_url, question=QUESTION
        )
        return result, stub.requests


def tool_answers(requests, role_start: str) -> list[str]:
    """Every tool result and harness notice the role's model was sent, once each, in order."""
    seen: dict[str, str] = {}
    for r in requests:
        if not r.system.startswith(role_start):
            continue
        for i, m in enumerate(r.messages):
            if m.get("role") == "tool":
                seen.setdefault(m["tool_call_id"], str(m.get("content")))
            elif m.get("role") == "user" and i > 1:
                seen.setdefault(f"user-{i}-{m.get('content')}", str(m.get("content")))
    return list(seen.values())


class ScriptedWriter:
    """The first replies of every writer delegation are `script` (wire replies); then the policy's own."""

    def __init__(self, script):
        self.script = script

    def __call__(self, role, turn, action, req):
        if role != "writer":
            return openai_reply(action)
        k = sum(1 for m in req.messages if m.get("role") == "assistant")
        return self.script[k](turn) if k < len(self.script) else openai_reply(action)


def _draft_call(turn, **args):
    target = "/" + (turn.brief_line("draft") or "drafts/draft-1.md")
    return {"file_path": target, "content": "# Report\n"} | args


def test_each_malformed_call_gets_an_error_naming_the_fix_and_the_step_goes_on(tmp_path, corpus):
    script = [
        lambda t: tool_calls([("write_file", {"path": _draft_call(t)["file_path"], "content": "# Report\n"})]),
        lambda t: tool_calls([("write_file", '{"file_path": "/drafts/draft-1.md", "content": "# Rep')]),
        lambda t: tool_calls([("save_file", _draft_call(t)), ("read_file", {"file_path": "/claims.json"})], content=THINK),
        lambda t: tool_calls([("write_file", '{"file_path": "/drafts/draft-1.md", "content": "# Re')], finish_reason="length"),
        lambda t: text(THINK + "# Report\n\nThe summary starts", finish_reason="length"),
    ]  # fmt: skip
    dispatch = OpenAIDispatch(realistic_policies(Quirks()), shape=ScriptedWriter(script))
    result, requests = run(tmp_path, corpus, dispatch)
    assert result.status == "completed", (result.status, result.reason)
    assert validate_workspace(result.run_dir) == []
    said = tool_answers(requests, "You are the Writer")
    wrong_name, bad_json, no_tool, _claims, cut_call, cut_text = said[:6]
    assert "write_file was not run: it takes no argument `path`" in wrong_name
    assert "use `file_path` for what you sent as `path`" in wrong_name and "empty path" not in wrong_name
    assert "write_file was not run: its arguments are not one valid JSON object" in bad_json
    assert "there is no tool named 'save_file' for the writer; your tools are: " in no_tool and "write_file" in no_tool
    assert "cut off at the output limit in the middle of write_file's arguments" in cut_call
    assert cut_text.startswith("[harness] Your last reply was cut off at the output limit")
    assert "[malformed reply 1 in a row; 4 in a row end this step]" in wrong_name
    assert "in a row" not in no_tool  # its reply also held a call that ran: not a malformed reply
    assert "[malformed reply 2 in a row; 4 in a row end this step]" in cut_text
    assert _claims.startswith("@@ lines")  # the good call of that reply ran
    assert not any("have not written" in s for s in said)  # the nudge was not spent on malformed calls
    (writer,) = delegations(result.run_dir, "writer")
    assert writer["detail"]["refused_writes"] == 0  # a call refused for its argument names is no refused write
    prompt = next(r.system for r in requests if r.system.startswith("You are the Writer"))
    assert "4 such replies in a row end the step" in prompt


def test_malformed_replies_past_their_bound_end_the_step_saying_what_happened(tmp_path, corpus):
    bad = lambda t: tool_calls([("write_file", "{not json")])  # noqa: E731
    dispatch = OpenAIDispatch(realistic_policies(Quirks()), shape=ScriptedWriter([bad] * 4))
    result, _ = run(tmp_path, corpus, dispatch)
    assert result.status == "failed"
    assert result.reason == "writer: its last 4 replies held only malformed tool calls"
    assert validate_workspace(result.run_dir) == []


def test_a_think_block_before_blocked_is_a_blocked_branch_not_a_failed_one(tmp_path, corpus):
    class ThinkingResearcher:
        def __call__(self, role, turn, action, req):
            if role == "researcher" and "Q2" in turn.brief.splitlines()[0]:
                return text(THINK + "BLOCKED: no_evidence (nothing on this in the corpus)")
            return openai_reply(action)

    result, _ = run(tmp_path, corpus, OpenAIDispatch(realistic_policies(Quirks()), shape=ThinkingResearcher()))
    assert result.status != "failed" and validate_workspace(result.run_dir) == []  # the review asks for Q2 again
    assert {e["stop_reason"] for e in delegations(result.run_dir, "researcher") if "Q2" in e["delegation_id"]} == {
        "blocked"
    }
    branches = manifest(result.run_dir)["branches"]
    assert branches["Q2"]["status"] == "blocked" and branches["Q2"]["reason"].startswith("no_evidence (nothing on")


def test_a_think_block_never_lands_in_a_document_written_from_a_reply(tmp_path, corpus):
    quirks = Quirks(draft_in_text_first=True, plan_in_text_first=True)

    class Thinking:
        def __call__(self, role, turn, action, req):
            reply = openai_reply(action)
            if role in ("writer", "planner") and isinstance(reply.body["choices"][0]["message"].get("content"), str):
                reply.body["choices"][0]["message"]["content"] = THINK + reply.body["choices"][0]["message"]["content"]
            return reply

    result, _ = run(tmp_path, corpus, OpenAIDispatch(realistic_policies(quirks), shape=Thinking()))
    assert result.status == "completed", result.reason
    notes = [n for e in delegations(result.run_dir) for n in e["detail"]["notes"]]
    assert any("written from the writer's reply" in n for n in notes)
    assert any("written from the planner's reply" in n for n in notes)
    for path in [result.run_dir / "plan.json", *(result.run_dir / "drafts").iterdir()]:
        assert "<think>" not in path.read_text() and "Let me think" not in path.read_text()
    assert json.loads((result.run_dir / "plan.json").read_text())["questions"]


SEEDS = range(10)


def test_seeded_weak_models_complete_nine_runs_in_ten_with_every_workspace_valid(tmp_path, corpus):
    completed, slips = 0, {}
    for seed in SEEDS:
        shape = WeakShape(seed)
        result, _ = run(
            tmp_path, corpus, OpenAIDispatch(realistic_policies(random_quirks(seed)), shape=shape), f"r{seed}"
        )
        assert validate_workspace(result.run_dir) == [], seed
        completed += result.status == "completed"
        for k, v in shape.slips.items():
            slips[k] = slips.get(k, 0) + v
    assert completed >= 0.9 * len(SEEDS), completed
    # the runs met every kind of slip, so the figure means something
    assert {"bad_json", "wrong_name", "extra_arg", "unknown_tool", "cut", "parallel", "think"} <= set(slips), slips
