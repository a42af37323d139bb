"""The llm engine (deepagents) driven by scripted chat models: no network, no keys."""

from __future__ import annotations

import dataclasses
import json
import re
import socket
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from pydantic import Field

from fakes.workspaces import CARD_ID, CLAIMS, QUOTE, SOURCE_ID, SOURCE_TEXT, make_card, make_plan, source_record
from harness.contract.formats import sha256_text
from harness.contract.policy import TOOLS
from harness.engines.llm import models as llm_models
from harness.engines.llm.agent import DeepAgentRole, permission_rules
from harness.engines.llm.models import DEFAULT_MODEL, preflight, resolve_model
from harness.engines.llm.output_contract import output_contract
from harness.errors import BudgetExhausted, UsageError
from harness.runtime.budget import Budget, DelegationBudget, DelegationTimeout
from harness.runtime.context import AgentContext, open_context
from harness.runtime.files import WriteRetriesExhausted
from harness.runtime.interface import Brief
from harness.runtime.step import RunServices
from harness.sources.corpus import Corpus, Document
from harness.sources.index import CorpusIndex
from harness.sources.registry import SourceRegistry
from harness.sources.research_tools import ResearchTools
from harness.workspace.store import Workspace

# ---- scripted model ------------------------------------------------------------------------------


class ScriptedModel(GenericFakeChatModel):
    """Replies from `script` (an AIMessage, or a function of the messages); records what it was sent."""

    messages: Any = Field(default_factory=lambda: iter(()))
    script: list = Field(default_factory=list)
    said: list = Field(default_factory=list)
    calls: list = Field(default_factory=list)
    offered: list = Field(default_factory=list)

    def bind_tools(self, tools, *, tool_choice=None, **kw):
        self.offered.append([getattr(t, "name", None) or t.get("name") for t in tools])
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kw):
        from langchain_core.outputs import ChatGeneration, ChatResult

        self.calls.append(list(messages))
        if len(messages) == 1 and "Context Extraction Assistant" in str(messages[0].content):
            return ChatResult(generations=[ChatGeneration(message=AIMessage("SUMMARY: read plan.json several times."))])
        if not self.script:
            last = messages[-1]
            if isinstance(last, HumanMessage) and "[harness]" in str(last.content) and self.said:
                # nudged after its script ended: a real model says the same thing again
                return ChatResult(generations=[ChatGeneration(message=AIMessage(self.said[-1]))])
            raise AssertionError("the scripted model ran out of replies")
        step = self.script.pop(0)
        reply = step(list(messages)) if callable(step) else step
        if not reply.tool_calls:
            self.said.append(reply.text)
        return ChatResult(generations=[ChatGeneration(message=reply)])


def call(name: str, args: dict, cid: str) -> dict:
    return {"name": name, "args": args, "id": cid, "type": "tool_call"}


def tool_reply(name: str, args: dict, cid: str) -> AIMessage:
    return AIMessage("", tool_calls=[call(name, args, cid)])


def tool_messages(model: ScriptedModel) -> list[ToolMessage]:
    """The ToolMessages in the last conversation the model saw."""
    return [m for m in model.calls[-1] if isinstance(m, ToolMessage)]


# ---- workspace and context -------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("RESEARCH_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture
def ws(tmp_path: Path, specs) -> Workspace:
    ws = Workspace.create(tmp_path / "runs", "How does asyncio.TaskGroup handle failures?")
    ws.write("plan.json", make_plan(), specs["planner"].policy)
    return ws


@pytest.fixture
def evidence_ws(ws: Workspace, specs) -> Workspace:
    """Plan, one source and one card: what the Analyst needs."""
    ws.write(f"sources/{SOURCE_ID}.txt", SOURCE_TEXT, TOOLS)
    ws.write(f"sources/{SOURCE_ID}.json", source_record(), TOOLS)
    ws.write(f"source-cards/{CARD_ID}.json", make_card(), specs["researcher"].policy)
    return ws


def make_ctx(ws: Workspace, spec, brief: Brief, *, tools=None, web=None, run_limits=None) -> AgentContext:
    budget = DelegationBudget(Budget(run_limits or {}, {spec.role: {}}), spec.role, spec.limits, None)
    return open_context(
        ws, spec, brief, engine="llm", model="fake", run_id=ws.run_id, budget=budget, run=RunServices(tools, web)
    )


def research_tools(ws: Workspace, docs: list[Document] | None = None) -> ResearchTools:
    if docs is None:
        docs = [
            Document("docs/asyncio-task.md", "asyncio tasks", SOURCE_TEXT, sha256_text(SOURCE_TEXT)),
            Document(
                "docs/other.md",
                "other",
                "Unrelated text about sockets and files.\n",
                sha256_text("Unrelated text about sockets and files.\n"),
            ),
        ]
    index = CorpusIndex.build(Corpus("fixture", docs), use_cache=False)
    return ResearchTools(index, SourceRegistry(ws))


def workspace_files(ws: Workspace) -> set[str]:
    return {
        p.relative_to(ws.root).as_posix()
        for p in ws.root.rglob("*")
        if p.is_file() and not p.relative_to(ws.root).as_posix().startswith(".harness/")
    }


