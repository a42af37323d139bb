"""The Reviewer's deterministic checks, one defect code at a time, on small folders built by hand.

Each folder is written straight to disk (as a hand-edited workspace would be), so a test can
hold states the workspace API refuses to write: a claim on a missing card, a card whose source
was never registered, a quote not in its snapshot. `injection_echo` has its own file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fakes.workspaces import QUOTE, SOURCE_ID, SOURCE_TEXT, make_card, make_plan, source_record
from harness.evidence.checks import describe_defect, draft_defects, verdict_for
from harness.workspace.reader import RunReader

CARD = f"q1-{SOURCE_ID}-1"
OTHER_SOURCE = "src-00000000000b"
OTHER_CARD = f"q1-{OTHER_SOURCE}-1"
TITLE = "# TaskGroup failures\n\n"
CITED = "When one task fails, a TaskGroup cancels the remaining tasks [@C1].\n"

V24 = "The current stable release of fastjson is version 2.4 and it is maintained by the core team."
V30 = "The current stable release of fastjson is version 3.0 and it is maintained by the core team."


def claim(status: str = "verified", **kw) -> dict:
    return {
        "claim_id": "C1",
        "statement": "A TaskGroup cancels its remaining tasks when one fails.",
        "question_id": "Q1",
        "supporting_cards": [CARD],
        "contradicting_cards": [],
        "limitations": [],
        "status": status,
    } | kw


def build(root: Path, *, claims: list[dict] | None = None, cards: dict | None = None, sources: dict | None = None):
    """A run folder on disk: the fixture plan, `sources` (id -> snapshot text), `cards` (id -> card), claims."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "plan.json").write_text(json.dumps(make_plan()))
    for folder in ("sources", "source-cards", "drafts"):
        (root / folder).mkdir(exist_ok=True)
    for sid, text in (sources if sources is not None else {SOURCE_ID: SOURCE_TEXT}).items():
        (root / "sources" / f"{sid}.txt").write_text(text, encoding="utf-8")
        (root / "sources" / f"{sid}.json").write_text(json.dumps(source_record(text, sid)))
    for cid, card in (cards if cards is not None else {CARD: make_card(card_id=CARD)}).items():
        (root / "source-cards" / f"{cid}.json").write_text(json.dumps(card))
    (root / "claims.json").write_text(json.dumps({"claims": claims if claims is not None else [claim()]}))
    return RunReader(root)


def card_on(text: str, quote: str, card_id: str, source_id: str) -> dict:
    start = text.index(quote)
    return make_card(card_id=card_id) | {
        "source_id": source_id,
        "quote": quote,
        "span": {"start": start, "end": start + len(quote)},
    }


def defects_of(reader: RunReader, draft: str, code: str | None = None, branches: dict | None = None) -> list[dict]:
    found = draft_defects(reader, "drafts/draft-1.md", branches, text=draft)
    return [d for d in found if code is None or d["code"] == code]


def brief(d: dict) -> tuple:
    return (d["code"], d["location"]["line"], d["route"], d["severity"], d["refs"])


def test_a_draft_citing_a_verified_claim_it_paraphrases_has_no_defect(tmp_path):
    assert defects_of(build(tmp_path), TITLE + CITED) == []


def test_missing_citation_names_the_uncited_factual_sentence(tmp_path):
    draft = TITLE + CITED + "\nThe group stops every other task as soon as one of them raises an error.\n"
    (d,) = defects_of(build(tmp_path), draft, "missing_citation")
    assert brief(d) == ("missing_citation", 5, "writer", "error", {})
    assert d["location"]["excerpt"].startswith("The group stops every other task")
    # a sentence in italics, a question or a lead-in is not factual and needs no citation
    notes = "\n*The group stops every other task as soon as one fails.*\n\nWhat happens to the other tasks?\n"
    assert defects_of(build(tmp_path), TITLE + CITED + notes, "missing_citation") == []


