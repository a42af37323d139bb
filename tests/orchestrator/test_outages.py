"""A provider outage in the middle of a run leaves it `interrupted`, waiting at the step it cut; `research
resume` goes on once the provider is back, at another address even, with nothing lost and nothing done twice.
A fault retrying cannot fix (a rejected key) still fails the run.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

from fakes.openai_stub import OpenAIStub, clean_env, http_error, start_llm_run
from fakes.realistic import DOCS, Quirks, realistic_policies
from fakes.scripted import OpenAIDispatch, role_of_system_prompt
from fakes.workspaces import delegations, manifest, trace, write_docs
from harness.orchestrator.lifecycle import resume_run
from harness.workspace.validate import validate_workspace

QUESTION = "How do asyncio.TaskGroup and asyncio.gather differ when a task fails?"
QUIRKS = Quirks(quote="sentence", cards=2)


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return write_docs(tmp_path / "corpus", DOCS)


@pytest.fixture(autouse=True)
def quick_retries(monkeypatch):
    clean_env(monkeypatch)
    monkeypatch.setenv("RESEARCH_LLM_RETRY_ATTEMPTS", "3")
    monkeypatch.setenv("RESEARCH_LLM_RETRY_BASE_DELAY", "0")
    monkeypatch.setenv("RESEARCH_LLM_RETRY_JITTER", "0")


class GoesDown:
    """Answers as the policies do until `when(request)`; from then on the endpoint answers 503 (an outage)."""

    def __init__(self, when, reply=None):
        self.dispatch = OpenAIDispatch(realistic_policies(QUIRKS))
        self.when, self.reply = when, reply
        self.stub: OpenAIStub | None = None

    def __call__(self, req):
        if self.when(req):
            self.stub.down(self.reply)
            return self.stub.outage
        return self.dispatch(req)


class SecondBranchSearched:
    """True from the first request of the second research branch that carries a search result (branches run one
    at a time): the first branch has written its cards, the second has searched and has none yet."""

    def __init__(self):
        self.first: str | None = None

    def __call__(self, req) -> bool:
        if role_of_system_prompt(req.system) != "researcher":
            return False
        brief = next((str(m.get("content")) for m in req.messages if m.get("role") == "user"), "")
        self.first = self.first or brief
        return brief != self.first and any(m.get("role") == "tool" for m in req.messages)


def start(tmp_path, corpus, monkeypatch, responder, **kw):
    with OpenAIStub(responder) as stub:
        responder.stub = stub
        monkeypatch.setenv("OPENAI_BASE_URL", stub.base_url)  # the endpoint comes from the client's own variable
        return start_llm_run(tmp_path / "runs", corpus, question=QUESTION, **kw)


def card_writes(run_dir: Path) -> Counter:
    return Counter(e["path"] for e in trace(run_dir) if e["event"] == "write" and e["path"].startswith("source-cards/"))


def test_an_outage_mid_research_waits_interrupted_and_a_resume_at_a_new_address_completes(
    tmp_path, corpus, monkeypatch
):
    """A provider outage mid-research past the retry bound: the run waits `interrupted`; a resume at a new address completes, each card written once."""
    result = start(tmp_path, corpus, monkeypatch, GoesDown(SecondBranchSearched()), concurrency=1)
    assert result.status == "interrupted", (result.status, result.reason)
    assert result.reason.startswith("research stopped: Q2: provider error")
    assert "provider error after 3 attempts: 503" in result.reason
    run_dir = result.run_dir
    assert validate_workspace(run_dir) == []
    kept = card_writes(run_dir)
    assert kept  # the card written before the outage is kept
    spent = manifest(run_dir)["budget"]["spent"]
    planner_before = len(delegations(run_dir, "planner"))

    # the provider is back, at another address: the environment says where, the run re-reads it
    dispatch = OpenAIDispatch(realistic_policies(QUIRKS))
    with OpenAIStub(dispatch) as back:
        monkeypatch.setenv("OPENAI_BASE_URL", back.base_url)
        done = resume_run(run_dir)
    assert done.status == "completed", (done.status, done.reason)
    assert validate_workspace(run_dir) == []
    writes = card_writes(run_dir)
    assert set(kept) <= set(writes) and all(n == 1 for n in writes.values()), writes  # each card written once
    assert len(delegations(run_dir, "planner")) == planner_before == 1  # the plan was not made again
    assert "planner" not in dispatch.seen
    after = manifest(run_dir)["budget"]["spent"]
    assert after["llm_calls"] > spent["llm_calls"]  # spending goes on from where it was, not from zero
    gates = [e for e in trace(run_dir) if e.get("decision") == "outage_continue"]
    assert len(gates) == 1


def test_an_outage_at_the_writer_waits_there_and_resume_while_still_down_keeps_waiting(tmp_path, corpus, monkeypatch):
    """An outage at the Writer: the run waits there; a resume while the provider is still down keeps waiting, one after it is back completes."""
    at_writer = GoesDown(lambda req: role_of_system_prompt(req.system) == "writer")
    result = start(tmp_path, corpus, monkeypatch, at_writer)
    assert result.status == "interrupted" and result.reason.startswith("writer: provider error after 3 attempts")
    assert (result.run_dir / "claims.json").is_file() and not (result.run_dir / "drafts" / "draft-1.md").exists()
    analyst_runs = len(delegations(result.run_dir, "analyst"))

    with OpenAIStub() as still_down:  # reachable, but overloaded
        still_down.down()
        monkeypatch.setenv("OPENAI_BASE_URL", still_down.base_url)
        again = resume_run(result.run_dir)
    assert again.status == "interrupted" and again.reason.startswith("writer: ")
    assert validate_workspace(result.run_dir) == []

    with OpenAIStub(OpenAIDispatch(realistic_policies(QUIRKS))) as back:
        monkeypatch.setenv("OPENAI_BASE_URL", back.base_url)
        done = resume_run(result.run_dir)
    assert done.status == "completed", (done.status, done.reason)
    assert len(delegations(result.run_dir, "analyst")) == analyst_runs  # the claim table was not built twice
    assert validate_workspace(result.run_dir) == []


def test_resume_against_an_endpoint_that_is_gone_fails_in_one_line_and_the_run_keeps_waiting(
    tmp_path, corpus, monkeypatch, capsys
):
    """Resuming an interrupted run while its endpoint is unreachable: one line, exit 2, the run still waits."""
    result = start(tmp_path, corpus, monkeypatch, GoesDown(lambda req: role_of_system_prompt(req.system) == "analyst"))
    assert result.status == "interrupted"
    from harness.surfaces.cli import main

    monkeypatch.setattr(sys, "argv", ["research", "resume", str(result.run_dir), "--quiet"])
    with pytest.raises(SystemExit) as exc:
        main()  # OPENAI_BASE_URL still names the closed stub
    err = capsys.readouterr().err.strip()
    assert exc.value.code == 2 and len(err.splitlines()) == 1 and "is unreachable" in err
    assert manifest(result.run_dir)["status"] == "interrupted"


def test_a_rejected_key_is_not_an_outage_the_run_fails(tmp_path, corpus, monkeypatch):
    """A rejected key (401) is no outage: the run fails, not retried."""
    rejected = GoesDown(
        lambda req: role_of_system_prompt(req.system) == "analyst",
        http_error(401, "Incorrect API key provided.", code="invalid_api_key", kind="invalid_request_error"),
    )
    result = start(tmp_path, corpus, monkeypatch, rejected)
    assert result.status == "failed" and "401" in result.reason and "not retryable" in result.reason
    assert validate_workspace(result.run_dir) == []


def test_a_run_started_at_a_given_address_resumes_at_the_one_resume_names(tmp_path, corpus, monkeypatch):
    """A run started with --model-base-url, cut by an outage, resumes with --model-base-url at the new address."""
    down = GoesDown(lambda req: role_of_system_prompt(req.system) == "analyst")
    with OpenAIStub(down) as stub:
        down.stub = stub
        result = start_llm_run(tmp_path / "runs", corpus, base_url=stub.base_url, question=QUESTION)
        old = stub.base_url
    assert result.status == "interrupted" and manifest(result.run_dir)["config"]["base_urls"]["analyst"] == old
    with OpenAIStub(OpenAIDispatch(realistic_policies(QUIRKS))) as back:
        done = resume_run(result.run_dir, model_base_url=back.base_url)
        new = back.base_url
    assert done.status == "completed", (done.status, done.reason)
    m = manifest(result.run_dir)
    assert set(m["config"]["base_urls"].values()) == {new}
    assert [
        e["detail"]["base_urls"]["writer"] for e in trace(result.run_dir) if e.get("decision") == "endpoint_moved"
    ] == [new]
    assert validate_workspace(result.run_dir) == []
