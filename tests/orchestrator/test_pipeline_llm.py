"""The whole pipeline with every role on the llm engine, driven by scripted tool-calling models.

The models (tests/scripted.py) compute each reply from the messages they were sent: the
Researcher builds its card from the search result it got, the Writer its draft from the
claims.json it read, the Reviewer its review from the draft hash in its brief. One test
runs the same policies through the real Gemini client against the local GeminiStub.
No test reaches the internet, and none asserts on wall time.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from fakes.scripted import (
    UNCITED,
    Call,
    GeminiDispatch,
    Say,
    ScriptedChatModel,
    Turn,
    analyst_policy,
    call,
    file_text,
    researcher_policy,
    reviewer_policy,
    role_policies,
    scripted_models,
    writer_policy,
)
from fakes.workspaces import ASYNCIO_DOCS, delegations, manifest, trace, write_docs
from harness.contract.specs import ROLES, load_default_specs
from harness.errors import EXIT_INCOMPLETE, EXIT_OK, UsageError
from harness.orchestrator import approvals
from harness.orchestrator.config import build_config
from harness.orchestrator.lifecycle import start_run
from harness.workspace.store import Workspace
from harness.workspace.validate import validate_workspace

QUESTION = "How do failures propagate in asyncio task groups, timeouts and gather?"
MODEL = "scripted:fake"

CORPUS = ASYNCIO_DOCS


@pytest.fixture(autouse=True)
def _offline_env(tmp_path, monkeypatch):
    monkeypatch.setenv("RESEARCH_CACHE_DIR", str(tmp_path / "cache"))
    for key in ("GOOGLE_API_KEY", "GEMINI_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI"):
        monkeypatch.delenv(key, raising=False)


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return write_docs(tmp_path / "corpus", CORPUS)


@pytest.fixture(scope="module")
def specs():
    return load_default_specs()


def config(tmp_path: Path, corpus: Path, **kw):
    kw.setdefault("yes", True)
    kw.setdefault("model", MODEL)
    return build_config(QUESTION, corpus=str(corpus), runs_dir=str(tmp_path / "runs"), engine="llm", **kw)


def ts(value: str) -> datetime:
    return datetime.strptime(value, "%Y-%m-%dT%H:%M:%S.%fZ")


def tool_messages(model: ScriptedChatModel) -> list[ToolMessage]:
    """Every distinct ToolMessage the model was sent, in order."""
    seen, out = set(), []
    for msgs in model.calls:
        for m in msgs:
            if isinstance(m, ToolMessage) and m.tool_call_id not in seen:
                seen.add(m.tool_call_id)
                out.append(m)
    return out


def assert_clean(run_dir: Path) -> None:
    problems = validate_workspace(run_dir)
    assert problems == [], "\n".join(map(str, problems))


# ---- 1. the happy path --------------------------------------------------------------------------------


def test_every_role_on_scripted_llm_models_completes_a_valid_audited_run(tmp_path, corpus, specs):
    models = scripted_models(role_policies(n_research=2))
    gates: list[dict] = []

    def approver(ws, payload):
        gates.append(payload)
        if payload["gate"] == "plan":
            return {"decision": "approve", "by": "tester"}
        return {"decision": "approve", "version": payload["sha256"], "by": "tester"}

    cfg = config(tmp_path, corpus, yes=False, require_final_approval=True)
    result = start_run(cfg, models=models, approver=approver)

    assert (result.status, result.reason, result.exit_code) == ("completed", None, EXIT_OK)
    run = result.run_dir
    assert_clean(run)
    assert [g["gate"] for g in gates] == ["plan", "final"]
    assert manifest(run)["config"]["engines"] == {r: "llm" for r in ROLES}

    # every citation of the final report resolves: claim -> cards -> sources with a snapshot
    claims = {c["claim_id"]: c for c in json.loads((run / "claims.json").read_text())["claims"]}
    draft = (run / "drafts/draft-1.md").read_text()
    cited = re.findall(r"\[@(C\d+)\]", draft)
    assert sorted(set(cited)) == sorted(claims) == ["C1", "C2"]
    report = (run / "final-report.md").read_text()
    assert "[@" not in report
    links = re.findall(r"\((source-cards/[^)]+\.json)\)", report)
    assert links and all((run / p).is_file() for p in links)
    for cid in cited:
        for card_id in claims[cid]["supporting_cards"]:
            card = json.loads((run / f"source-cards/{card_id}.json").read_text())
            snapshot = (run / f"sources/{card['source_id']}.txt").read_text()
            assert snapshot[card["span"]["start"] : card["span"]["end"]] == card["quote"]
            assert card["extracted_by"] == {"role": "researcher", "engine": "llm", "model": MODEL}
            assert f"sources/{card['source_id']}.txt" in report

    # one delegation event per delegation, all on the llm engine, fully described
    events = delegations(run)
    assert sorted(e["delegation_id"] for e in events) == sorted(
        ["planner-1", "researcher-Q1-r0", "researcher-Q2-r0", "analyst-r0", "writer-1", "reviewer-1"]
    )
    for e in events:
        spec = specs[e["agent"]]
        assert e["engine"] == "llm" and e["model"] == MODEL
        assert e["stop_reason"] == "completed" and e["errors"] == [] and e["retries"] == 0
        assert e["tools"] == list(spec.tools)
        assert e["budget"] == {k: v for k, v in spec.limits.items() if k != "write_retries"}
        assert ts(e["started_at"]) <= ts(e["ended_at"])
        assert e["llm_calls"] >= 1 and e["tokens"] > 0
        assert e["outputs"] and all(re.fullmatch(r"[0-9a-f]{64}", o["sha256"]) for o in e["outputs"])
        for i in e["inputs"]:
            assert i["sha256"] is None or re.fullmatch(r"[0-9a-f]{64}", i["sha256"])
    by_id = {e["delegation_id"]: e for e in events}
    artifacts = manifest(run)["artifacts"]
    assert by_id["analyst-r0"]["outputs"] == [{"path": "claims.json", "sha256": artifacts["claims.json"]["sha256"]}]
    assert by_id["writer-1"]["outputs"] == [
        {"path": "drafts/draft-1.md", "sha256": artifacts["drafts/draft-1.md"]["sha256"]}
    ]
    writer_inputs = {i["path"]: i["sha256"] for i in by_id["writer-1"]["inputs"]}
    assert writer_inputs["claims.json"] == artifacts["claims.json"]["sha256"]
    assert [o["path"] for o in by_id["researcher-Q1-r0"]["outputs"]] == [
        p for p in artifacts if p.startswith("source-cards/q1-")
    ]

    # each model was offered exactly its spec's tools, and the run's spend adds up
    for role, model in models.items():
        offered = sorted(t for t in specs[role].tools if t != "mcp")  # `mcp`: the run's MCP tools, none here
        assert model.offered and all(sorted(o) == offered for o in model.offered), role
    spent = manifest(run)["budget"]["spent"]
    assert spent["llm_calls"] == sum(e["llm_calls"] for e in events) == sum(len(m.calls) for m in models.values())
    assert spent["searches"] == 2


# ---- 2. a schema-invalid write is corrected on retry ----------------------------------------------------


def test_a_schema_invalid_claims_write_is_refused_with_its_pointer_then_corrected(tmp_path, corpus):
    models = scripted_models(role_policies(analyst=analyst_policy(bad_status_first=True)))
    result = start_run(config(tmp_path, corpus), models=models)
    assert result.status == "completed"
    assert_clean(result.run_dir)

    writes = [m for m in tool_messages(models["analyst"]) if m.name == "write_file"]
    assert [m.status for m in writes] == ["error"]  # the corrected write landed and ended the step
    assert "claims.json:/claims/0/status" in writes[0].content and "[enum]" in writes[0].content
    assert "nothing was written" in writes[0].content
    # the corrected write is the model's answer to the call in which it was sent the error (its last call)
    final = models["analyst"].calls[-1]
    assert isinstance(final[-1], ToolMessage) and final[-1].status == "error"

    claims = json.loads((result.run_dir / "claims.json").read_text())
    assert {c["status"] for c in claims["claims"]} == {"verified"}
    (analyst,) = delegations(result.run_dir, "analyst")
    assert analyst["stop_reason"] == "completed" and analyst["retries"] >= 1
    assert any("claims.json:/claims/0/status" in err for err in analyst["errors"])
    assert [
        e
        for e in trace(result.run_dir)
        if e["event"] == "write" and e["path"] == "claims.json" and e["agent"] == "analyst"
    ] and len(analyst["outputs"]) == 1


# ---- 3. a write outside the role's permission is refused ------------------------------------------------


def test_writes_outside_the_writer_permission_are_refused_and_nothing_lands(tmp_path, corpus):
    models = scripted_models(role_policies(writer=writer_policy(forbidden_first=True)))
    result = start_run(config(tmp_path, corpus), models=models)
    run = result.run_dir
    assert result.status == "completed"
    assert_clean(run)

    refused = [m for m in tool_messages(models["writer"]) if m.name == "write_file" and m.status == "error"]
    assert len(refused) == 2
    assert all("role 'writer' may not write" in m.content for m in refused)
    assert "final-report.md" in refused[0].content and "claims.json" in refused[1].content

    (analyst,) = delegations(run, "analyst")
    (writer,) = delegations(run, "writer")
    assert (run / "claims.json").read_text().count('"claim_id"') == 2
    assert manifest(run)["artifacts"]["claims.json"]["sha256"] == analyst["outputs"][0]["sha256"]
    assert "Written by the writer" not in (run / "final-report.md").read_text()
    assert manifest(run)["artifacts"]["final-report.md"]["writer"] == "harness"
    writer_writes = [e["path"] for e in trace(run) if e["event"] == "write" and e["agent"] == "writer"]
    assert writer_writes == ["drafts/draft-1.md"]
    assert [o["path"] for o in writer["outputs"]] == ["drafts/draft-1.md"]
    assert writer["retries"] == 2 and len(writer["errors"]) == 2


# ---- 3b. a role writes only the outputs its brief names, through canonical paths -----------------------


def test_an_llm_reviewer_cannot_bypass_the_review_guard_with_a_non_canonical_path(tmp_path, corpus):
    """`/reviews/./review-1.json` is reviews/review-1.json: the deterministic defects are merged into it all the same."""
    base = reviewer_policy()

    def sneaky(t: Turn):
        action = base(t)
        if isinstance(action, Call) and action.calls[0][0] == "write_file":
            args = action.calls[0][1]
            return call(
                "write_file", file_path=args["file_path"].replace("/reviews/", "/reviews/./"), content=args["content"]
            )
        return action

    models = scripted_models(role_policies(reviewer=sneaky, writer=writer_policy(uncited_sentence=True)))
    result = start_run(config(tmp_path, corpus, max_revisions=0), models=models)
    run = result.run_dir
    assert result.status == "needs_human" and not (run / "final-report.md").exists()
    review = json.loads((run / "reviews/review-1.json").read_text())
    assert review["verdict"] == "revise" and [d["code"] for d in review["defects"]] == ["missing_citation"]
    assert review["reviewed_by"]["engine"] == "llm"  # the model's own review landed, guarded
    assert_clean(run)


def _writes_earlier_draft(t: Turn):
    """A Writer that, when revising, first overwrites drafts/draft-1.md (already reviewed)."""
    if t.brief_line("draft") != "drafts/draft-1.md" and t.steps and not t.writes():
        return call("write_file", file_path="/drafts/draft-1.md", content="# Overwritten after review\n")
    return writer_policy(uncited_sentence=True)(t)


def _writes_first_review(t: Turn):
    """A Reviewer that always writes reviews/review-1.json, whatever draft it reviews."""
    action = reviewer_policy()(t)
    if isinstance(action, Call) and action.calls[0][0] == "write_file":
        return call("write_file", file_path="/reviews/review-1.json", content=action.calls[0][1]["content"])
    return action


def _writes_other_branch_card(t: Turn):
    """A Researcher on Q2 that tries to file a card under Q1's name with write_file, then records its own."""
    if t.brief_line("Plan question") == "Q2" and t.steps and not t.writes():
        card = {"card_id": "q1-src-0123456789ab-1", "source_id": "src-0123456789ab", "question_id": "Q1", "quote": "x"}
        return call("write_file", file_path=f"/source-cards/{card['card_id']}.json", content=json.dumps(card))
    return researcher_policy()(t)