def test_unknown_claim_names_the_claim_id_that_is_not_in_the_table(tmp_path):
    draft = TITLE + CITED + "\nThe remaining tasks in the group are cancelled [@C9].\n"
    (d,) = defects_of(build(tmp_path), draft, "unknown_claim")
    assert brief(d) == ("unknown_claim", 5, "writer", "error", {"claims": ["C9"]})


def test_unknown_source_named_in_the_prose_goes_to_the_writer(tmp_path):
    draft = TITLE + "When one task fails (src-ffffffffffff), a TaskGroup cancels the remaining tasks [@C1].\n"
    (d,) = defects_of(build(tmp_path), draft, "unknown_source")
    assert brief(d) == ("unknown_source", 3, "writer", "error", {"sources": ["src-ffffffffffff"]})
    # a registered source named in the prose is fine
    registered = TITLE + f"When one task fails ({SOURCE_ID}), a TaskGroup cancels the remaining tasks [@C1].\n"
    assert defects_of(build(tmp_path), registered, "unknown_source") == []


def test_unknown_source_of_a_claim_on_a_missing_card_goes_to_the_analyst(tmp_path):
    reader = build(tmp_path, claims=[claim(supporting_cards=[CARD, f"q1-{SOURCE_ID}-9"])])
    (d,) = defects_of(reader, TITLE + CITED, "unknown_source")
    assert brief(d) == ("unknown_source", 3, "analyst", "error", {"claims": ["C1"], "cards": [f"q1-{SOURCE_ID}-9"]})


@pytest.mark.parametrize("missing", ["record", "snapshot"])
def test_unknown_source_of_a_card_whose_source_is_not_registered_goes_to_the_researcher(tmp_path, missing):
    reader = build(tmp_path)
    (tmp_path / "sources" / f"{SOURCE_ID}.{'json' if missing == 'record' else 'txt'}").unlink()
    (d,) = defects_of(reader, TITLE + CITED, "unknown_source")
    assert brief(d) == (
        "unknown_source",
        3,
        "researcher",
        "error",
        {"claims": ["C1"], "cards": [CARD], "sources": [SOURCE_ID]},
    )


def test_quote_not_in_source_when_the_card_misquotes_its_snapshot(tmp_path):
    misquoted = make_card(card_id=CARD) | {"quote": QUOTE.replace("remaining", "other")}
    (d,) = defects_of(build(tmp_path, cards={CARD: misquoted}), TITLE + CITED, "quote_not_in_source")
    assert brief(d) == (
        "quote_not_in_source",
        3,
        "researcher",
        "error",
        {"claims": ["C1"], "cards": [CARD], "sources": [SOURCE_ID]},
    )


def test_quote_not_in_source_when_the_snapshot_was_changed_after_it_was_recorded(tmp_path):
    reader = build(tmp_path)
    (tmp_path / "sources" / f"{SOURCE_ID}.txt").write_text(SOURCE_TEXT.upper(), encoding="utf-8")
    assert [d["code"] for d in defects_of(reader, TITLE + CITED)] == ["quote_not_in_source"]


def test_retracted_source_when_a_claim_rests_on_a_retracted_paper_goes_to_the_analyst(tmp_path):
    reader = build(tmp_path)
    assert defects_of(reader, TITLE + CITED, "retracted_source") == []
    record_path = tmp_path / "sources" / f"{SOURCE_ID}.json"
    record = json.loads(record_path.read_text())
    work = {"title": "TaskGroups", "authors": [], "open_access": False, "provider": "crossref"}
    record["work"] = work | {"retracted": False, "abstract_only": True}
    record_path.write_text(json.dumps(record))
    assert defects_of(RunReader(tmp_path), TITLE + CITED, "retracted_source") == []
    record["work"]["retracted"] = True
    record_path.write_text(json.dumps(record))
    (d,) = defects_of(RunReader(tmp_path), TITLE + CITED, "retracted_source")
    assert brief(d) == (
        "retracted_source",
        3,
        "analyst",
        "error",
        {"claims": ["C1"], "cards": [CARD], "sources": [SOURCE_ID]},
    )
    assert "retracted paper ('TaskGroups')" in d["message"]


