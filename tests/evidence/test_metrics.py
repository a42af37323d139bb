"""metrics.json: the lexical citation judge, and an LLM Reviewer's judgement on top of it."""

from __future__ import annotations

from fakes.workspaces import DRAFT
from harness.contract.formats import sha256_text
from harness.evidence.metrics import compute_metrics


def _review(ws, specs, engine, defects):
    review = {
        "draft": "drafts/draft-1.md",
        "draft_sha256": sha256_text(DRAFT),
        "verdict": "revise" if defects else "pass",
        "defects": defects,
        "reviewed_by": {
            "role": "reviewer",
            "engine": engine,
            "model": "google_genai:gemini-3.5-flash" if engine == "llm" else None,
        },
    }
    ws.write("reviews/review-2.json", review, specs["reviewer"].policy)


def test_lexical_judge_accepts_a_supported_citation(built_ws):
    m = compute_metrics(built_ws.reader(cache=True), "drafts/draft-1.md")
    assert m["judge"] == "lexical"
    assert m["ratios"]["citation_correctness"] == {"value": 1.0, "numerator": 1, "denominator": 1}
    assert m["ratios"]["citation_coverage"]["value"] == 1.0 and m["ratios"]["primary_source_ratio"]["value"] == 1.0


def test_an_llm_reviewer_flag_counts_against_correctness(built_ws, specs):
    flag = {
        "code": "citation_not_supporting",
        "severity": "error",
        "location": {"line": 3},
        "refs": {"claims": ["C1"]},
        "message": "The quote is about groups, not single tasks.",
        "route": "writer",
        "origin": "llm",
    }
    _review(built_ws, specs, "llm", [flag])
    m = compute_metrics(built_ws.reader(cache=True), "drafts/draft-1.md")
    assert m["judge"] == "lexical+llm (google_genai:gemini-3.5-flash)"
    assert m["ratios"]["citation_correctness"] == {"value": 0.0, "numerator": 0, "denominator": 1}


def test_a_deterministic_or_offline_flag_is_not_an_llm_judgement(built_ws, specs):
    flag = {
        "code": "citation_not_supporting",
        "severity": "error",
        "location": {"line": 3},
        "refs": {"claims": ["C1"]},
        "message": "lexical screen",
        "route": "writer",
        "origin": "deterministic",
    }
    _review(built_ws, specs, "llm", [flag])
    m = compute_metrics(built_ws.reader(cache=True), "drafts/draft-1.md")
    assert m["ratios"]["citation_correctness"]["numerator"] == 1  # only the model's own semantic flags count here
    _review(built_ws, specs, "offline", [])
    assert compute_metrics(built_ws.reader(cache=True), "drafts/draft-1.md")["judge"] == "lexical"