# ---- (a) isolation and (b) the tool set ------------------------------------------------------------------


def test_subagent_sees_only_its_system_prompt_and_the_brief(ws, specs):
    spec = specs["planner"]
    brief = Brief(
        role="planner",
        task="Plan the research for the run question.",
        outputs=("plan.json",),
        facts={"question": "How does asyncio.TaskGroup handle failures?"},
    )
    model = ScriptedModel(script=[AIMessage("2 research questions"), AIMessage("2 research questions")])
    result = DeepAgentRole(spec, model).run(brief, make_ctx(ws, spec, brief))

    first = model.calls[0]
    assert [type(m) for m in first] == [SystemMessage, HumanMessage]
    assert first[0].content.startswith(spec.prompt.strip())
    assert "## Output contract" in first[0].content and "`questions[].id` (required)" in first[0].content
    assert first[1].content == brief.render()
    # a reply in text is not the plan: one nudge names the missing file, then the step fails saying so
    assert len(model.calls) == 2 and "You have not written plan.json" in model.calls[1][-1].content
    assert result.status == "failed" and "wrote no plan.json" in result.blocked_reason


@pytest.mark.parametrize("role", ["planner", "researcher", "analyst", "writer", "reviewer"])
def test_the_model_is_offered_exactly_the_spec_tools(ws, specs, role):
    spec = specs[role]
    brief = Brief(role=role, task="Do your job.", question_id="Q1")
    model = ScriptedModel(
        script=[
            tool_reply("task", {"description": "do it for me", "subagent_type": "general-purpose"}, "t1"),
            tool_reply("write_todos", {"todos": []}, "t2"),
            AIMessage("done"),
        ]
    )
    ctx = make_ctx(ws, spec, brief, tools=research_tools(ws) if role == "researcher" else None)
    role_impl = DeepAgentRole(spec, model)
    role_impl.run(brief, ctx)

    # `mcp` stands for the run's MCP servers' tools: none here (tests/sources/test_mcp.py has them)
    expected = sorted(t for t in spec.tools if t != "mcp")
    assert model.offered and all(sorted(names) == expected for names in model.offered)
    refusals = tool_messages(model)
    assert [m.status for m in refusals] == ["error", "error"]
    assert "no tool named 'task'" in refusals[0].content and "no tool named 'write_todos'" in refusals[1].content
    # Not merely hidden: the graph has no task tool and no general-purpose subagent at all.
    registered = set(role_impl.build(ctx).nodes["tools"].bound.tools_by_name)
    assert "task" not in registered and "write_todos" not in registered
    assert registered <= set(spec.tools) | {"read_file"}


def test_each_role_is_told_only_what_holds_for_its_tools(ws, specs):
    """Every call resends the system prompt and the tool schemas: a role that writes no file (the Researcher's
    cards come from record_evidence) gets no output contract and no write rules; file tools are described as
    they behave here, not with deepagents' coding-agent texts."""
    from harness.engines.llm.file_tools import DESCRIPTIONS

    prompts = {}
    for role in ("planner", "researcher"):
        brief = Brief(role=role, task="Do your job.", question_id="Q1")
        ctx = make_ctx(ws, specs[role], brief)
        impl = DeepAgentRole(specs[role], ScriptedModel())
        prompts[role] = impl.system_prompt(ctx)
        described = {n: t.description for n, t in impl.build(ctx).nodes["tools"].bound.tools_by_name.items()}
        assert described["read_file"] == DESCRIPTIONS["read_file"]
        assert not any("execute" in d or "emoji" in d for d in described.values())
    planner, researcher = prompts["planner"], prompts["researcher"]
    for part in ("## Output contract", "You may write: plan.json", "Record yourself as", "may be refused 3 times"):
        assert part in planner and part not in researcher
    assert "`record_evidence`" in researcher and "[[FLAGGED" in researcher and "BLOCKED: no_evidence" in researcher
    assert "4 such replies in a row end the step" in researcher and "30 model calls" in researcher
    assert len(researcher) < len(planner) / 2


# ---- (c)-(f) writes and reads ---------------------------------------------------------------------------


def test_schema_invalid_write_is_refused_with_the_pointer_then_the_fix_lands(evidence_ws, specs):
    ws = evidence_ws
    spec = specs["analyst"]
    bad = json.loads(json.dumps(CLAIMS))
    bad["claims"][0]["status"] = "probably"
    brief = Brief(
        role="analyst", task="Write the claim table.", inputs=("plan.json", "source-cards/"), outputs=("claims.json",)
    )
    model = ScriptedModel(
        script=[
            tool_reply("write_file", {"file_path": "/claims.json", "content": json.dumps(bad)}, "w1"),
            tool_reply("write_file", {"file_path": "/claims.json", "content": json.dumps(CLAIMS)}, "w2"),
            AIMessage("1 verified"),
        ]
    )
    ctx = make_ctx(ws, spec, brief)
    result = DeepAgentRole(spec, model).run(brief, ctx)

    (refused,) = tool_messages(model)  # the landed write ended the step: its result is never sent back
    assert (
        refused.status == "error" and "claims.json:/claims/0/status" in refused.content and "[enum]" in refused.content
    )
    assert len(model.calls) == 2 and model.script == [AIMessage("1 verified")]
    assert result.status == "completed"
    assert json.loads((ws.root / "claims.json").read_text()) == CLAIMS
    entry = ws.manifest["artifacts"]["claims.json"]  # indexed (run.json on disk gets it with the next rewrite)
    assert entry["writer"] == "analyst" and entry["sha256"] == ctx.files.outputs["claims.json"]
    assert ctx.files.retries == 1


