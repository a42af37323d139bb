"""The answer check on the llm engine: a Writer that cites valid claims which do not answer the question.

Every role runs on a scripted tool-calling model (tests/fakes/scripted.py). The Researcher of the
timeout question records a sentence about gardening; the Analyst calls it verified; the Writer cites it;
the Reviewer passes everything. Each citation resolves and is supported by its claim, so only the
answer check can see that the timeout question is not answered. No test reaches the internet.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fakes.scripted import call, researcher_policy, reviewer_policy, role_policies, scripted_models
from fakes.workspaces import ASYNCIO_DOCS, delegations, write_docs
from harness.contract.statuses import ANSWERED, NOT_ANSWERED
from harness.evidence.audit import validate_run
from harness.orchestrator.config import build_config
from harness.orchestrator.lifecycle import start_run

QUESTION = "How do failures propagate in asyncio task groups and timeouts?"
GARDEN = {"garden.md": "# Tomatoes\n\nTomatoes need six hours of sun every day and regular watering in summer.\n"}


@pytest.fixture(autouse=True)
def _offline_env(tmp_path, monkeypatch):
    monkeypatch.setenv("RESEARCH_CACHE_DIR", str(tmp_path / "cache"))
    for key in ("GOOGLE_API_KEY", "GEMINI_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI"):
        monkeypatch.delenv(key, raising=False)


def off_topic_researcher():
    """The Researcher of the timeout question searches the garden and quotes it; the others research as usual."""
    inner = researcher_policy()

    def policy(t):
        if not t.steps and "asyncio.timeout" in t.brief:
            return call("search", query="tomatoes sun watering", k=1)
        return inner(t)

    return policy


def judging_reviewer(verdict: str):
    """The scripted Reviewer, passing the draft, with its own reading of each question in `answers`."""
    inner = reviewer_policy()

    def policy(t):
        action = inner(t)
        if getattr(action, "calls", None) and action.calls[0][0] == "write_file":
            name, args = action.calls[0]
            review = json.loads(args["content"])
            review["answers"] = [
                {"question_id": q, "verdict": verdict, "reason": "the model's own reading"} for q in ("Q1", "Q2")
            ]
            return call(name, **{**args, "content": json.dumps(review)})
        return action

    return policy


def _run(tmp_path: Path, **kw):
    corpus = write_docs(tmp_path / "corpus", ASYNCIO_DOCS | GARDEN)
    models = scripted_models(role_policies(n_research=2, researcher=off_topic_researcher(), **kw))
    cfg = build_config(
        QUESTION, corpus=str(corpus), runs_dir=str(tmp_path / "runs"), engine="llm", model="scripted:fake", yes=True
    )
    return start_run(cfg, models=models)


def test_valid_but_off_topic_citations_do_not_end_clean_and_fully_answered(tmp_path):
    result = _run(tmp_path)
    run = result.run_dir
    metrics = json.loads((run / "metrics.json").read_text())
    reviews = [json.loads(p.read_text()) for p in sorted((run / "reviews").glob("review-*.json"))]
    clean = reviews[-1]["verdict"] == "pass" and not reviews[-1]["defects"]
    # the run may complete, but never as if all were well
    assert not (result.status == "completed" and clean and metrics["ratios"]["answer_coverage"]["value"] == 1)

    # every citation is sound: the citation checks alone would have passed it
    assert metrics["ratios"]["citation_correctness"]["value"] == 1
    verdicts = {a["question_id"]: a["verdict"] for a in metrics["answers"]}
    assert verdicts == {"Q1": ANSWERED, "Q2": NOT_ANSWERED}
    assert metrics["ratios"]["answer_coverage"] == {"value": 0.5, "numerator": 1, "denominator": 2}

    # the first review sends Q2 back to research (the model Reviewer said pass: the check's defect wins)...
    first = [d for d in reviews[0]["defects"] if d["code"] == "question_not_answered"]
    assert [(d["severity"], d["route"], d["refs"]["questions"]) for d in first] == [("error", "researcher", ["Q2"])]
    assert reviews[0]["verdict"] == "revise"
    assert [e["delegation_id"] for e in delegations(run, "researcher") if "-Q2-" in e["delegation_id"]] == [
        "researcher-Q2-r0",
        "researcher-Q2-r1",
    ]
    # ... once: then it is a warning, and the report says so in plain words
    last = [d for d in reviews[-1]["defects"] if d["code"] == "question_not_answered"]
    assert [(d["severity"], d["refs"]["questions"]) for d in last] == [("warning", ["Q2"])]
    assert result.status == "completed"
    report = (run / "final-report.md").read_text()
    limitations = report.split("## Limitations", 1)[1].split("\n---\n", 1)[0]
    assert "Not answered from the sources: Q2 (Find what asyncio.timeout does" in limitations
    assert "Q1" not in limitations.replace("No research branch", "")
    assert validate_run(run) == []


def test_a_model_reviewers_reading_is_kept_beside_the_checks_never_in_its_place(tmp_path):
    result = _run(tmp_path, reviewer=judging_reviewer(ANSWERED))
    run = result.run_dir
    review = json.loads(sorted((run / "reviews").glob("review-*.json"))[0].read_text())
    by_origin = {(a["question_id"], a["origin"]): a["verdict"] for a in review["answers"]}
    assert by_origin[("Q2", "deterministic")] == NOT_ANSWERED and by_origin[("Q2", "llm")] == ANSWERED
    metrics = json.loads((run / "metrics.json").read_text())
    q2 = next(a for a in metrics["answers"] if a["question_id"] == "Q2")
    assert q2["verdict"] == NOT_ANSWERED
    assert q2["reviewer"] == {"verdict": ANSWERED, "reason": "the model's own reading"}
    assert metrics["ratios"]["answer_coverage"]["value"] == 0.5