@pytest.mark.parametrize("role", ["writer", "reviewer", "researcher"])
def test_an_llm_role_writes_only_the_outputs_its_brief_names(tmp_path, corpus, role):
    """The spec's globs (drafts/*.md, reviews/*.json, source-cards/*.json) are wider than one step's outputs."""
    policy = {
        "writer": _writes_earlier_draft,
        "reviewer": _writes_first_review,
        "researcher": _writes_other_branch_card,
    }[role]
    overrides = {role: policy}
    if role == "reviewer":
        overrides["writer"] = writer_policy(uncited_sentence=True)
    models = scripted_models(role_policies(**overrides))
    result = start_run(
        config(tmp_path, corpus, max_revisions=0 if role == "researcher" else 1, concurrency=1), models=models
    )
    run = result.run_dir
    refused = [m for m in tool_messages(models[role]) if m.name == "write_file" and m.status == "error"]
    events = delegations(run, role)
    if role == "researcher":  # cards come only through record_evidence, for the brief's own question
        assert refused and all("no tool named 'write_file' for the researcher" in m.content for m in refused)
        q1 = [e for e in events if e["question_id"] == "Q1"]
        assert sorted(p.name for p in (run / "source-cards").glob("q1-*")) == [
            o["path"].split("/")[1] for o in q1[0]["outputs"]
        ]
        assert result.status == "completed"
        assert_clean(run)
        return
    assert result.status == "needs_human"
    assert refused and all("not an output of this step" in m.content for m in refused)
    assert any(any("not an output of this step" in err for err in e["errors"]) for e in events)
    m = manifest(run)["artifacts"]
    if role == "writer":
        first = next(e for e in events if e["delegation_id"] == "writer-1")
        assert m["drafts/draft-1.md"]["sha256"] == first["outputs"][0]["sha256"]
        assert "Overwritten" not in (run / "drafts/draft-1.md").read_text()
    else:
        assert json.loads((run / "reviews/review-1.json").read_text())["draft"] == "drafts/draft-1.md"
        assert json.loads((run / "reviews/review-2.json").read_text())["reviewed_by"]["role"] == "harness"
        assert approvals.final_candidate(Workspace.open(run)) is None  # no forged "pass" for a failing draft
    assert_clean(run)


