"""Shared fixtures: a small, valid workspace built only through the workspace API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.contract.policy import TOOLS
from harness.contract.specs import load_default_specs
from harness.contract.formats import plan_content_sha256, sha256_text
from harness.workspace.store import Workspace

SOURCE_TEXT = (
    "asyncio.TaskGroup\n\n"
    "An asynchronous context manager holding a group of tasks.\n"
    "The first time any of the tasks belonging to the group fails with an exception\n"
    "other than asyncio.CancelledError, the remaining tasks in the group are cancelled.\n"
)
QUOTE = "The first time any of the tasks belonging to the group fails with an exception other than asyncio.CancelledError, the remaining tasks in the group are cancelled."
SOURCE_ID = "src-0123456789ab"
CARD_ID = "q1-src-0123456789ab-1"


def make_plan(question: str = "How does asyncio.TaskGroup handle failures?") -> dict:
    return {
        "schema_version": 1,
        "question": question,
        "revision": 1,
        "scope": {"in_scope": ["asyncio.TaskGroup"], "out_of_scope": []},
        "deliverable": "A short answer with citations.",
        "criteria": [],
        "questions": [
            {"id": "Q1", "text": "Find how TaskGroup handles a failing task.", "kind": "research", "critical": True},
            {"id": "Q2", "text": "Answer the question from the evidence.", "kind": "deliverable", "critical": True},
        ],
        "stop_conditions": ["No primary source for a critical question."],
        "refinement": None,
        "approval": None,
    }


def source_record(text: str = SOURCE_TEXT, source_id: str = SOURCE_ID) -> dict:
    return {"source_id": source_id, "path": "fixture:asyncio-task.md", "corpus": "fixture", "title": "asyncio tasks",
            "retrieved_at": "2026-11-30T01:02:03Z", "sha256": sha256_text(text), "size": len(text),
            "kind": "primary", "flags": []}


def make_card(text: str = SOURCE_TEXT, quote: str = QUOTE, card_id: str = CARD_ID) -> dict:
    start = text.index("The first time")
    end = text.index("cancelled.") + len("cancelled.")
    return {"card_id": card_id, "source_id": SOURCE_ID, "question_id": "Q1", "quote": quote,
            "span": {"start": start, "end": end}, "evidence_summary": "A TaskGroup cancels the rest when one task fails.",
            "confidence": "high", "limitations": [], "extracted_by": {"role": "researcher", "engine": "offline", "model": None}}


CLAIMS = {"claims": [{"claim_id": "C1", "statement": "A TaskGroup cancels its remaining tasks when one fails.",
                      "question_id": "Q1", "supporting_cards": [CARD_ID], "contradicting_cards": [],
                      "limitations": [], "status": "verified"}]}
DRAFT = "# TaskGroup failures\n\nWhen one task fails, a TaskGroup cancels the remaining tasks [@C1].\n"


@pytest.fixture(scope="session")
def specs():
    return load_default_specs()


@pytest.fixture
def runs_dir(tmp_path: Path) -> Path:
    d = tmp_path / "runs"
    d.mkdir()
    return d


@pytest.fixture
def built_ws(runs_dir: Path, specs) -> Workspace:
    """A complete small workspace: plan, one source, one card, claims, a draft and its review."""
    ws = Workspace.create(runs_dir, "How does asyncio.TaskGroup handle failures?")
    ws.write("plan.json", make_plan(), specs["planner"].policy)
    ws.write(f"sources/{SOURCE_ID}.txt", SOURCE_TEXT, TOOLS)
    ws.write(f"sources/{SOURCE_ID}.json", source_record(), TOOLS)
    ws.write(f"source-cards/{CARD_ID}.json", make_card(), specs["researcher"].policy)
    ws.write("claims.json", CLAIMS, specs["analyst"].policy)
    ws.write("drafts/draft-1.md", DRAFT, specs["writer"].policy)
    review = {"draft": "drafts/draft-1.md", "draft_sha256": sha256_text(DRAFT), "verdict": "pass", "defects": [],
              "reviewed_by": {"role": "reviewer", "engine": "offline", "model": None}}
    ws.write("reviews/review-1.json", review, specs["reviewer"].policy)
    return ws


def approve(plan: dict) -> dict:
    plan = dict(plan)
    plan["approval"] = {"decision": "approved", "by": "tester", "at": "2026-11-30T01:02:03Z",
                        "plan_sha256": plan_content_sha256(plan)}
    return plan


def load(ws: Workspace, rel: str):
    return json.loads((ws.root / rel).read_text(encoding="utf-8"))


# ---- a small corpus written for the offline pipeline tests --------------------------------

FIXTURE_DOCS = {
    "fastjson/overview.md": """# fastjson overview

fastjson is a JSON parsing library for Python services.

The current stable release of fastjson is version 2.4 and it is maintained by the core team.

fastjson parses large documents in streaming mode, which keeps memory use flat and speed high.
Benchmarks in the project show that fastjson reaches high speed on documents of several megabytes.
""",
    "fastjson/changelog.md": """# fastjson changelog

The current stable release of fastjson is version 3.0 and it is maintained by the core team.

Older releases are no longer supported by the maintainers.
""",
    "slowxml/guide.md": """# slowxml guide

slowxml is an XML toolkit that validates every document against its schema before use.

Validation makes slowxml slower: its parsing speed is lower than that of streaming parsers.

The current stable release of slowxml is version 1.8 and it supports Python 3.11.
""",
    "misc/unrelated.txt": """Gardening notes.

Tomatoes need six hours of sun each day and regular watering during dry weeks.
""",
}
FIXTURE_QUESTION = "How do `fastjson`, `slowxml` and `ghostlib` compare in speed and release version?"


def write_fixture_corpus(root: Path) -> Path:
    return write_docs(root, FIXTURE_DOCS)


@pytest.fixture
def fixture_corpus(tmp_path: Path) -> Path:
    return write_fixture_corpus(tmp_path / "corpus")


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path_factory, monkeypatch):
    """No test sees a real API key or the user's cache."""
    for key in ("GOOGLE_API_KEY", "GEMINI_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("RESEARCH_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))


# ---- shared by the llm-engine tests (scripted models, the Gemini stub, faults, the adversary) -----------------

ASYNCIO_DOCS = {
    "taskgroup.md": "# asyncio.TaskGroup\n\nAn asynchronous context manager holding a group of tasks.\n\n"
                    "The first time any of the tasks belonging to the group fails with an exception other than "
                    "asyncio.CancelledError, the remaining tasks in the group are cancelled.\n",
    "timeout.md": "# asyncio.timeout\n\nThe timeout context manager limits the time spent waiting on something.\n\n"
                  "If the block takes longer than the delay, the current task is cancelled and the exception is "
                  "transformed into TimeoutError.\n",
    "gather.md": "# asyncio.gather\n\nRun awaitable objects in the sequence concurrently.\n\n"
                 "If return_exceptions is False, the first raised exception is immediately propagated to the task "
                 "that awaits on gather.\n",
}


def write_docs(root: Path, docs: dict[str, str]) -> Path:
    """Write a corpus folder: relative path -> text."""
    for rel, text in docs.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def trace(run_dir: Path) -> list[dict]:
    from harness.workspace.trace import read_events
    return read_events(run_dir)


def delegations(run_dir: Path, agent: str | None = None) -> list[dict]:
    return [e for e in trace(run_dir) if e["event"] == "delegation" and (agent is None or e["agent"] == agent)]


def manifest(run_dir: Path) -> dict:
    return json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
