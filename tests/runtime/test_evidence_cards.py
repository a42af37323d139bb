"""Evidence cards: parallel record_evidence calls never share a card id, and validate reports an overwritten card."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from fakes.workspaces import SOURCE_ID, make_plan, source_record
from harness.contract.cards import MEDIUM, CardDraft, build_card
from harness.contract.layout import CARDS, card_path
from harness.contract.policy import TOOLS
from harness.contract.quotes import Located
from harness.runtime.budget import Budget, DelegationBudget
from harness.runtime.context import AgentContext, open_context
from harness.runtime.evidence import QuoteNotStandalone
from harness.runtime.interface import Brief
from harness.workspace.store import Workspace
from harness.workspace.validate import validate_workspace

N = 20
SENTENCES = [f"Sentence number {i} says that task group {i} cancels its remaining tasks on failure." for i in range(N)]
TEXT = "Notes\n\n" + " ".join(SENTENCES) + "\n"


@pytest.fixture
def ws(tmp_path: Path, specs) -> Workspace:
    ws = Workspace.create(tmp_path / "runs", "How does asyncio.TaskGroup handle failures?")
    ws.write("plan.json", make_plan(), specs["planner"].policy)
    ws.write(f"sources/{SOURCE_ID}.txt", TEXT, TOOLS)
    ws.write(f"sources/{SOURCE_ID}.json", source_record(TEXT), TOOLS)
    return ws


def researcher_ctx(ws: Workspace, spec) -> AgentContext:
    brief = Brief("researcher", "research Q1", outputs=("source-cards/",), question_id="Q1")
    budget = DelegationBudget(Budget({}, {spec.role: {}}), spec.role, spec.limits, None)
    return open_context(ws, spec, brief, engine="llm", model="fake", run_id=ws.run_id, budget=budget)


def test_parallel_record_evidence_calls_at_one_source_write_one_card_each(ws, specs):
    ctx = researcher_ctx(ws, specs["researcher"])
    start = threading.Barrier(N)

    def record(sentence: str):
        start.wait()  # all twenty take their card id at once
        return ctx.services.record_evidence(SOURCE_ID, sentence, "what it shows", "medium")

    with ThreadPoolExecutor(N) as pool:
        results = list(pool.map(record, SENTENCES))

    ids = [card_id for card_id, _where, new in results]
    assert all(new for _id, _where, new in results)
    assert len(set(ids)) == N
    on_disk = ws.reader().list(CARDS)
    assert sorted(on_disk) == sorted(card_path(i) for i in ids)
    quotes = {ws.reader().read_json(rel)["quote"] for rel in on_disk}
    assert quotes == set(SENTENCES)
    assert not [p for p in validate_workspace(ws.root) if p.rule == "card-written-once"]


def test_the_same_quote_twice_is_one_card(ws, specs):
    ctx = researcher_ctx(ws, specs["researcher"])
    first = ctx.services.record_evidence(SOURCE_ID, SENTENCES[3], "what it shows", "medium")
    again = ctx.services.record_evidence(SOURCE_ID, SENTENCES[3], "said again", "low")
    assert first[0] == again[0] and first[2] and not again[2]
    assert ws.reader().list(CARDS) == [card_path(first[0])]


def card(ws: Workspace, n: int, summary: str = "what it shows") -> dict:
    start = TEXT.index(SENTENCES[n])
    return build_card(
        CardDraft(SOURCE_ID, SENTENCES[n], summary, MEDIUM),
        Located(start, start + len(SENTENCES[n]), SENTENCES[n], "exact"),
        card_id="q1-src-0123456789ab-1",
        question_id="Q1",
        extracted_by={"role": "researcher", "engine": "llm", "model": "fake"},
        run_id=ws.run_id,
    )


def test_validate_reports_a_card_written_twice_with_different_content(ws, specs):
    policy = specs["researcher"].policy
    ws.write(card_path("q1-src-0123456789ab-1"), card(ws, 0), policy)
    ws.write(card_path("q1-src-0123456789ab-1"), card(ws, 0), policy)  # the same content again: one card
    assert not [p for p in validate_workspace(ws.root) if p.rule == "card-written-once"]
    ws.write(card_path("q1-src-0123456789ab-1"), card(ws, 1, "another quote"), policy)
    problems = [p for p in validate_workspace(ws.root) if p.rule == "card-written-once"]
    assert [p.file for p in problems] == ["source-cards/q1-src-0123456789ab-1.json"]
    assert "written twice with different content" in problems[0].message


STORY = (
    "Guide\n\n"
    "Why do tasks stop? The TaskGroup cancels the remaining tasks when one of them fails. "
    "This means no task outlives the group. In the next section, we'll look at timeouts.\n"
)


@pytest.fixture
def story(tmp_path: Path, specs) -> Workspace:
    ws = Workspace.create(tmp_path / "runs", "How does asyncio.TaskGroup handle failures?")
    ws.write("plan.json", make_plan(), specs["planner"].policy)
    ws.write(f"sources/{SOURCE_ID}.txt", STORY, TOOLS)
    ws.write(f"sources/{SOURCE_ID}.json", source_record(STORY), TOOLS)
    return ws


@pytest.mark.parametrize(
    ("quote", "reason", "how"),
    [
        ("Why do tasks stop?", "question", "quote the statement that answers it"),
        ("Guide", "heading", "quote the statement under it"),
        ("In the next section, we'll look at timeouts.", "narration", "quote the statement it leads to"),
        ("This means no task outlives the group.", "unresolved_reference", "quote the statement with its antecedent"),
    ],
)
def test_record_evidence_refuses_a_quote_that_cannot_stand_alone_and_says_how_to_succeed(
    story, specs, quote, reason, how
):
    ctx = researcher_ctx(story, specs["researcher"])
    with pytest.raises(QuoteNotStandalone) as refused:
        ctx.services.record_evidence(SOURCE_ID, quote, "what it shows", "medium")
    message = str(refused.value)
    assert message.startswith(f"{SOURCE_ID}: quote refused ({reason}):") and how in message
    assert "\n" not in message
    assert story.reader().list(CARDS) == []  # nothing written
    assert ctx.files.errors == [message]  # counted as a refusal of this source's evidence


def test_record_evidence_takes_the_statement_with_its_antecedent(story, specs):
    ctx = researcher_ctx(story, specs["researcher"])
    quote = "The TaskGroup cancels the remaining tasks when one of them fails. This means no task outlives the group."
    card_id, where, new = ctx.services.record_evidence(SOURCE_ID, quote, "what it shows", "high")
    assert new and story.reader().read_json(card_path(card_id))["quote"] == quote
