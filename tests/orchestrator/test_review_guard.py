"""The review guard: whatever a Reviewer writes, the deterministic defects stay and the verdict is no laxer."""

from __future__ import annotations

import json

import pytest

from harness.evidence.checks import defect
from harness.orchestrator.review_guard import merge_deterministic

REVIEW = "reviews/review-1.json"
DRAFT = "drafts/draft-1.md"
SHA = "a" * 64
BY = {"role": "reviewer", "engine": "custom", "model": None}

MISSING = defect("missing_citation", 3, "This sentence states a fact but cites no claim.", "writer", excerpt="x y z w")
HUMAN = defect("injection_echo", 0, "The title repeats instruction-like text.", "human", sources=["src-0123456789ab"])
WARNING = defect("other", 4, "A style note.", "writer", severity="warning")


def review(verdict="pass", defects=(), **kw) -> dict:
    return {"draft": DRAFT, "draft_sha256": SHA, "verdict": verdict, "defects": list(defects), "reviewed_by": BY} | kw


def guard(found=(MISSING,)):
    return merge_deterministic(REVIEW, list(found), DRAFT, SHA)


def test_other_paths_pass_through_untouched():
    content = {"verdict": "pass", "defects": []}
    assert guard()("reviews/review-2.json", content) is content
    assert guard()("claims.json", "not json") == "not json"


def test_a_lenient_review_gets_the_deterministic_defects_and_their_verdict():
    out = guard()(REVIEW, review("pass"))
    assert out["defects"] == [MISSING]
    assert out["verdict"] == "revise"
    assert out["reviewed_by"] == BY  # the rest of the review is kept


def test_a_review_sent_as_json_text_or_bytes_is_parsed_and_guarded():
    for content in (json.dumps(review("pass")), json.dumps(review("pass")).encode()):
        out = guard()(REVIEW, content)
        assert out["defects"] == [MISSING] and out["verdict"] == "revise"


@pytest.mark.parametrize("content", ["{not json", b"\x00", ["a", "list"], {"verdict": "pass"}, {"defects": "none"}])
def test_content_the_schema_will_refuse_is_left_for_the_schema_to_report(content):
    assert guard()(REVIEW, content) == content


def test_a_deterministic_defect_the_reviewer_repeated_is_kept_once():
    mine = dict(MISSING, message="Cite a claim here.", origin="llm")  # same code, line and refs, other words
    out = guard()(REVIEW, review("revise", [mine]))
    assert out["defects"] == [mine]


def test_defects_differing_in_line_or_refs_are_different_defects():
    elsewhere = defect("missing_citation", 7, "Uncited.", "writer")
    other_refs = defect("missing_citation", 3, "Uncited.", "writer", claims=["C2"])
    out = guard()(REVIEW, review("revise", [elsewhere, other_refs]))
    assert out["defects"] == [elsewhere, other_refs, MISSING]


def test_the_reviewers_own_defects_are_kept_and_count_toward_the_verdict():
    semantic = defect("other", 2, "The summary overstates the evidence.", "writer") | {"origin": "llm"}
    out = guard(found=[])(REVIEW, review("pass", [semantic]))
    assert out["defects"] == [semantic] and out["verdict"] == "revise"


@pytest.mark.parametrize(
    "claimed, found, verdict",
    [
        ("pass", [], "pass"),
        ("pass", [WARNING], "pass"),  # a warning does not block
        ("revise", [], "revise"),  # a stricter reviewer is kept
        ("needs_human", [MISSING], "needs_human"),
        ("pass", [MISSING, HUMAN], "needs_human"),
        ("revise", [HUMAN], "needs_human"),
        ("looks good", [MISSING], "revise"),  # not a verdict: the checks' verdict
        (None, [], "pass"),
    ],
)
def test_the_verdict_is_the_stricter_of_the_reviewers_and_the_defects(claimed, found, verdict):
    content = review(claimed, [])
    if claimed is None:
        del content["verdict"]
    assert guard(found)(REVIEW, content)["verdict"] == verdict


def test_the_review_is_bound_to_the_draft_the_brief_named():
    out = guard()(REVIEW, review("pass", draft="drafts/draft-9.md", draft_sha256="b" * 64))
    assert (out["draft"], out["draft_sha256"]) == (DRAFT, SHA)


def test_the_guard_never_changes_the_content_it_was_given():
    content = review("pass", [WARNING])
    before = json.loads(json.dumps(content))
    guard()(REVIEW, content)
    assert content == before
