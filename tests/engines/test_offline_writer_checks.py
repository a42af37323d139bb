"""The offline Writer's draft passes the Reviewer's own deterministic checks (`check_draft`), and its Summary and
table cells quote sentences that stand alone. Small corpora written here; no network."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fakes.workspaces import write_docs
from harness.contract.citations import parse_citations
from harness.engines.offline.ranking import stands_alone
from harness.engines.offline.writer import checked_draft, column, render_draft
from harness.evidence.checks import draft_defects
from harness.evidence.draft import parse_draft
from harness.orchestrator.config import build_config
from harness.orchestrator.lifecycle import start_run
from harness.workspace.reader import RunReader

# A comparison whose one cell can only be a sentence that speaks of the criterion by a related word ("raises an
# exception" for "error handling"): the row would not be supported by its evidence, so the Writer must drop it.
RELATED_ONLY = (
    {
        "alpha.md": "# alpha\n\nThe alpha scheduler raises an exception to the caller when a job cannot start. "
        "The alpha scheduler keeps its queue in memory.\n",
        "beta.md": "# beta\n\nThe beta scheduler retries a failed job later, up to three times. "
        "The beta scheduler keeps its queue on disk.\n",
    },
    "How do alpha and beta differ in error handling?",
)
# Two people, one criterion that neither sentence states in its words (the HotpotQA "written 300 papers" case).
PEOPLE = (
    {
        "ann.md": "# Ann Moor\n\nAnn Moor was a British chemist who studied crystals. "
        "She published more than three hundred articles on crystal growth.\n",
        "bob.md": "# Bob Lane\n\nBob Lane was an American physicist. "
        "He wrote many books about optics and taught at a university for forty years.\n",
    },
    "Who has written more papers, Ann Moor or Bob Lane?",
)
# The best sentence opens with a connective: it is quoted with the sentence before it, or not at all.
CONNECTIVE = (
    {
        "gadget.md": "# gadget\n\nThe gadget module runs callbacks on a timer. "
        "For instance, a gadget timer can be cancelled before its callback runs, and then the callback never runs.\n",
        "other.md": "# widget\n\nThe widget module draws boxes on the screen in many colours.\n",
    },
    "Can a gadget timer be cancelled before its callback runs?",
)
BRIDGE = (
    {
        "kiss.md": "# Kiss and Tell (1945 film)\n\nKiss and Tell is a 1945 American comedy film. "
        "The film stars Shirley Temple as Corliss Archer, a teenage girl.\n",
        "temple.md": "# Shirley Temple\n\nShirley Temple was an American actress and diplomat. "
        "She held the government position of United States ambassador to Ghana.\n",
    },
    "What government position did the actress who starred as Corliss Archer in Kiss and Tell hold?",
)


def _run(tmp_path: Path, docs: dict[str, str], question: str) -> Path:
    corpus = tmp_path / "corpus"
    write_docs(corpus, docs)
    cfg = build_config(question, corpus=str(corpus), runs_dir=str(tmp_path / "runs"), yes=True)
    result = start_run(cfg)
    assert result.status == "completed", result.reason
    return result.run_dir


@pytest.mark.parametrize("case", [RELATED_ONLY, PEOPLE, CONNECTIVE, BRIDGE], ids=["related", "people", "and", "bridge"])
def test_the_first_draft_passes_the_reviewers_deterministic_checks(tmp_path, case):
    run_dir = _run(tmp_path, *case)
    drafts = sorted((run_dir / "drafts").glob("draft-*.md"))
    reviews = sorted((run_dir / "reviews").glob("review-*.json"))
    # Never sent back over its own draft: a second round only researches again a question the answer check
    # found open (which no Writer can fix), and every draft passes the checks a Writer answers for.
    for review_path in reviews[:-1]:
        first = json.loads(review_path.read_text())
        assert {d["code"] for d in first["defects"] if d["severity"] == "error"} == {"question_not_answered"}
        assert {d["route"] for d in first["defects"] if d["severity"] == "error"} == {"researcher"}
    for draft in drafts:
        rel = draft.relative_to(run_dir).as_posix()
        assert [d for d in draft_defects(RunReader(run_dir), rel) if d["severity"] == "error"] == []
    review = json.loads(reviews[-1].read_text())
    assert review["verdict"] == "pass"


@pytest.mark.parametrize("case", [RELATED_ONLY, PEOPLE, CONNECTIVE, BRIDGE], ids=["related", "people", "and", "bridge"])
def test_summary_and_table_sentences_stand_alone(tmp_path, case):
    run_dir = _run(tmp_path, *case)
    draft = sorted((run_dir / "drafts").glob("draft-*.md"))[-1].read_text()
    claims = {c["claim_id"]: c for c in json.loads((run_dir / "claims.json").read_text())["claims"]}
    quoted = {k for s in parse_draft(draft) if s.section != "Where the sources disagree" for k in s.claim_ids}
    assert quoted
    for key in quoted:  # what each cited claim quotes opens with a sentence that stands alone
        assert stands_alone(claims[key]["statement"]), claims[key]["statement"]


def test_a_connective_sentence_is_quoted_with_its_antecedent(tmp_path):
    run_dir = _run(tmp_path, *CONNECTIVE)
    quotes = [json.loads(p.read_text())["quote"] for p in (run_dir / "source-cards").glob("*.json")]
    with_connective = [q for q in quotes if "For instance, a gadget timer" in q]
    assert with_connective and all(q.startswith("The gadget module runs callbacks") for q in with_connective)
    assert all(stands_alone(q) for q in quotes)


def test_what_the_checks_reject_is_dropped_from_its_place_and_the_draft_rendered_again(tmp_path):
    run_dir = _run(tmp_path, *RELATED_ONLY)
    plan = json.loads((run_dir / "plan.json").read_text())
    claims = json.loads((run_dir / "claims.json").read_text())["claims"]
    cards = {p.stem: json.loads(p.read_text()) for p in (run_dir / "source-cards").glob("*.json")}
    calls: list[str] = []

    def check(text: str) -> list[dict]:
        """The Reviewer's verdict on the row, as `check_draft` words it: its evidence does not state the criterion."""
        calls.append(text)
        lines = text.split("\n")
        row = next((n for n, line in enumerate(lines, 1) if line.startswith("| error handling")), None)
        if row is None:
            return []
        cited = [k for c in parse_citations(lines[row - 1]) for k in c.keys]
        return [
            {
                "code": "citation_not_supporting",
                "severity": "error",
                "location": {"line": row},
                "refs": {"claims": cited},
            }
        ]

    first = render_draft(plan, claims, cards, {})
    assert "| error handling |" in first
    text = checked_draft(plan, claims, cards, {}, check)
    assert len(calls) >= 2 and "| error handling |" not in text  # the row's claims dropped there: no row left
    assert "## Summary" in text and "raises an exception" in text.split("## Summary", 1)[1].split("##", 1)[0]
    assert check(text) == []