def test_a_plan_missing_a_field_is_refused_and_nothing_changes(ws, specs):
    spec = specs["planner"]
    before = (ws.root / "plan.json").read_bytes()
    plan = make_plan()
    del plan["deliverable"]
    brief = Brief(role="planner", task="Plan.", outputs=("plan.json",))
    model = ScriptedModel(
        script=[
            tool_reply("write_file", {"file_path": "/plan.json", "content": json.dumps(plan)}, "w1"),
            AIMessage("gave up"),
        ]
    )
    DeepAgentRole(spec, model).run(brief, make_ctx(ws, spec, brief))
    (msg,) = tool_messages(model)
    assert msg.status == "error" and "plan.json:/: 'deliverable' is a required property" in msg.content
    assert (ws.root / "plan.json").read_bytes() == before


def test_writes_outside_the_role_permission_are_refused(evidence_ws, specs):
    ws = evidence_ws
    spec = specs["analyst"]
    plan_before = (ws.root / "plan.json").read_bytes()
    brief = Brief(role="analyst", task="Write the claim table.", outputs=("claims.json",))
    model = ScriptedModel(
        script=[
            AIMessage(
                "",
                tool_calls=[
                    call("write_file", {"file_path": "/plan.json", "content": json.dumps(make_plan("x"))}, "w1"),
                    call("write_file", {"file_path": "/drafts/draft-1.md", "content": "# hi\n"}, "w2"),
                    call("write_file", {"file_path": "/../escape.json", "content": "{}"}, "w3"),
                ],
            ),
            AIMessage("stopped"),
        ]
    )
    before = workspace_files(ws)
    DeepAgentRole(spec, model).run(brief, make_ctx(ws, spec, brief))

    plan_msg, draft_msg, escape_msg = tool_messages(model)
    assert all(m.status == "error" for m in (plan_msg, draft_msg, escape_msg))
    assert "role 'analyst' may not write" in plan_msg.content and "may not write" in draft_msg.content
    assert "'..' is refused" in escape_msg.content
    assert (ws.root / "plan.json").read_bytes() == plan_before
    assert workspace_files(ws) == before and not (ws.root.parent / "escape.json").exists()


def test_reads_outside_the_role_reads_are_refused(evidence_ws, specs):
    ws = evidence_ws
    spec = specs["writer"]
    brief = Brief(role="writer", task="Write the draft.", outputs=("drafts/draft-1.md",))
    model = ScriptedModel(
        script=[
            AIMessage(
                "",
                tool_calls=[
                    call("read_file", {"file_path": f"/sources/{SOURCE_ID}.txt"}, "r1"),
                    call("read_file", {"file_path": "/run.json"}, "r2"),
                    call("read_file", {"file_path": "/.harness/journal"}, "r3"),
                    call("read_file", {"file_path": f"/source-cards/{CARD_ID}.json"}, "r4"),
                    call("ls", {"path": "/"}, "r5"),
                ],
            ),
            AIMessage("done"),
        ]
    )
    DeepAgentRole(spec, model).run(brief, make_ctx(ws, spec, brief))

    source_msg, run_msg, private_msg, card_msg, ls_msg = tool_messages(model)
    for m in (source_msg, run_msg, private_msg):
        assert m.status == "error" and "permission denied for read" in m.content
    assert SOURCE_TEXT[:20] not in source_msg.content
    assert card_msg.status == "success" and QUOTE[:30] in card_msg.content
    listed = ls_msg.content
    assert (
        "/plan.json" in listed and "/run.json" not in listed and "/sources" not in listed and ".harness" not in listed
    )


def test_write_retries_past_the_spec_bound_fail_the_step(ws, specs):
    spec = specs["planner"]
    bound = spec.limits["write_retries"]
    brief = Brief(role="planner", task="Plan.", outputs=("plan.json",))
    script = [
        tool_reply("write_file", {"file_path": "/plan.json", "content": "{not json"}, f"w{i}") for i in range(bound + 1)
    ]
    model = ScriptedModel(script=script + [AIMessage("never reached")])
    ctx = make_ctx(ws, spec, brief)
    with pytest.raises(WriteRetriesExhausted, match=f"limit {bound}"):
        DeepAgentRole(spec, model).run(brief, ctx)
    assert len(model.calls) == bound + 1 and len(ctx.files.errors) == bound + 1


