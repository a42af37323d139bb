"""What the answer check makes the review and the report do: `question_not_answered` (an error for research
once, a warning after), `heading_as_finding`, a limitation said once for a source, and the Limitations lines the
final report prints. Small run folders written straight to disk, as in test_checks.py."""

from __future__ import annotations

import json
from pathlib import Path

from fakes.workspaces import SOURCE_ID, SOURCE_TEXT, make_card, make_plan, source_record
from harness.contract.formats import sha256_text
from harness.engines.offline.writer import checked_draft, render_draft
from harness.evidence.answers import answer_records
from harness.evidence.checks import answer_gap, defect, draft_defects, gap_wants_new_source
from harness.evidence.report import render_report
from harness.workspace.reader import RunReader

CARD = "q1-src-0123456789ab-1"
HEADING_CARD = "q1-src-0123456789ab-2"
STATEMENT = "A TaskGroup cancels its remaining tasks when one fails."


def claim(cid: str, card: str, **kw) -> dict:
    return {
        "claim_id": cid,
        "statement": STATEMENT,
        "question_id": "Q1",
        "supporting_cards": [card],
        "contradicting_cards": [],
        "limitations": [],
        "status": "verified",
    } | kw


def build(root: Path, claims: list[dict], question: str = "How does asyncio.TaskGroup handle a failing task?"):
    root.mkdir(parents=True, exist_ok=True)
    plan = make_plan()
    plan["questions"][0]["text"] = question
    (root / "plan.json").write_text(json.dumps(plan))
    for folder in ("sources", "source-cards", "drafts"):
        (root / folder).mkdir(exist_ok=True)
    (root / "sources" / f"{SOURCE_ID}.txt").write_text(SOURCE_TEXT, encoding="utf-8")
    (root / "sources" / f"{SOURCE_ID}.json").write_text(json.dumps(source_record(SOURCE_TEXT, SOURCE_ID)))
    heading = make_card(card_id=HEADING_CARD) | {"quote": "asyncio.TaskGroup", "span": {"start": 0, "end": 17}}
    for card in (make_card(card_id=CARD), heading):
        (root / "source-cards" / f"{card['card_id']}.json").write_text(json.dumps(card))
    (root / "claims.json").write_text(json.dumps({"claims": claims}))
    return RunReader(root)


def defects(reader: RunReader, text: str, code: str, **kw) -> list[dict]:
    return [d for d in draft_defects(reader, "drafts/draft-1.md", text=text, **kw) if d["code"] == code]


def test_an_answered_question_has_no_answer_defect(tmp_path):
    reader = build(tmp_path, [claim("C1", CARD)])
    assert defects(reader, f"# T\n\n{STATEMENT} [@C1].\n", "question_not_answered", may_research={"Q1"}) == []


def test_an_open_question_is_an_error_for_research_once_then_a_warning(tmp_path):
    reader = build(tmp_path, [claim("C1", CARD)], "When was asyncio.TaskGroup added?")
    text = f"# T\n\n{STATEMENT} [@C1].\n"
    [first] = defects(reader, text, "question_not_answered", may_research={"Q1"})
    assert (first["severity"], first["route"], first["refs"]) == (
        "error",
        "researcher",
        {"claims": ["C1"], "questions": ["Q1"]},
    )
    assert "lack a date or version" in first["message"]
    assert answer_gap(first) == ("Q1", 2)
    [after] = defects(reader, text, "question_not_answered")  # researched again, or no revise round left
    assert (after["severity"], after["route"]) == ("warning", "writer")
    assert "Limitations" in after["message"]


def test_a_claim_quoting_only_a_heading_is_never_a_finding(tmp_path):
    reader = build(tmp_path, [claim("C1", HEADING_CARD, statement="asyncio.TaskGroup")])
    text = "# T\n\nThe answer is asyncio.TaskGroup and nothing more [@C1].\n"
    [d] = defects(reader, text, "heading_as_finding")
    assert (d["route"], d["refs"]["claims"], d["location"]["line"]) == ("writer", ["C1"], 3)
    assert (
        defects(build(tmp_path / "ok", [claim("C1", CARD)]), f"# T\n\n{STATEMENT} [@C1].\n", "heading_as_finding") == []
    )


def test_a_limitation_shared_by_one_sources_claims_is_said_once(tmp_path):
    limited = {"status": "verified_with_limit", "limitations": ["secondary source only"]}
    claims = [claim("C1", CARD, **limited), claim("C2", CARD, **limited)]
    reader = build(tmp_path, claims)
    plan = reader.plan()
    cards = {CARD: make_card(card_id=CARD)}
    draft = render_draft(plan, claims, cards, {})
    assert draft.count("secondary source only") == 2  # once after the findings, once under Limitations
    assert "These findings, from one source, have a limitation: secondary source only [@C1; @C2]." in draft
    assert "- C1 and C2 rest, from one source, on limited evidence: secondary source only." in draft
    assert "This finding has a limitation" not in draft
    assert defects(reader, draft, "uncertainty_removed") == []
    # said of no claim, the limitation is removed uncertainty still
    bare = draft.replace("These findings, from one source, have a limitation: secondary source only [@C1; @C2].", "")
    assert {d["refs"]["claims"][0] for d in defects(reader, bare, "uncertainty_removed")} == {"C1", "C2"}