def test_a_custom_reviewer_cannot_bypass_the_review_guard_with_a_non_canonical_path(tmp_path, corpus):
    """reviews/./review-1.json names the same file; the review guard must still merge the checks' defects."""
    models = scripted_models(role_policies(writer=writer_policy(uncited_sentence=True)))
    del models["reviewer"]
    cfg = config(tmp_path, corpus, max_revisions=0, agents=["reviewer=python:fakes.scripted:NonCanonicalPathReviewer"])
    result = start_run(cfg, models=models)
    review = json.loads((result.run_dir / "reviews/review-1.json").read_text())
    assert [d["code"] for d in review["defects"]] == ["missing_citation"] and review["verdict"] == "revise"
    assert result.status == "needs_human" and not (result.run_dir / "final-report.md").exists()


def test_a_custom_writer_cannot_overwrite_a_reviewed_draft(tmp_path, corpus):
    """A role writes only the outputs its brief names, not everything its spec's globs allow."""
    models = scripted_models(role_policies())
    del models["writer"]
    cfg = config(tmp_path, corpus, max_revisions=1, agents=["writer=python:fakes.scripted:OverwritingWriter"])
    result = start_run(cfg, models=models)
    assert result.status == "needs_human"
    assert "Overwritten" not in (result.run_dir / "drafts/draft-1.md").read_text()
    assert_clean(result.run_dir)