def test_edit_file_is_applied_to_the_current_content_then_validated(ws, specs):
    spec = dataclasses.replace(specs["planner"], tools=("read_file", "write_file", "edit_file"))
    brief = Brief(role="planner", task="Refine.", outputs=("plan.json",))
    old = '"deliverable": "A short answer with citations."'
    model = ScriptedModel(
        script=[
            tool_reply(
                "edit_file",
                {"file_path": "/plan.json", "old_string": '"revision": 1', "new_string": '"revision": 0'},
                "e1",
            ),
            tool_reply(
                "edit_file",
                {"file_path": "/plan.json", "old_string": "A short answer", "new_string": "A long answer"},
                "e2",
            ),
            AIMessage("edited"),
        ]
    )
    assert old in (ws.root / "plan.json").read_text()
    ctx = make_ctx(ws, spec, brief)
    DeepAgentRole(spec, model).run(brief, ctx)
    (refused,) = tool_messages(model)  # the edit that landed ended the step
    assert refused.status == "error" and "/revision" in refused.content
    plan = json.loads((ws.root / "plan.json").read_text())
    assert plan["deliverable"] == "A long answer with citations." and plan["revision"] == 1
    assert set(ctx.files.outputs) == {"plan.json"} and len(model.calls) == 2


# ---- (g) the researcher's source tools ---------------------------------------------------------------------

HIT = re.compile(r"<<<SOURCE (src-[0-9a-f]{12}) .*?start=(\d+) end=(\d+)\n(.*?)\nSOURCE>>>", re.S)


def card_from_last_hit(messages: list[BaseMessage], *, quote: str | None = None, number: int = 1) -> AIMessage:
    last = [m for m in messages if isinstance(m, ToolMessage) and "<<<SOURCE" in m.content][-1]
    source_id, start, _end, text = HIT.search(last.content).groups()
    args = {
        "source_id": source_id,
        "quote": quote if quote is not None else text,
        "confidence": "high",
        "summary": "A TaskGroup cancels the rest when one task fails.",
        "start": int(start),
    }
    return tool_reply("record_evidence", args, f"c{number}")


def test_researcher_searches_and_records_a_card_the_harness_names_and_locates(ws, specs):
    spec = specs["researcher"]
    brief = Brief(role="researcher", task="Find evidence for Q1.", question_id="Q1", outputs=("source-cards/",))

    def and_read_on(reply: AIMessage) -> AIMessage:  # a card and a read in one reply: the step goes on
        read = call("read_source", {"source_id": "src-000000000000"}, "s2")
        return AIMessage("", tool_calls=[*reply.tool_calls, read])

    model = ScriptedModel(
        script=[
            tool_reply("search", {"query": "TaskGroup tasks cancelled exception", "k": 3}, "s1"),
            lambda msgs: and_read_on(card_from_last_hit(msgs, number=1)),
            lambda msgs: card_from_last_hit(msgs, quote="A TaskGroup never cancels anything, ever.", number=2),
            lambda msgs: card_from_last_hit(msgs, number=3),  # the same quote again: the same card
            AIMessage("1 card"),  # never asked: a reply that only recorded, its cards answering Q1, ends the step
        ]
    )
    ctx = make_ctx(ws, spec, brief, tools=research_tools(ws))
    result = DeepAgentRole(spec, model).run(brief, ctx)

    assert len(model.calls) == 4 and any("without a closing reply" in n for n in ctx.notes)
    search_msg, card_ok, read_msg, card_bad = tool_messages(model)
    source_id, start, end, text = HIT.search(search_msg.content).groups()
    assert (ws.root / f"sources/{source_id}.json").is_file() and (ws.root / f"sources/{source_id}.txt").is_file()
    assert (ws.root / f"sources/{source_id}.txt").read_text()[int(start) : int(end)] == text
    assert card_ok.status == "success" and f"Recorded evidence card q1-{source_id}-1" in card_ok.content
    card = json.loads((ws.root / f"source-cards/q1-{source_id}-1.json").read_text())
    assert (
        card["quote"] == text
        and card["source_id"] == source_id
        and card["span"] == {"start": int(start), "end": int(end)}
    )
    assert card["extracted_by"] == {"role": "researcher", "engine": "llm", "model": "fake"}
    assert (
        card_bad.status == "error"
        and "quote not found in" in card_bad.content
        and "closest passage is at" in card_bad.content
    )
    assert len(ctx.files.errors) == 1  # the same quote again was accepted as the same card, not refused
    assert sorted(p.name for p in (ws.root / "source-cards").iterdir()) == [f"q1-{source_id}-1.json"]
    assert read_msg.status == "error" and "not a registered source" in read_msg.content
    assert result.status == "completed" and ctx.budget.spent["searches"] == 1


def test_blocked_reply_becomes_a_blocked_result(ws, specs):
    spec = specs["researcher"]
    brief = Brief(role="researcher", task="Find evidence for Q1.", question_id="Q1")
    model = ScriptedModel(
        script=[
            tool_reply("search", {"query": "zebra migration"}, "s1"),
            AIMessage("BLOCKED: no_evidence; tried: zebra migration"),
        ]
    )
    result = DeepAgentRole(spec, model).run(brief, make_ctx(ws, spec, brief, tools=research_tools(ws)))
    assert result.status == "blocked" and result.blocked_reason == "no_evidence; tried: zebra migration"
    assert "No passages matched" in tool_messages(model)[0].content


