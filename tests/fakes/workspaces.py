"""Fixture data and builders shared by the tests: small valid workspaces, corpora and trace helpers."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from harness.contract.formats import plan_content_sha256, sha256_text
from harness.workspace.store import Workspace
from harness.workspace.trace import read_events

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
            {
                "id": "Q1",
                "text": "Find how asyncio.TaskGroup handles a failing task.",
                "kind": "research",
                "critical": True,
            },
            {"id": "Q2", "text": "Answer the question from the evidence.", "kind": "deliverable", "critical": True},
        ],
        "stop_conditions": ["No primary source for a critical question."],
        "refinement": None,
        "approval": None,
    }


def source_record(text: str = SOURCE_TEXT, source_id: str = SOURCE_ID) -> dict:
    return {
        "source_id": source_id,
        "path": "fixture:asyncio-task.md",
        "corpus": "fixture",
        "title": "asyncio tasks",
        "retrieved_at": "2026-11-30T01:02:03Z",
        "sha256": sha256_text(text),
        "size": len(text),
        "kind": "primary",
        "flags": [],
    }


def make_card(text: str = SOURCE_TEXT, quote: str = QUOTE, card_id: str = CARD_ID) -> dict:
    start = text.index("The first time")
    end = text.index("cancelled.") + len("cancelled.")
    return {
        "card_id": card_id,
        "source_id": SOURCE_ID,
        "question_id": "Q1",
        "quote": quote,
        "span": {"start": start, "end": end},
        "evidence_summary": "A TaskGroup cancels the rest when one task fails.",
        "confidence": "high",
        "limitations": [],
        "extracted_by": {"role": "researcher", "engine": "offline", "model": None},
    }


CLAIMS = {
    "claims": [
        {
            "claim_id": "C1",
            "statement": "A TaskGroup cancels its remaining tasks when one fails.",
            "question_id": "Q1",
            "supporting_cards": [CARD_ID],
            "contradicting_cards": [],
            "limitations": [],
            "status": "verified",
        }
    ]
}


DRAFT = "# TaskGroup failures\n\nWhen one task fails, a TaskGroup cancels the remaining tasks [@C1].\n"


def approve(plan: dict) -> dict:
    plan = dict(plan)
    plan["approval"] = {
        "decision": "approved",
        "by": "tester",
        "at": "2026-11-30T01:02:03Z",
        "plan_sha256": plan_content_sha256(plan),
    }
    return plan


def load(ws: Workspace, rel: str):
    return json.loads((ws.root / rel).read_text(encoding="utf-8"))


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


def fixture_run_argv(corpus: Path | str, runs_dir: Path | str, *flags: str) -> list[str]:
    """The argv of `research run FIXTURE_QUESTION` on a corpus into a runs folder, plan approved (--yes)."""
    return [
        sys.executable,
        "-m",
        "harness",
        "run",
        FIXTURE_QUESTION,
        "--corpus",
        str(corpus),
        "--runs-dir",
        str(runs_dir),
        "--yes",
        *flags,
    ]


def write_fixture_corpus(root: Path) -> Path:
    return write_docs(root, FIXTURE_DOCS)


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
    return read_events(run_dir)


def delegations(run_dir: Path, agent: str | None = None) -> list[dict]:
    return [e for e in trace(run_dir) if e["event"] == "delegation" and (agent is None or e["agent"] == agent)]


def manifest(run_dir: Path) -> dict:
    return json.loads((run_dir / "run.json").read_text(encoding="utf-8"))


def normalized_artifacts(root: Path) -> dict[str, object]:
    """Every artifact with timestamps and run ids removed."""
    out: dict[str, object] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if not path.is_file() or rel.startswith(".harness") or rel in ("run.json", "trace.jsonl"):
            continue
        if path.suffix == ".json":
            doc = json.loads(path.read_text())
            doc.pop("retrieved_at", None)
            doc.pop("run_id", None)
            if rel == "plan.json" and doc.get("approval"):
                doc["approval"].pop("at")
            if rel == "metrics.json":
                doc.pop("wall_seconds")
                for role in doc["roles"].values():
                    role.pop("wall_seconds")
            out[rel] = doc
        else:
            out[rel] = path.read_bytes()
    return out


def use_profile(monkeypatch, profile) -> None:
    """Rank every corpus of the test with `profile` (`engines.offline.profile.choose_profile`), whatever its text."""
    from harness.engines.offline import profile as profiles

    monkeypatch.setattr(profiles, "choose_profile", lambda props: profile)