def test_a_review_is_bound_to_the_draft_its_brief_names(tmp_path, corpus):
    """A Reviewer cannot land a 'pass' for an earlier draft by copying its header."""

    def writer(t: Turn):  # draft-1 has an uncited sentence, draft-2 is clean
        return writer_policy(uncited_sentence=t.brief_line("draft") == "drafts/draft-1.md")(t)

    def reviewer(t: Turn):  # on draft-2, copies the header of review-1 instead of the brief's
        if t.brief_line("draft") == "drafts/draft-1.md":
            return reviewer_policy()(t)
        if not t.steps:
            return call("read_file", file_path="/reviews/review-1.json")
        if t.writes():
            return Say("pass, 0 defects")
        old = json.loads(file_text(t.all_results("read_file")[-1].content))
        review = {
            "draft": old["draft"],
            "draft_sha256": old["draft_sha256"],
            "verdict": "pass",
            "defects": [],
            "reviewed_by": t.identity,
        }
        return call("write_file", file_path="/reviews/review-2.json", content=json.dumps(review))

    def approver(ws, payload):
        return {"decision": "approve", "version": payload.get("sha256"), "by": "tester"}

    models = scripted_models(role_policies(writer=writer, reviewer=reviewer))
    result = start_run(config(tmp_path, corpus, require_final_approval=True), models=models, approver=approver)
    run = result.run_dir
    review1 = json.loads((run / "reviews/review-1.json").read_text())
    review2 = json.loads((run / "reviews/review-2.json").read_text())
    assert review1["draft"] == "drafts/draft-1.md" and review1["verdict"] == "revise"
    assert review2["draft"] == "drafts/draft-2.md"
    assert result.status == "completed"


