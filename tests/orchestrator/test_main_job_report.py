"""The main job's report (`make run`: the offline engine over python-docs, the README's question) reads as an
answer: its comparison table quotes a different claim in every cell, its cards quote each passage once, its
Summary's sentences stand alone, and it cites the documents that answer. Offline, no network."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from harness.contract.citations import parse_citations
from harness.engines.offline.ranking import stands_alone
from harness.evidence.draft import parse_draft
from harness.orchestrator.config import build_config
from harness.orchestrator.lifecycle import start_run

MAIN_QUESTION = "How do asyncio.TaskGroup and asyncio.gather differ in error handling and cancellation?"
# The README's other question over python-docs (the web app's example).
SHORT_QUESTION = "How do asyncio.TaskGroup and asyncio.gather differ?"


def _run(tmp_path_factory, question: str) -> Path:
    result = start_run(
        build_config(question, corpus="python-docs", runs_dir=str(tmp_path_factory.mktemp("runs")), yes=True)
    )
    assert result.status == "completed", result.reason
    return result.run_dir


@pytest.fixture(scope="module")
def main_job(tmp_path_factory) -> Path:
    return _run(tmp_path_factory, MAIN_QUESTION)


@pytest.fixture(scope="module")
def short_job(tmp_path_factory) -> Path:
    return _run(tmp_path_factory, SHORT_QUESTION)


def _load(run_dir: Path, rel: str):
    return json.loads((run_dir / rel).read_text(encoding="utf-8"))


def _draft(run_dir: Path) -> str:
    drafts = sorted((run_dir / "drafts").glob("draft-*.md"), key=lambda p: int(p.stem.split("-")[1]))
    return drafts[-1].read_text(encoding="utf-8")


def _section(draft: str, heading: str) -> str:
    return draft.split(f"\n## {heading}", 1)[1].split("\n## ", 1)[0]


def _table(draft: str) -> dict[str, list[str]]:
    """criterion -> its cells, of the comparison table."""
    rows = [line for line in draft.splitlines() if line.startswith("| ") and not line.startswith("| Criterion")]
    return {cells[0]: cells[1:] for cells in ([c.strip() for c in row.strip("|").split(" | ")] for row in rows)}


def _cited(text: str) -> set[str]:
    return {k for c in parse_citations(text) for k in c.keys}


def _cited_sources(run_dir: Path) -> set[str]:
    claims = {c["claim_id"]: c for c in _load(run_dir, "claims.json")["claims"]}
    body = _draft(run_dir).split("## Limitations", 1)[0]
    cards = [_load(run_dir, f"source-cards/{cid}.json") for k in _cited(body) for cid in claims[k]["supporting_cards"]]
    return {_load(run_dir, f"sources/{card['source_id']}.json")["path"] for card in cards}


@pytest.mark.parametrize("job", ["main_job", "short_job"])
def test_every_table_cell_quotes_its_own_claim_or_says_the_evidence_does_not_cover_it(job, request):
    draft = _draft(request.getfixturevalue(job))
    table = _table(draft)
    assert table
    holder: dict[str, str] = {}  # claim id -> the row citing it
    for row, cells in table.items():
        assert any(_cited(cell) for cell in cells), row  # a row that quotes nothing is not written
        per_cell = [_cited(cell) for cell in cells]
        for cell, keys in zip(cells, per_cell):
            # a cell cites exactly one claim, or is an italic note that the evidence has nothing (more) on it
            assert len(keys) == 1 or (not keys and re.fullmatch(r"\*[^*]+\*", cell)), cell
        for keys in per_cell:
            for k in keys:
                assert holder.setdefault(k, row) == row, f"{k} is quoted in the rows {holder[k]!r} and {row!r}"
        assert len({k for keys in per_cell for k in keys}) == sum(map(len, per_cell))  # no two cells alike


def test_the_main_jobs_table_answers_each_criterion_for_each_candidate(main_job):
    plan = _load(main_job, "plan.json")
    table = _table(_draft(main_job))
    assert list(table) == plan["criteria"] == ["error handling", "cancellation"]
    claims = {c["claim_id"]: c["statement"] for c in _load(main_job, "claims.json")["claims"]}
    taskgroup, gather = (" ".join(cells) for cells in zip(*table.values()))
    quoted = {name: " ".join(claims[k] for k in _cited(text)) for name, text in (("tg", taskgroup), ("g", gather))}
    assert "ExceptionGroup" in quoted["tg"] and "cancel all remaining tasks" in quoted["tg"]
    assert "return_exceptions" in quoted["g"]
    gather_cancel = _cited(table["cancellation"][1])
    assert gather_cancel and "cancel" in claims[next(iter(gather_cancel))].lower()


@pytest.mark.parametrize("job", ["main_job", "short_job"])
def test_one_card_per_passage(job, request):
    run_dir = request.getfixturevalue(job)
    cards = [_load(run_dir, f"source-cards/{p.name}") for p in (run_dir / "source-cards").glob("*.json")]
    for a in cards:
        for b in cards:
            if a is b or (a["source_id"], a["question_id"]) != (b["source_id"], b["question_id"]):
                continue
            inside = a["span"]["start"] >= b["span"]["start"] and a["span"]["end"] <= b["span"]["end"]
            assert not inside, f"{a['card_id']} quotes part of {b['card_id']}"
    for claim in _load(run_dir, "claims.json")["claims"]:
        quotes = [
            " ".join(_load(run_dir, f"source-cards/{c}.json")["quote"].split()) for c in claim["supporting_cards"]
        ]
        assert not any(x in y for x in quotes for y in quotes if x is not y), claim["claim_id"]


@pytest.mark.parametrize("job", ["main_job", "short_job"])
def test_each_summary_sentence_stands_alone_or_follows_its_antecedent_in_one_quote(job, request):
    run_dir = request.getfixturevalue(job)
    claims = {c["claim_id"]: " ".join(c["statement"].split()) for c in _load(run_dir, "claims.json")["claims"]}
    summary = [s for s in parse_draft(_draft(run_dir)) if s.section == "Summary" and s.factual]
    assert summary
    for before, s in zip([None, *summary], summary):
        text = re.sub(r"^For [^:]+: ", "", s.plain)  # the candidate a comparison's sentence is about
        if stands_alone(text):
            continue
        # quoted right after its antecedent, from one claim's statement that holds both in that order
        assert before is not None and s.claim_ids == before.claim_ids, s.plain
        prev = re.sub(r"^For [^:]+: ", "", before.plain).rstrip(".")
        statement = claims[s.claim_ids[0]]
        assert prev in statement and statement.index(prev) < statement.index(text.rstrip(".")), s.plain


def test_the_main_job_cites_the_documents_that_answer_and_states_the_answer(main_job):
    assert {"stdlib/asyncio.taskgroups", "stdlib/asyncio.tasks"} <= _cited_sources(main_job)
    body = (main_job / "final-report.md").read_text(encoding="utf-8").split("## Limitations", 1)[0]
    for phrase in ("ExceptionGroup", "return_exceptions"):
        assert phrase in body, phrase
    assert "ExceptionGroup" in _section(_draft(main_job), "Summary")
    assert len(list((main_job / "drafts").glob("draft-*.md"))) == 1  # the first draft passed its review
    assert _load(main_job, "reviews/review-1.json")["verdict"] == "pass"