def test_web_tools_go_through_the_plan_domain_policy(ws, specs):
    from fakes.searxng_web import StaticSearch
    from harness.sources.web import WebTools

    plan = make_plan()
    plan["questions"][0].update(allowed_sources=["corpus", "web"], allowed_domains=["example.org"])
    ws.write("plan.json", plan, specs["planner"].policy)
    page = (
        "<html><head><title>TaskGroup notes</title></head><body><p>"
        + "The remaining tasks in the group are cancelled. " * 5
        + "</p></body></html>"
    )
    transport = httpx.MockTransport(lambda req: httpx.Response(200, headers={"content-type": "text/html"}, text=page))

    backend = StaticSearch(
        [
            {"title": "Notes", "url": "https://example.org/notes", "snippet": "TaskGroup cancels"},
            {"title": "Elsewhere", "url": "https://elsewhere.net/x", "snippet": "not allowed"},
        ]
    )
    # example.org stands for a public site: a fake resolver answers for it, so no lookup leaves the machine
    web = WebTools(
        SourceRegistry(ws), search=backend, transport=transport, resolver=lambda host, port: ["93.184.215.14"]
    )
    spec = dataclasses.replace(specs["researcher"], tools=("web_search", "fetch_url", "read_file", "write_file"))
    brief = Brief(role="researcher", task="Find evidence for Q1.", question_id="Q1")
    model = ScriptedModel(
        script=[
            tool_reply("web_search", {"query": "TaskGroup"}, "w1"),
            tool_reply("fetch_url", {"url": "https://example.org/notes"}, "w2"),
            tool_reply("fetch_url", {"url": "https://elsewhere.net/x"}, "w3"),
            AIMessage("0 cards"),
        ]
    )
    ctx = make_ctx(ws, spec, brief, web=web)
    DeepAgentRole(spec, model).run(brief, ctx)

    search_msg, fetch_ok, fetch_bad = tool_messages(model)
    assert "https://example.org/notes" in search_msg.content and "elsewhere.net" not in search_msg.content
    source_id = re.search(r"<<<SOURCE (src-[0-9a-f]{12})", fetch_ok.content).group(1)
    assert fetch_ok.status == "success" and (ws.root / f"sources/{source_id}.txt").is_file()
    assert fetch_bad.status == "error" and "not in the allowed domains" in fetch_bad.content
    assert ctx.budget.spent["searches"] == 2  # the refused fetch raised before it was charged


def test_fetch_url_shows_a_bounded_excerpt_and_a_quote_from_it_is_located_in_the_whole_page(ws, specs):
    """A 60 KB page: the model is shown its best-matching passages with their offsets and the page's length, not
    the page; a sentence it quotes from them becomes a card whose span is found in the whole stored snapshot."""
    from fakes.sites import realistic_article
    from harness.sources.web import WebTools

    fact = "Grid storage installations reached 41 gigawatts in 2024, twice the level of two years earlier."
    body = realistic_article(7, 60, fact=fact)
    plan = make_plan()
    plan["questions"][0].update(allowed_sources=["web"], allowed_domains=["example.org"])
    ws.write("plan.json", plan, specs["planner"].policy)
    transport = httpx.MockTransport(
        lambda req: httpx.Response(200, headers={"content-type": "text/html"}, content=body)
    )
    web = WebTools(SourceRegistry(ws), transport=transport, resolver=lambda host, port: ["93.184.215.14"], robots=False)
    spec = dataclasses.replace(specs["researcher"], tools=("fetch_url", "read_source", "record_evidence", "read_file"))
    brief = Brief(role="researcher", task="Research Q1: how much grid storage was installed in 2024?", question_id="Q1")
    script = [
        tool_reply("fetch_url", {"url": "https://example.org/storage", "focus": "grid storage gigawatts 2024"}, "f1")
    ]
    model = ScriptedModel(script=script + [AIMessage("done")])
    ctx = make_ctx(ws, spec, brief, web=web)
    DeepAgentRole(spec, model).run(brief, ctx)
    (shown,) = tool_messages(model)
    source_id = re.search(r"<<<SOURCE (src-[0-9a-f]{12})", shown.content).group(1)
    snapshot = (ws.root / f"sources/{source_id}.txt").read_text(encoding="utf-8")
    assert len(snapshot) > 20_000 and len(shown.content) < 3_000
    assert fact in shown.content and f"total={len(snapshot)}" in shown.content
    start, end = (int(x) for x in re.search(r"start=(\d+) end=(\d+)", shown.content).groups())
    assert snapshot[start:end] in shown.content  # the offsets are the snapshot's own

    model = ScriptedModel(
        script=[
            tool_reply(
                "record_evidence",
                {"source_id": source_id, "quote": fact, "summary": "41 GW in 2024.", "confidence": "high"},
                "r1",
            ),
            AIMessage("1 card"),
        ]
    )
    DeepAgentRole(spec, model).run(brief, make_ctx(ws, spec, brief, web=web))
    (card_path,) = (ws.root / "source-cards").glob("*.json")
    card = json.loads(card_path.read_text())
    assert snapshot[card["span"]["start"] : card["span"]["end"]] == fact


