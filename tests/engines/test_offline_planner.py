"""The offline Planner reads a question as people write it in any field: the names a comparison compares however
they are spelled and phrased, and a brief in several parts as one research question per part. No network."""

from __future__ import annotations

import pytest

from fakes.workspaces import write_docs
from harness.engines.offline.planner import candidates_in, make_plan, parts_of, subject_of
from harness.orchestrator.config import build_config
from harness.orchestrator.lifecycle import start_run
from harness.workspace.validate import validate_workspace


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What is the difference between Box<T> and Rc<T>?", ["Box<T>", "Rc<T>"]),  # generic types
        ("How does &str differ from String?", ["&str", "String"]),  # a reference; "X differ from Y"
        ("What is the difference between == and is?", ["==", "is"]),  # operators
        ("When should I use Vec<T> vs VecDeque<T> vs LinkedList<T>?", ["Vec<T>", "VecDeque<T>", "LinkedList<T>"]),
        ("How is a view compared with a materialized table in DuckDB?", ["view", "materialized table"]),
        ("How do hash joins differ from merge joins in performance?", ["hash joins", "merge joins"]),
        ("Should I use uv pip or uv add to install packages?", ["uv pip", "uv add"]),  # "A or B", multi-word names
        ("When should I call panic! or return a Result?", ["call panic!", "return a Result"]),
    ],
)
def test_a_comparison_names_its_candidates_however_they_are_written(question, expected):
    assert candidates_in(question) == expected
    plan = make_plan(question)
    research = [q for q in plan["questions"] if q["kind"] == "research"]
    assert [q["search_terms"][0] for q in research] == expected  # one branch per candidate
    assert plan["scope"]["in_scope"] == expected  # the scope is every candidate, not one


def test_a_collaboration_between_two_names_is_not_a_comparison():
    # "between" compares only after "difference", "choose", ...: a bridge question keeps one research question
    question = 'The song "Night" was a collaboration between Onyx and the heavy metal band formed in which city?'
    assert [q["kind"] for q in make_plan(question)["questions"]] == ["research", "deliverable"]


def test_a_bare_name_is_researched_within_the_subject_the_question_names():
    plan = make_plan("In the frobnik module, what's the difference between remove() and discard()?")
    research = [q for q in plan["questions"] if q["kind"] == "research"]
    assert [q["search_terms"][0] for q in research] == ["remove()", "discard()"]
    assert all("frobnik" in q["text"] for q in research)  # remove() of frobnik, not of any list
    dotted = make_plan("How do asyncio.TaskGroup and asyncio.gather differ in error handling?")
    assert all("(" not in q["text"] for q in dotted["questions"] if q["kind"] == "research")  # names its document


BRIEF = (
    "Prepare a due-diligence brief on Tallow Robotics covering: (1) funding history, (2) product pricing, "
    "(3) key risks."
)


def test_a_brief_in_parts_is_one_research_question_per_part_about_its_subject():
    lead, parts = parts_of(BRIEF)
    assert parts == ["funding history", "product pricing", "key risks"]
    assert subject_of(lead) == "Tallow Robotics"
    plan = make_plan(BRIEF)
    research = [q for q in plan["questions"] if q["kind"] == "research"]
    assert len(research) == 3
    assert all("Tallow Robotics" in q["text"] and q["search_terms"][1].startswith("Tallow Robotics") for q in research)
    deliverable = plan["questions"][-1]
    assert deliverable["kind"] == "deliverable" and "(3) key risks" in deliverable["text"]
    bullets = make_plan("Tell me about Tallow Robotics:\n- pricing\n- the fleet size\n")
    assert [q["search_terms"][0] for q in bullets["questions"][:2]] == ["pricing", "fleet size"]
    listed = make_plan("Summarize Tallow Robotics covering revenue, headcount, and open incidents.")
    assert len([q for q in listed["questions"] if q["kind"] == "research"]) == 3


@pytest.mark.parametrize(
    "question",
    [
        "What is the connection pool and how do I size it?",  # an "and" inside one question
        "After a = 1; b = 1, is a is b? And what about c = []; d = []?",  # the second leans on the first
        "Which version, 3.11 or 3.12, added TaskGroup?",
    ],
)
def test_one_question_is_not_split_into_parts(question):
    assert parts_of(question) == ("", [])


SHARE = {
    "overview.md": "# Tallow Robotics company overview\n\nTallow Robotics builds warehouse robots. "
    "Tallow Robotics is headquartered in Leeds.\n",
    "finance.md": "# Funding\n\nIn March 2024 the company raised a Series B round of 40 million euros, "
    "led by Northgate Capital.\n",
    "prices.md": "# Price list\n\nThe Picker P2 robot is sold at 58,000 euros per unit, "
    "and the fleet software subscription costs 900 euros per robot per year.\n",
    "risks.md": "# Risk register\n\nThe main risk is reliance on a single supplier for lidar sensors. "
    "A second risk is a pending patent dispute with Orrin Systems.\n",
    "remote.md": "# Remote work policy\n\nEmployees may work remotely two days a week.\n",
}


def test_a_brief_in_parts_reports_each_parts_facts_and_not_the_sentences_that_only_name_its_subject(tmp_path):
    corpus = write_docs(tmp_path / "share", SHARE)
    cfg = build_config(BRIEF, corpus=str(corpus), runs_dir=str(tmp_path / "runs"), yes=True)
    result = start_run(cfg)
    assert result.status == "completed", result.reason
    assert validate_workspace(result.run_dir) == []
    body = (result.run_dir / "final-report.md").read_text().split("## Limitations")[0]
    for fact in ("40 million euros", "58,000 euros", "single supplier"):
        assert fact in body
    # documents that only name the company state none of the parts
    assert "headquartered" not in body and "remotely" not in body