def test_a_card_cited_by_two_sentences_is_checked_once(tmp_path):
    misquoted = make_card(card_id=CARD) | {"quote": QUOTE.replace("remaining", "other")}
    draft = TITLE + CITED + "\n" + CITED
    assert len(defects_of(build(tmp_path, cards={CARD: misquoted}), draft, "quote_not_in_source")) == 1


@pytest.mark.parametrize("status", ["rejected", "unsupported"])
def test_unsupported_claim_when_the_draft_cites_a_claim_never_to_be_reported(tmp_path, status):
    (d,) = defects_of(build(tmp_path, claims=[claim(status)]), TITLE + CITED, "unsupported_claim")
    assert brief(d) == ("unsupported_claim", 3, "writer", "error", {"claims": ["C1"], "questions": ["Q1"]})
    assert status in d["message"]


def _conflict(tmp_path: Path) -> RunReader:
    text_a, text_b = f"# fastjson overview\n\n{V24}\n", f"# fastjson changelog\n\n{V30}\n"
    return build(
        tmp_path,
        sources={SOURCE_ID: text_a, OTHER_SOURCE: text_b},
        cards={CARD: card_on(text_a, V24, CARD, SOURCE_ID), OTHER_CARD: card_on(text_b, V30, OTHER_CARD, OTHER_SOURCE)},
        claims=[
            claim(
                "conflicted",
                statement="The current stable release of fastjson is version 2.4.",
                contradicting_cards=[OTHER_CARD],
            )
        ],
    )


@pytest.mark.parametrize(
    "sentence, hidden",
    [
        ("The current stable release of fastjson is version 2.4 [@C1].", True),  # one side only
        ("The sources disagree about the current stable release of fastjson [@C1].", True),  # without both figures
        ("The sources disagree: the current stable release of fastjson is 2.4 in one, 3.0 in another [@C1].", False),
    ],
)
def test_conflict_hidden_unless_the_text_says_the_sources_disagree_and_shows_both_sides(tmp_path, sentence, hidden):
    found = defects_of(_conflict(tmp_path), TITLE + sentence + "\n", "conflict_hidden")
    assert [brief(d) for d in found] == (
        [("conflict_hidden", 3, "writer", "error", {"claims": ["C1"]})] if hidden else []
    )


def test_conflict_hidden_when_a_conflicted_claim_backs_a_recommendation(tmp_path):
    sentence = (
        "The sources disagree on version 2.4 or 3.0 of fastjson, so we recommend the current stable release [@C1]."
    )
    (d,) = defects_of(_conflict(tmp_path), TITLE + sentence + "\n", "conflict_hidden")
    assert "must not back a recommendation" in d["message"] and d["route"] == "writer"


@pytest.mark.parametrize(
    "limitation, stated",
    [
        # a hedge word in the sentence or its neighbours
        ("the summary is secondary", "Reportedly, when one task fails, a TaskGroup cancels the remaining tasks [@C1]."),
        # or the limitation's own words
        (
            "the cancellation order is undocumented",
            "When one task fails, a TaskGroup cancels the remaining tasks, in an undocumented order [@C1].",
        ),
    ],
)
def test_uncertainty_removed_unless_the_limitation_is_stated(tmp_path, limitation, stated):
    reader = build(tmp_path, claims=[claim("verified_with_limit", limitations=[limitation])])
    (d,) = defects_of(reader, TITLE + CITED, "uncertainty_removed")
    assert brief(d) == ("uncertainty_removed", 3, "writer", "error", {"claims": ["C1"]})
    assert limitation in d["message"]
    assert defects_of(reader, TITLE + stated + "\n", "uncertainty_removed") == []


@pytest.mark.parametrize(
    "sentence",
    [
        "A TaskGroup retries every failed task with exponential backoff before it gives up [@C1].",  # other words
        "When one task fails, a TaskGroup cancels the remaining 3 tasks [@C1].",  # a figure not in the evidence
    ],
)
def test_citation_not_supporting_when_the_sentence_is_not_in_its_evidence(tmp_path, sentence):
    (d,) = defects_of(build(tmp_path), TITLE + sentence + "\n", "citation_not_supporting")
    assert brief(d) == ("citation_not_supporting", 3, "writer", "error", {"claims": ["C1"]})