# ---- (h) budgets -----------------------------------------------------------------------------------------


def test_llm_call_budget_refuses_the_call_past_the_limit(ws, specs):
    spec = dataclasses.replace(specs["planner"], limits={**specs["planner"].limits, "llm_calls": 2})
    brief = Brief(role="planner", task="Plan.")
    model = ScriptedModel(script=[tool_reply("read_file", {"file_path": "/plan.json"}, f"r{i}") for i in range(5)])
    ctx = make_ctx(ws, spec, brief)
    with pytest.raises(BudgetExhausted, match="llm_calls"):
        DeepAgentRole(spec, model).run(brief, ctx)
    assert len(model.calls) == 2 and ctx.budget.spent["llm_calls"] == 2 and ctx.budget.llm_calls == 2


def test_token_budget_is_checked_before_the_call(ws, specs):
    spec = dataclasses.replace(specs["planner"], limits={**specs["planner"].limits, "tokens": 500})
    brief = Brief(role="planner", task="Plan.")
    model = ScriptedModel(script=[AIMessage("never")])
    ctx = make_ctx(ws, spec, brief)
    with pytest.raises(BudgetExhausted, match="tokens"):
        DeepAgentRole(spec, model).run(brief, ctx)
    assert model.calls == [] and ctx.budget.spent["tokens"] == 0


def test_run_budget_is_shared_and_never_exceeded(ws, specs):
    spec = specs["planner"]
    brief = Brief(role="planner", task="Plan.")
    model = ScriptedModel(script=[tool_reply("read_file", {"file_path": "/plan.json"}, f"r{i}") for i in range(5)])
    ctx = make_ctx(ws, spec, brief, run_limits={"llm_calls": 3})
    with pytest.raises(BudgetExhausted, match="run budget for llm_calls"):
        DeepAgentRole(spec, model).run(brief, ctx)
    assert ctx.budget.budget.spent["llm_calls"] == 3


def test_empty_replies_are_retried_a_bounded_number_of_times_and_charged(ws, specs):
    spec = specs["planner"]
    brief = Brief(role="planner", task="Plan.")
    model = ScriptedModel(script=[AIMessage(""), AIMessage(""), AIMessage("1 research question")])
    ctx = make_ctx(ws, spec, brief)
    result = DeepAgentRole(spec, model).run(brief, ctx)
    assert result.status == "completed" and ctx.budget.llm_calls == 3

    model = ScriptedModel(script=[AIMessage("")] * 3 + [AIMessage("not asked")])
    ctx = make_ctx(ws, spec, brief)
    result = DeepAgentRole(spec, model).run(brief, ctx)
    assert result.status == "failed" and ctx.budget.llm_calls == 3 and len(model.script) == 1


def test_a_spent_step_search_budget_is_said_and_free_and_a_spent_run_budget_stops(ws, specs):
    spec = dataclasses.replace(specs["researcher"], limits={**specs["researcher"].limits, "searches": 1})
    brief = Brief(role="researcher", task="Find evidence for Q1.", question_id="Q1")
    script = [tool_reply("search", {"query": "TaskGroup"}, f"s{i}") for i in range(3)]
    model = ScriptedModel(script=[*script, AIMessage("BLOCKED: no_evidence (searched TaskGroup)")])
    ctx = make_ctx(ws, spec, brief, tools=research_tools(ws))
    result = DeepAgentRole(spec, model).run(brief, ctx)
    first, *refused = tool_messages(model)
    assert "[search 1 of 1" in first.content  # every result says what is left
    assert all(m.content.startswith("No search was made: researcher step budget for searches") for m in refused)
    assert ctx.budget.spent["searches"] == 1 and result.status == "blocked"

    ctx = make_ctx(ws, specs["researcher"], brief, tools=research_tools(ws))
    ctx.budget.budget.limits["searches"] = 0  # the run's own budget: that one stops the step
    model = ScriptedModel(script=[tool_reply("search", {"query": "TaskGroup"}, "r1")])
    with pytest.raises(BudgetExhausted, match="run budget for searches") as stopped:
        DeepAgentRole(specs["researcher"], model).run(brief, ctx)
    assert stopped.value.scope == "run"

    ctx = make_ctx(ws, spec, brief, tools=research_tools(ws))
    ctx.budget.deadline = time.monotonic() - 1
    model = ScriptedModel(script=[AIMessage("never")])
    with pytest.raises(DelegationTimeout):
        DeepAgentRole(spec, model).run(brief, ctx)
    assert model.calls == []


def test_usage_metadata_is_charged_when_reported(ws, specs):
    spec = specs["planner"]
    brief = Brief(role="planner", task="Plan.")
    reply = AIMessage("done", usage_metadata={"input_tokens": 100, "output_tokens": 23, "total_tokens": 123})
    ctx = make_ctx(ws, spec, brief)
    DeepAgentRole(spec, ScriptedModel(script=[reply])).run(brief, ctx)
    assert ctx.budget.tokens == 123 and ctx.budget.spent["tokens"] == 123