# ---- 4. review defects drive a bounded revise loop ------------------------------------------------------


@pytest.mark.parametrize("max_revisions", [0, 2])
def test_a_writer_that_never_cites_ends_in_needs_human_after_max_revisions(tmp_path, corpus, max_revisions):
    models = scripted_models(role_policies(writer=writer_policy(uncited_sentence=True)))
    result = start_run(config(tmp_path, corpus, max_revisions=max_revisions), models=models)
    run = result.run_dir

    assert result.status == "needs_human" and result.exit_code == EXIT_INCOMPLETE == 3
    assert f"max_revisions={max_revisions}" in result.reason
    rounds = max_revisions + 1
    assert sorted(p.name for p in (run / "drafts").iterdir()) == [f"draft-{n}.md" for n in range(1, rounds + 1)]
    assert sorted(p.name for p in (run / "reviews").iterdir()) == [f"review-{n}.json" for n in range(1, rounds + 1)]
    for n in range(1, rounds + 1):
        review = json.loads((run / f"reviews/review-{n}.json").read_text())
        # the LLM reviewer said "pass" with no defects; the deterministic check is merged in and wins
        assert review["verdict"] == "revise"
        assert [d["code"] for d in review["defects"]] == ["missing_citation"]
        assert review["defects"][0]["route"] == "writer" and UNCITED[:40] in review["defects"][0]["location"]["excerpt"]
    assert not (run / "final-report.md").exists()
    assert [e["delegation_id"] for e in delegations(run, "writer")] == [f"writer-{n}" for n in range(1, rounds + 1)]
    revise = [e for e in trace(run) if e["event"] == "decision" and e["decision"].startswith("revise_")]
    assert [e["decision"] for e in revise] == ["revise_write"] * max_revisions
    # a revision brief carries the defects routed to the writer
    briefs = list(models["writer"].conversations())
    assert len(briefs) == rounds
    if max_revisions:
        assert "Feedback to address:" in briefs[1] and "missing_citation" in briefs[1]
    assert_clean(run)


# ---- 5. isolation: each subagent sees its system prompt and its brief, nothing else ---------------------


def test_each_subagent_sees_only_its_system_prompt_and_its_own_brief(tmp_path, corpus, specs):
    models = scripted_models(role_policies(n_research=3))
    result = start_run(config(tmp_path, corpus), models=models)
    assert result.status == "completed"

    briefs = {role: set(m.conversations()) for role, m in models.items()}
    assert {r: len(b) for r, b in briefs.items()} == {
        "planner": 1,
        "researcher": 3,
        "analyst": 1,
        "writer": 1,
        "reviewer": 1,
    }
    all_briefs = set().union(*briefs.values())
    for role, model in models.items():
        prompt = specs[role].prompt.strip()
        others = [specs[r].prompt.strip()[:60] for r in ROLES if r != role]
        for brief, conversation in model.conversations().items():
            first = conversation[0]
            assert [type(m) for m in first] == [SystemMessage, HumanMessage], role
            assert first[0].content.startswith(prompt) and first[1].content == brief
            for msgs in conversation:
                assert isinstance(msgs[0], SystemMessage) and msgs[0].content == first[0].content
                assert [m for m in msgs if isinstance(m, HumanMessage)] == [first[1]]
                assert all(isinstance(m, (AIMessage, ToolMessage)) for m in msgs[2:])
                text = "\n".join(str(m.content) for m in msgs)
                assert not any(o in text for o in others), f"{role} saw another role's prompt"
                assert not any(b in text for b in all_briefs - {brief}), f"{role} saw another delegation's brief"
                # the parent's own conversation (delegation ids, other branches' question ids) never leaks in
                if role == "researcher":
                    qid = re.search(r"Plan question: (Q\d+)", brief).group(1)
                    assert not re.search(rf"Research (?!{qid}\b)Q\d+", text)