def test_citation_not_supporting_is_not_raised_for_an_unusable_claim(tmp_path):
    # a rejected claim is reported as unsupported_claim; whether it supports the sentence is moot
    sentence = TITLE + "A TaskGroup retries every failed task with exponential backoff before it gives up [@C1].\n"
    found = defects_of(build(tmp_path, claims=[claim("rejected")]), sentence)
    assert "citation_not_supporting" not in {d["code"] for d in found}


UNCITED = TITLE + "*This draft does not answer anything yet.*\n"


def test_scope_not_covered_goes_to_the_writer_when_usable_claims_exist(tmp_path):
    (d,) = defects_of(build(tmp_path), UNCITED, "scope_not_covered")
    assert brief(d) == ("scope_not_covered", 0, "writer", "error", {"questions": ["Q1"]})


@pytest.mark.parametrize(
    "branch, route",
    [
        (None, "researcher"),  # no usable evidence yet: research it
        ({"status": "completed"}, "researcher"),
        ({"status": "blocked", "reason": "nothing relevant"}, "writer"),  # research is over: say why not answered
        ({"status": "failed", "reason": "crashed"}, "writer"),
        ({"status": "timeout", "reason": "too slow"}, "writer"),
    ],
)
def test_scope_not_covered_route_depends_on_how_the_branch_ended(tmp_path, branch, route):
    reader = build(tmp_path, claims=[claim("unsupported")])
    (d,) = defects_of(reader, UNCITED, "scope_not_covered", branches={"Q1": branch} if branch else None)
    assert d["route"] == route


@pytest.mark.parametrize(
    "note",
    [
        "*Q1 is not answered: the branch found nothing.*",  # names the question
        "*Nothing in the corpus says how TaskGroup handles a failing task.*",  # restates it
    ],
)
def test_scope_not_covered_is_not_raised_when_the_draft_says_why(tmp_path, note):
    assert defects_of(build(tmp_path), TITLE + note + "\n", "scope_not_covered") == []


def test_deliverable_questions_need_no_claim(tmp_path):
    # Q2 (deliverable) is answered from the claims; only research questions are checked for scope
    assert {q for d in defects_of(build(tmp_path), UNCITED) for q in d["refs"].get("questions", [])} == {"Q1"}


def _d(severity: str, route: str) -> dict:
    return {"code": "other", "severity": severity, "route": route}


@pytest.mark.parametrize(
    "defects, verdict",
    [
        ([], "pass"),
        ([_d("warning", "writer"), _d("warning", "human")], "pass"),  # warnings never block
        ([_d("error", "writer"), _d("warning", "human")], "revise"),
        ([_d("error", "researcher"), _d("error", "human")], "needs_human"),
    ],
)
def test_verdict_for(defects, verdict):
    assert verdict_for(defects) == verdict


def test_describe_defect_is_one_line_with_line_code_message_and_offending_text(tmp_path):
    draft = TITLE + CITED + "\nThe group stops every other task as soon as one of them raises an error.\n"
    (d,) = defects_of(build(tmp_path), draft, "missing_citation")
    assert describe_defect(d) == (
        "- line 5: missing_citation: This sentence states a fact but cites no claim. "
        'Offending text: "The group stops every other task as soon as one of them raises an error."'
    )
    (scope,) = defects_of(build(tmp_path), UNCITED, "scope_not_covered")
    assert describe_defect(scope).startswith(
        "- line 0: scope_not_covered: Q1 ("
    ) and "Offending" not in describe_defect(scope)


def test_the_checks_read_a_draft_on_disk_when_given_no_text(tmp_path):
    reader = build(tmp_path)
    (tmp_path / "drafts" / "draft-1.md").write_text(TITLE + "When one task fails, all is lost [@C9].\n")
    assert {d["code"] for d in draft_defects(reader, "drafts/draft-1.md")} >= {"unknown_claim"}