# ---- (j) library scratch stays out of the workspace ----------------------------------------------------------


def test_large_tool_results_are_evicted_to_scratch_not_the_workspace(ws, specs):
    spec = specs["researcher"]
    long_text = "\n\n".join(
        f"Paragraph {i}: the TaskGroup cancels the remaining tasks when one task fails." for i in range(60)
    )
    docs = [
        Document(
            f"docs/tg-{i}.md", f"tg {i}", long_text + f"\n\nDoc {i}.\n", sha256_text(long_text + f"\n\nDoc {i}.\n")
        )
        for i in range(4)
    ]
    brief = Brief(role="researcher", task="Find evidence for Q1.", question_id="Q1")

    def read_evicted(msgs):
        path = re.search(
            r"(/scratch/large_tool_results/\S+?)[\s`'\"]",
            [m for m in msgs if isinstance(m, ToolMessage)][-1].content + " ",
        ).group(1)
        return tool_reply("read_file", {"file_path": path}, "r1")

    model = ScriptedModel(
        script=[
            tool_reply("search", {"query": "TaskGroup cancels remaining tasks", "k": 20}, "s1"),
            read_evicted,
            AIMessage("0 cards"),
        ]
    )
    before = workspace_files(ws)
    ctx = make_ctx(ws, spec, brief, tools=research_tools(ws, docs))
    DeepAgentRole(spec, model, evict_tokens=200).run(brief, ctx)

    search_msg, read_msg = tool_messages(model)
    assert "/scratch/large_tool_results/" in search_msg.content
    assert read_msg.status == "success" and "<<<SOURCE" in read_msg.content
    added = workspace_files(ws) - before
    assert added and all(re.fullmatch(r"sources/src-[0-9a-f]{12}\.(json|txt)", p) for p in added), added
    for name in ("scratch", "large_tool_results", "conversation_history"):
        assert not list(ws.root.rglob(name))


def test_summarization_calls_are_charged_and_history_stays_out_of_the_workspace(ws, specs):
    spec = specs["planner"]
    brief = Brief(role="planner", task="Plan.")
    script = [tool_reply("read_file", {"file_path": "/plan.json"}, f"r{i}") for i in range(6)] + [AIMessage("done")]
    model = ScriptedModel(script=script, profile={"max_input_tokens": 4000})  # summarize early
    before = workspace_files(ws)
    ctx = make_ctx(ws, spec, brief)
    DeepAgentRole(spec, model).run(brief, ctx)

    summaries = [c for c in model.calls if len(c) == 1 and "Context Extraction Assistant" in c[0].content]
    assert summaries and ctx.budget.llm_calls == len(model.calls) == 7 + len(summaries)
    assert any("SUMMARY: read plan.json" in str(m.content) for m in model.calls[-1])
    assert workspace_files(ws) == before and not list(ws.root.rglob("conversation_history"))


# ---- prompt pieces -------------------------------------------------------------------------------------------


def test_output_contract_comes_from_the_schema():
    claims = output_contract("claims")
    assert '`claims[].status` (required): one of "verified"' in claims
    assert (
        'when `status` is "conflicted", then `supporting_cards` min items 1; `contradicting_cards` min items 1'
        in claims
    )
    assert "`span.start` (required): integer" in output_contract("card")
    draft = output_contract("draft")
    assert "[@C1]" in draft and "[@C1; @C3]" in draft


def test_permission_rules_follow_the_spec(specs):
    rules = permission_rules(specs["researcher"])
    assert rules[0].mode == "deny" and "/.harness/**" in rules[0].paths
    assert "/sources/**" in rules[1].paths and "/scratch/**" in rules[1].paths and rules[1].operations == ["read"]
    assert rules[2].paths == ["/source-cards/*.json"] and rules[2].operations == ["write"]
    assert rules[-1].paths == ["/**"] and rules[-1].mode == "deny"


# ---- models ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec, needle",
    [
        ("gemini-3.5-flash", "provider:name"),
        (":gemini", "provider:name"),
        ("mistral:large", "unknown provider 'mistral'"),
    ],
)
def test_preflight_refuses_malformed_or_unknown_specs(spec, needle):
    with pytest.raises(UsageError, match=re.escape(needle)) as info:
        preflight(spec)
    assert "\n" not in str(info.value)


def test_preflight_names_the_package_to_install(monkeypatch):
    real = llm_models.importlib.util.find_spec
    monkeypatch.setattr(
        llm_models.importlib.util, "find_spec", lambda name, *a: None if name == "langchain_openai" else real(name, *a)
    )
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    with pytest.raises(UsageError, match=re.escape("pip install langchain-openai")):
        preflight("openai:gpt-5-mini")