# ---- 6. budgets --------------------------------------------------------------------------------------


def test_an_llm_call_budget_too_small_for_one_pass_is_refused_before_a_workspace_exists(tmp_path, corpus):
    models = scripted_models(role_policies())
    cfg = config(tmp_path, corpus, budget={"llm_calls": 4})
    with pytest.raises(UsageError, match=r"--budget-llm-calls 4: too small for one pass"):
        start_run(cfg, models=models)
    runs = tmp_path / "runs"
    assert not runs.exists() or not any(runs.iterdir())
    assert all(m.calls == [] for m in models.values())


def test_an_llm_call_budget_that_runs_out_mid_run_ends_budget_exhausted_within_the_limit(tmp_path, corpus):
    limit = 6  # planner 1 call + two branches of 2 (search, record: its card answers, no closing reply); the third
    # runs out after its search
    models = scripted_models(role_policies(n_research=3))
    result = start_run(config(tmp_path, corpus, budget={"llm_calls": limit}, concurrency=1), models=models)
    run = result.run_dir

    assert result.status == "budget_exhausted" and result.exit_code == EXIT_INCOMPLETE
    assert result.reason and "budget" in result.reason
    m = manifest(run)
    assert m["status"] == "budget_exhausted" and m["status_reason"] == result.reason
    assert m["budget"]["limits"]["llm_calls"] == limit
    assert m["budget"]["spent"]["llm_calls"] <= limit
    assert sum(len(x.calls) for x in models.values()) == m["budget"]["spent"]["llm_calls"]
    stops = [e["stop_reason"] for e in delegations(run, "researcher")]
    assert "budget_exhausted" in stops
    exhausted = next(e for e in delegations(run, "researcher") if e["stop_reason"] == "budget_exhausted")
    assert any("llm_calls" in err for err in exhausted["errors"])
    assert not delegations(run, "analyst") and not (run / "final-report.md").exists()
    assert (run / "metrics.json").is_file()
    assert_clean(run)


# ---- 7. research branches run concurrently ------------------------------------------------------------


def _research_intervals(run_dir: Path) -> list[tuple[datetime, datetime]]:
    return sorted((ts(e["started_at"]), ts(e["ended_at"])) for e in delegations(run_dir, "researcher"))


@pytest.mark.parametrize("concurrency, overlap", [(3, True), (1, False)])
def test_research_branches_overlap_only_when_concurrency_allows(tmp_path, corpus, concurrency, overlap):
    models = scripted_models(role_policies(n_research=3), delays={"researcher": 0.3})
    result = start_run(config(tmp_path, corpus, concurrency=concurrency), models=models)
    assert result.status == "completed"
    intervals = _research_intervals(result.run_dir)
    assert len(intervals) == 3
    if overlap:
        # all three branches were running at one instant
        assert max(s for s, _ in intervals) < min(e for _, e in intervals)
    else:
        for (_, end), (start, _) in zip(intervals, intervals[1:]):
            assert end <= start
    assert_clean(result.run_dir)