def test_the_writer_never_says_uncited_claims_do_not_carry_the_answer(tmp_path):
    claims = [claim("C1", CARD), claim("C2", CARD, statement="The remaining tasks in the group are cancelled.")]
    reader = build(tmp_path, claims)
    draft = render_draft(reader.plan(), claims, {CARD: make_card(card_id=CARD)}, {})
    assert "carry the answer" not in draft.split("## Limitations", 1)[1]
    assert "do not carry" not in draft


def test_the_report_states_each_open_question_under_limitations(tmp_path):
    reader = build(tmp_path, [claim("C1", CARD)], "When was asyncio.TaskGroup added?")
    draft = f"# T\n\n{STATEMENT} [@C1].\n\n## Limitations\n\n- None found.\n"
    (tmp_path / "drafts" / "draft-1.md").write_text(draft)
    records = answer_records(reader, "drafts/draft-1.md")
    claims, cards = reader.claims(), {CARD: reader.card(CARD)}
    sources = {SOURCE_ID: reader.source(SOURCE_ID)}
    report = render_report(draft, "drafts/draft-1.md", sha256_text(draft), claims, cards, sources, answers=records)
    limitations = report.split("## Limitations", 1)[1].split("\n---\n", 1)[0]
    assert "- Not answered from the sources: Q1 (When was asyncio.TaskGroup added?): the cited quotes" in limitations
    answered = [dict(r, verdict="answered") for r in records]
    report = render_report(draft, "drafts/draft-1.md", sha256_text(draft), claims, cards, sources, answers=answered)
    assert "answered from the sources" not in report


def test_the_writer_never_says_nothing_is_missing_when_a_question_is_open(tmp_path):
    claims = [claim("C1", CARD)]
    reader = build(tmp_path, claims)
    cards = {CARD: make_card(card_id=CARD)}
    gap = defect(
        "question_not_answered",
        0,
        "Q1 is not answered by the evidence the draft cites: x.",
        "writer",
        severity="warning",
    )
    gap["refs"] = {"questions": ["Q1"]}
    assert "None found" in checked_draft(reader.plan(), claims, cards, {}, lambda text: [])
    assert "None found" not in checked_draft(reader.plan(), claims, cards, {}, lambda text: [gap])


OTHER_CARD = "q1-src-fedcba987654-1"  # a card of a second source, one the first draft does not cite
SAME_CARD = "q1-src-0123456789ab-3"  # a second card of the cited source


def _added_for(tmp_path: Path, reason: str, extra_card: str) -> bool:
    """Does the Writer add claim C2 (on `extra_card`) when the answer check finds Q1 open for `reason` until C2 is
    cited?"""
    claims = [claim("C1", CARD), claim("C2", extra_card, statement="TaskGroup was added in Python 3.11.")]
    reader = build(tmp_path, claims)
    other = make_card(card_id=OTHER_CARD) | {"source_id": "src-fedcba987654"}
    cards = {CARD: make_card(card_id=CARD), OTHER_CARD: other, SAME_CARD: make_card(card_id=SAME_CARD)}
    gap = defect("question_not_answered", 0, f"Q1 is not answered by the evidence the draft cites: {reason}.", "writer")
    gap["refs"] = {"questions": ["Q1"]}
    text = checked_draft(reader.plan(), claims, cards, {}, lambda t: [] if "[@C2]" in t else [gap])
    return "[@C2]" in text


def test_a_missing_kind_of_answer_is_looked_for_in_the_sources_already_cited(tmp_path):
    lacks = "the cited quotes name its subject but lack a date or version"
    assert not _added_for(tmp_path / "new", lacks, OTHER_CARD)  # any new source has a date: a word match
    assert _added_for(tmp_path / "same", lacks, SAME_CARD)


def test_a_new_source_is_added_for_a_thing_the_question_names_or_a_quote_closer_in_meaning(tmp_path):
    for i, reason in enumerate(
        (
            "the cited quotes do not name its subject (words: added, taskgroup)",
            "the cited quotes give a statement on asyncio but lack a statement on trio",
            "the cited quotes give a statement, but none is close in meaning to the question (closest 0.41, needs 0.6)",
        )
    ):
        assert _added_for(tmp_path / str(i), reason, OTHER_CARD), reason


def test_which_gaps_a_new_source_may_fill():
    def wants(reason: str) -> bool:
        return gap_wants_new_source({"code": "question_not_answered", "message": f"Q1 is not answered: {reason}."})

    assert wants("the cited quotes give a name but do not name Jon and Turteltaub")
    assert not wants("the cited quotes give a statement on A and a statement on B but lack a number")
    assert wants("the cited quotes give a statement on A but lack a number or a statement on B")
    assert not wants("the cited quotes name its subject but lack a statement")