def test_preflight_names_the_key_to_set(monkeypatch):
    for key in ("GOOGLE_API_KEY", "GEMINI_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    with pytest.raises(UsageError, match="set GOOGLE_API_KEY or GEMINI_API_KEY"):
        preflight(DEFAULT_MODEL)
    with pytest.raises(UsageError, match="set ANTHROPIC_API_KEY"):
        preflight("anthropic:claude-sonnet-4-6")
    monkeypatch.setenv("GEMINI_API_KEY", "test-key")
    preflight(DEFAULT_MODEL)


def test_resolve_model_builds_a_bounded_gemini_model_without_network(monkeypatch):
    def no_network(*_a, **_k):
        raise AssertionError("resolve_model must not touch the network")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setenv("GOOGLE_API_KEY", "test-key")
    model = resolve_model(DEFAULT_MODEL)
    assert type(model).__name__ == "ChatGoogleGenerativeAI"
    assert llm_models.max_output_tokens(model) == llm_models.DEFAULT_MAX_OUTPUT_TOKENS


# ---- (j) meeting real models halfway ------------------------------------------------------------------------


def test_refusals_count_per_file_and_the_prompt_says_exactly_when_the_step_ends(ws, specs):
    """Three refusals of plan.json, then three of drafts/x.md: neither file passed its bound, so the step goes on."""
    spec = specs["planner"]
    bound = spec.limits["write_retries"]
    brief = Brief(role="planner", task="Plan.", outputs=("plan.json",))
    bad = [tool_reply("write_file", {"file_path": "/plan.json", "content": "{not json"}, f"p{i}") for i in range(bound)]
    other = [tool_reply("write_file", {"file_path": "/claims.json", "content": "{}"}, f"o{i}") for i in range(bound)]
    good = tool_reply("write_file", {"file_path": "/plan.json", "content": json.dumps(make_plan("fixed"))}, "ok")
    model = ScriptedModel(script=[*bad, *other, good, AIMessage("1 research question")])
    ctx = make_ctx(ws, spec, brief)
    role = DeepAgentRole(spec, model)
    result = role.run(brief, ctx)
    assert result.status == "completed" and ctx.files.retries == 2 * bound
    assert f"The same file may be refused {bound} times: its next refusal ends the step." in role.system_prompt(ctx)


def test_read_file_returns_a_long_file_whole(evidence_ws, specs):
    ws = evidence_ws
    spec = specs["writer"]
    many = {"claims": [{**CLAIMS["claims"][0], "claim_id": f"C{i}"} for i in range(1, 41)]}
    ws.write("claims.json", many, specs["analyst"].policy)
    assert (ws.root / "claims.json").read_text().count("\n") > 300
    brief = Brief(role="writer", task="Write.", outputs=("drafts/draft-1.md",))
    model = ScriptedModel(script=[tool_reply("read_file", {"file_path": "/claims.json"}, "r1"), AIMessage("read it")])
    DeepAgentRole(spec, model).run(brief, make_ctx(ws, spec, brief))
    (read,) = [m for m in tool_messages(model) if m.name == "read_file"]
    assert '"claim_id": "C40"' in read.content and "next offset" not in read.content


@pytest.mark.parametrize(
    "reply, fmt, expected",
    [
        ('Here it is:\n```json\n{"a": 1}\n```', "json", {"a": 1}),
        ('{"a": 1}', "json", {"a": 1}),
        ("I wrote the plan.", "json", None),
        ("```markdown\n# Title\n\nA fact [@C1].\n\nMore.\n```", "markdown", "# Title\n\nA fact [@C1].\n\nMore.\n"),
        ("Wrote drafts/draft-1.md.", "markdown", None),
    ],
)
def test_the_document_a_text_reply_carries(reply, fmt, expected):
    from harness.engines.llm.agent import document_in_reply

    assert document_in_reply(reply, fmt) == expected


def test_a_plan_replied_in_text_is_written_through_the_guards_and_noted(ws, specs):
    spec = specs["planner"]
    (ws.root / "plan.json").unlink()  # a fresh step: no plan yet
    brief = Brief(role="planner", task="Plan.", outputs=("plan.json",))
    plan = make_plan("from the reply")
    model = ScriptedModel(script=[AIMessage("The plan:\n```json\n" + json.dumps(plan) + "\n```")])
    ctx = make_ctx(ws, spec, brief)
    result = DeepAgentRole(spec, model).run(brief, ctx)
    assert result.status == "completed" and len(model.calls) == 1  # no nudge needed
    assert json.loads((ws.root / "plan.json").read_text())["question"] == "from the reply"
    assert ctx.notes == [
        "plan.json: written from the planner's reply (it answered in text instead of calling write_file)"
    ]


def test_the_last_allowed_model_call_carries_a_wrap_up_notice(ws, specs):
    spec = dataclasses.replace(specs["planner"], limits={**specs["planner"].limits, "llm_calls": 2})
    brief = Brief(role="planner", task="Plan.", outputs=("plan.json",))
    model = ScriptedModel(script=[tool_reply("read_file", {"file_path": "/plan.json"}, "r1"), AIMessage("done")])
    ctx = make_ctx(ws, spec, brief)
    with pytest.raises(BudgetExhausted) as stopped:  # the nudge would be a third call: the step's own limit
        DeepAgentRole(spec, model).run(brief, ctx)
    assert stopped.value.scope == "delegation"
    first, last = model.calls
    assert not any("last model call" in str(m.content) for m in first)
    assert "[harness] This is your last model call in this step" in str(last[-1].content)
    assert "write plan.json now" in str(last[-1].content)