def test_concurrent_branches_share_one_compiled_agent_and_keep_their_own_delegation(tmp_path, corpus, monkeypatch):
    """Each role's graph is compiled once per run; concurrent branches keep their own context, budget and outputs."""
    import deepagents

    compiled: list[str] = []
    real = deepagents.create_deep_agent

    def counting(*a, **kw):
        compiled.append(kw["name"])
        return real(*a, **kw)

    monkeypatch.setattr(deepagents, "create_deep_agent", counting)
    models = scripted_models(role_policies(n_research=3), delays={"researcher": 0.3})
    result = start_run(config(tmp_path, corpus, concurrency=3), models=models)
    assert result.status == "completed"
    assert sorted(compiled) == sorted(f"{r}-llm" for r in ROLES)  # once per role, although 3 branches ran at once
    assert max(s for s, _ in _research_intervals(result.run_dir)) < min(
        e for _, e in _research_intervals(result.run_dir)
    )
    branches = delegations(result.run_dir, "researcher")
    assert len(branches) == 3
    for e in branches:  # each branch is charged its own 2 calls (search, record) and owns its own question's card
        assert e["llm_calls"] == 2 and e["tokens"] > 0 and e["errors"] == []
        assert len(e["outputs"]) == 1 and e["outputs"][0]["path"].startswith(
            f"source-cards/{e['question_id'].lower()}-"
        )
        card = json.loads((result.run_dir / e["outputs"][0]["path"]).read_text())
        assert card["question_id"] == e["question_id"]
    assert sum(e["llm_calls"] for e in delegations(result.run_dir)) == sum(len(m.calls) for m in models.values())
    assert_clean(result.run_dir)


def test_later_roles_are_compiled_while_the_planner_waits_on_its_model(tmp_path, corpus, monkeypatch):
    """The runner prepares every llm role's agent in the background, so later roles start without building theirs."""
    import time as _time

    import deepagents

    compiled: dict[str, float] = {}
    real = deepagents.create_deep_agent

    def timed(*a, **kw):
        agent = real(*a, **kw)
        compiled[kw["name"].removesuffix("-llm")] = _time.monotonic()
        return agent

    monkeypatch.setattr(deepagents, "create_deep_agent", timed)
    marks: list[tuple[float, dict]] = []
    models = scripted_models(role_policies(), delays={"planner": 0.6})  # one call: it ends once plan.json lands
    result = start_run(config(tmp_path, corpus), models=models, events=lambda e: marks.append((_time.monotonic(), e)))
    assert result.status == "completed"
    planner_done = next(t for t, e in marks if e["event"] == "delegation_ended" and e["agent"] == "planner")
    for role in ("researcher", "analyst", "writer", "reviewer"):
        assert compiled[role] < planner_done, f"{role} was built after the planner finished"


# ---- 8. the real Gemini client against the local stub ---------------------------------------------------


def test_all_five_roles_through_the_real_gemini_client_against_the_stub(tmp_path, corpus, specs):
    from fakes.gemini_stub import GeminiStub, chat_model

    dispatch = GeminiDispatch(role_policies(n_research=2))
    with GeminiStub(responder=dispatch) as stub:
        models = {role: chat_model(stub) for role in ROLES}
        cfg = config(tmp_path, corpus, model="google_genai:gemini-3.5-flash")
        result = start_run(cfg, models=models)
        stub.assert_no_errors()
        requests = stub.generate_requests

    assert result.status == "completed", result.reason
    assert_clean(result.run_dir)
    assert set(dispatch.seen) == set(ROLES)
    for role, reqs in dispatch.seen.items():
        for req in reqs:
            assert sorted(req.tool_names) == sorted(t for t in specs[role].tools if t != "mcp"), role
            assert req.system_instruction.startswith(specs[role].prompt.strip()[:40])
        if len(reqs) > 1:  # a role that wrote its output in its first call ends without another
            assert any(req.function_responses for req in reqs), f"{role} never got a tool result back"
    assert len(dispatch.seen["researcher"]) == 4  # two branches: search, write card (it answers: no closing reply)
    assert all(r.api_key for r in requests) and all(r.model == "gemini-3.5-flash" for r in requests)
    (analyst,) = delegations(result.run_dir, "analyst")
    assert analyst["engine"] == "llm" and analyst["model"] == "google_genai:gemini-3.5-flash"
    # usage metadata from the stub is what gets charged
    assert all(e["tokens"] == 15 * e["llm_calls"] for e in delegations(result.run_dir))
    card = json.loads(next((result.run_dir / "source-cards").glob("q1-*.json")).read_text())
    assert card["extracted_by"]["model"] == "google_genai:gemini-3.5-flash"
