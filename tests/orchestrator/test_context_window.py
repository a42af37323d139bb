"""A model whose context window is too small for a prompt: the step reads less (a cut tool result, fewer
cards of the brief's digest) or ends with what it has; never a crash, never a failed run. Driven through
the real langchain-openai client at a local server that answers `context_length_exceeded`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fakes.openai_stub import OpenAIStub, clean_env, start_llm_run
from fakes.realistic import DOCS, Quirks, realistic_policies
from fakes.scripted import OpenAIDispatch
from fakes.workspaces import delegations, write_docs
from harness.workspace.validate import validate_workspace

QUESTION = "How do asyncio.TaskGroup and asyncio.gather differ when a task fails?"
QUIRKS = Quirks(research_questions=5, cards=3, k=20, quote="sentence")


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return write_docs(tmp_path / "corpus", DOCS)


def run(tmp_path, corpus, monkeypatch, context_chars: int):
    clean_env(monkeypatch, api_key=None)
    dispatch = OpenAIDispatch(realistic_policies(QUIRKS))
    with OpenAIStub(dispatch, context_chars=context_chars) as stub:
        result = start_llm_run(
            tmp_path / "runs", corpus, model="openai:small-context", base_url=stub.base_url, question=QUESTION
        )
        return result, stub


def test_a_prompt_too_long_is_cut_and_the_run_completes_reading_less(tmp_path, corpus, monkeypatch):
    """A provider's context-window error (`context_length_exceeded`): the step reads less and the run completes."""
    result, stub = run(tmp_path, corpus, monkeypatch, context_chars=10_000)
    assert result.status == "completed", (result.status, result.reason)
    assert validate_workspace(result.run_dir) == []
    overflowed = [r for r in stub.requests if r.chars > 10_000]
    assert overflowed  # the window was too small for some prompts...
    sent = [m for r in stub.requests if r.chars <= 10_000 for m in r.messages]
    notes = [str(m.get("content")) for m in sent if "to fit the model's context window" in str(m.get("content"))]
    assert notes  # ...which were sent again cut, saying so
    assert any("search with a smaller k" in n for n in notes) or any("read the files it names" in n for n in notes)
    assert all(e["stop_reason"] in ("completed", "blocked") for e in delegations(result.run_dir))


def test_a_window_too_small_for_anything_ends_with_what_it_has_never_failed(tmp_path, corpus, monkeypatch):
    """A context window smaller than any prompt: the step ends with what it has, the run needs a human, never fails."""
    result, _ = run(tmp_path, corpus, monkeypatch, context_chars=6_000)  # smaller than the system prompts
    assert result.status == "needs_human", (result.status, result.reason)
    assert "context window" in result.reason and "planner wrote no plan" in result.reason
    assert validate_workspace(result.run_dir) == []