def test_a_title_the_checks_read_as_an_instruction_is_rewritten(tmp_path):
    run_dir = _run(tmp_path, *BRIDGE)
    plan = json.loads((run_dir / "plan.json").read_text())
    claims = json.loads((run_dir / "claims.json").read_text())["claims"]
    cards = {p.stem: json.loads(p.read_text()) for p in (run_dir / "source-cards").glob("*.json")}

    def check(text: str) -> list[dict]:
        """The injection screen flags the question itself, on the title line."""
        if text.startswith(f"# {plan['question']}"):
            return [{"code": "injection_echo", "severity": "error", "location": {"line": 1}, "refs": {}}]
        return []

    text = checked_draft(plan, claims, cards, {}, check)
    assert check(text) == [] and text.startswith("# Research note")
    assert "Shirley Temple" in text.split("## Summary", 1)[1]


def test_a_claim_whose_evidence_the_checks_reject_on_no_draft_line_is_left_out_everywhere(tmp_path):
    """The Reviewer screens each cited claim's cards, which the report's Evidence section prints: such a defect
    (an `injection_echo` of a card's quote) names the claim and no line of the draft. The claim is left out of every
    place, and nothing else is: the run ends `completed`, not `needs_human` over the Writer's own draft."""
    run_dir = _run(tmp_path, *CONNECTIVE)
    plan = json.loads((run_dir / "plan.json").read_text())
    claims = json.loads((run_dir / "claims.json").read_text())["claims"]
    cards = {p.stem: json.loads(p.read_text()) for p in (run_dir / "source-cards").glob("*.json")}
    first = render_draft(plan, claims, cards, {})
    cited = [k for line in first.splitlines() for c in parse_citations(line) for k in c.keys]
    assert cited
    bad = cited[0]

    def check(text: str) -> list[dict]:
        """The card of `bad` quotes instruction-like text: a defect on line 0, as `check_draft` reports it."""
        if any(bad in c.keys for line in text.splitlines() for c in parse_citations(line)):
            return [{"code": "injection_echo", "severity": "error", "location": {"line": 0}, "refs": {"claims": [bad]}}]
        return []

    text = checked_draft(plan, claims, cards, {}, check)
    assert check(text) == []
    assert set(cited) - {bad} <= {k for line in text.splitlines() for c in parse_citations(line) for k in c.keys}


def _claim(cid: str, statement: str) -> dict:
    return {"claim_id": cid, "statement": statement, "status": "verified", "question_id": "Q1"}


def test_a_table_column_never_quotes_one_claim_in_two_rows():
    both = _claim("C1", "A failing task cancels the other tasks and raises an exception group.")
    rows = ["error handling", "cancellation"]
    # the one claim on both criteria goes to the first row; the other row points to it instead of repeating it
    assert column([both], rows, set(), lambda row: set()) == {"error handling": both, "cancellation": "error handling"}
    # a claim on one criterion only takes that row, so the claim on both fills the other
    only = _claim("C2", "Cancelling the group cancels every task in it.")
    assert column([both, only], rows, set(), lambda row: set()) == {"error handling": both, "cancellation": only}
    # a claim the Summary already cites gives way to one it does not, when the row has one
    fresh = _claim("C3", "An error in one task is raised to the caller.")
    assert column([both, fresh], rows, {"C1"}, lambda row: set())["error handling"] == fresh
    # what the checks rejected in a row is not quoted there: nothing else is on it
    assert column([both], rows, set(), lambda row: {"C1"} if row == "cancellation" else set()) == {
        "error handling": both,
        "cancellation": None,
    }


def test_a_pointing_back_step_does_not_stand_alone():
    assert not stands_alone("The exceptions are then combined and raised as an `ExceptionGroup`.")
    assert not stands_alone("Python then calls the method.")
    assert stands_alone("If the call fails, then the error is raised.")
    assert stands_alone("The list is sorted and then returned to the caller.")
