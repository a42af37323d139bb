"""A brief in parts over a document share as people keep them (bench/share/make_share.py): one question and one
report section per part, figures for several periods as a series (the current leads, the older superseded, never a
conflict), a sentence that only names the subject is no evidence, and a Word table read. No network."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

from harness.contract.claims import CONFLICTED, CURRENT, SUPERSEDED
from harness.engines.offline.analyst import OfflineAnalyst
from harness.engines.offline.brief_parts import part_heading
from harness.engines.offline.planner import brief_subject, make_plan, parts_plan
from harness.engines.offline.writer import render_draft
from harness.evidence.subject import subject_only
from harness.evidence.vintage import period_of, same_measure, supersedes
from harness.orchestrator.config import build_config
from harness.orchestrator.lifecycle import start_run
from harness.sources.extract import extract

SHARE = Path(__file__).resolve().parents[2] / "bench" / "share"


def _share_module():
    spec = importlib.util.spec_from_file_location("make_share", SHARE / "make_share.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("make_share", module)
    spec.loader.exec_module(module)
    return module


share = _share_module()


@pytest.fixture(scope="module")
def share_run(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("share")
    corpus = share.make_share(root / "share", pdf=False)  # Markdown and Word: no WeasyPrint needed
    cfg = build_config(share.BRIEF, corpus=str(corpus), runs_dir=str(root / "runs"), yes=True)
    result = start_run(cfg)
    assert result.status == "completed", result.reason
    return result.run_dir


def test_the_share_brief_is_one_question_per_part_about_its_subject():
    plan = make_plan(share.BRIEF)
    research = [q for q in plan["questions"] if q["kind"] == "research"]
    assert [part_heading(q) for q in research] == [
        "Funding history and financial trajectory",
        "Product line and roadmap with pricing",
        "Operations and key risks",
        "Competitive position",
    ]
    assert parts_plan(plan) and brief_subject(plan) == "Halvard Robotics"
    assert not parts_plan(make_plan("How do fastq and slowq differ in retries?"))


def test_the_report_on_the_share_has_a_section_per_part(share_run: Path):
    report = (share_run / "final-report.md").read_text()
    body = report.split("\n## Evidence", 1)[0]
    headings = re.findall(r"^## (.+)$", body, flags=re.M)
    for part in ("Funding history and financial trajectory", "Product line and roadmap with pricing"):
        assert part in headings
    assert "Operations and key risks" in headings and "Competitive position" in headings
    assert "remotely" not in body and "is a company that designs" not in body  # subject-only sentences


def test_no_claim_on_the_share_rests_on_a_sentence_that_only_names_the_company(share_run: Path):
    claims = json.loads((share_run / "claims.json").read_text())["claims"]
    statements = " ".join(c["statement"] for c in claims)
    assert "parental leave" not in statements and "work remotely" not in statements
    assert "is a company that designs" not in statements


def test_a_sentence_that_only_names_the_subject_does_not_support_a_criterion():
    subject, criteria = "Acme Robotics", ["funding history", "financial trajectory"]
    assert subject_only("Acme Robotics is a company that builds warehouse robots.", subject, criteria)
    assert subject_only("Acme Robotics employees may work remotely three days a week.", subject, criteria)
    assert not subject_only("Acme Robotics raised a $10 million Series A round from investors.", subject, criteria)
    assert not subject_only("Acme Robotics revenue grew to $9 million in 2024.", subject, criteria)
    # a sentence that does not name the subject is left to the other rules; no subject, nothing screened
    assert not subject_only("The firm builds warehouse shelving.", subject, criteria)
    assert not subject_only("Acme Robotics is a company.", "", criteria)


def test_the_period_comes_from_the_title_path_or_sentence_and_an_archive_is_older():
    old = period_of("archive/2023-annual-report.md", "Annual report", "Revenue for the year was $5.1 million.")
    new = period_of("finance/annual.pdf", "Annual report 2024", "Revenue was $9.2 million.")
    assert (old.archived, old.year, new.archived, new.year) == (True, 2023, False, 2024)
    assert supersedes(new, old) and not supersedes(old, new)
    undated = period_of("notes.md", "Notes", "Revenue was $9.2 million.")
    assert not supersedes(new, undated) and not supersedes(undated, new)
    assert period_of("ops/fleet-q4-2024.md", "Fleet report, fourth quarter 2024", "").label() == "Q4 2024"
    assert same_measure("The fleet has 180 robots at 9 sites.", "Halvard had 312 robots in service across 14 sites.")
    assert not same_measure("Gross margin improved to 38%.", "Halvard had 312 robots in service.")


def _card(card_id: str, source: str, quote: str) -> dict:
    return {"card_id": card_id, "source_id": source, "quote": quote, "confidence": "medium", "limitations": []}


def test_figures_for_two_periods_are_a_series_led_by_the_current_one_not_a_conflict():
    q = {"id": "Q1", "text": "What do the sources say about operations (Halvard Robotics)?", "criteria": []}
    cards = [
        _card("c-old", "src-a", "Halvard operates a fleet of 180 robots at 9 customer sites."),
        _card(
            "c-new", "src-b", "At the end of December 2024 Halvard had 312 robots in service across 14 customer sites."
        ),
    ]
    paths = {"src-a": ("archive/2023-annual-report.md", "Annual report 2023"), "src-b": ("ops/fleet.md", "Fleet")}
    periods = {c["card_id"]: period_of(*paths[c["source_id"]], c["quote"]) for c in cards}
    titles = {s: t for s, (_, t) in paths.items()}
    claims = OfflineAnalyst()._question_claims(q, cards, {"src-a": "primary", "src-b": "primary"}, titles, periods)
    assert len(claims) == 1 and claims[0]["status"] != CONFLICTED
    assert "312 robots" in claims[0]["statement"]
    assert claims[0]["series"] == [
        {"card_id": "c-new", "period": "2024", "vintage": CURRENT},
        {"card_id": "c-old", "period": "2023", "vintage": SUPERSEDED},
    ]
    # the Writer states the current figure and marks the older one superseded, on the same line
    plan = make_plan(share.BRIEF)
    claims[0].update(claim_id="C1", question_id=plan["questions"][2]["id"])
    draft = render_draft(plan, claims, {c["card_id"]: c for c in cards}, {})
    line = next(x for x in draft.splitlines() if "180 robots" in x)
    assert "312 robots" in line and "Superseded" in line and "in 2023" in line


def test_a_word_table_is_read_one_row_a_line(tmp_path: Path):
    corpus = share.make_share(tmp_path, pdf=False)
    path = corpus / "finance" / "funding-history.docx"
    title, text = extract(path, path.read_bytes())
    assert title == "Funding history"
    assert "Series B | March 2024 | $14.5 million | Northwind Ventures" in text.splitlines()
    with pytest.raises(Exception, match="Word document"):
        damaged = corpus / share.DAMAGED
        extract(damaged, damaged.read_bytes())


def test_the_evidence_section_shows_a_superseded_figure_with_its_period():
    from harness.contract.claims import shown_cards
    from harness.evidence.report import _evidence_entry

    span = {"start": 0, "end": 10}
    cards = {
        "c-new": {**_card("c-new", "src-b", "Halvard had 312 robots in service."), "span": span},
        "c-old": {**_card("c-old", "src-a", "Halvard operates a fleet of 180 robots."), "span": span},
    }
    claim = {
        "statement": "Halvard had 312 robots in service.",
        "status": "verified",
        "limitations": [],
        "supporting_cards": ["c-new"],
        "contradicting_cards": [],
        "series": [
            {"card_id": "c-new", "period": "2024", "vintage": CURRENT},
            {"card_id": "c-old", "period": "2023", "vintage": SUPERSEDED},
        ],
    }
    assert shown_cards(claim) == ["c-new", "c-old"]
    entry = "\n".join(_evidence_entry("C1", claim, cards, None))
    assert "c-new.json) supports:" in entry
    assert "c-old.json) gives the superseded figure (2023): “Halvard operates a fleet of 180 robots.”" in entry


def test_two_things_dated_by_their_titles_are_not_one_series():
    q = {"id": "Q1", "text": "How much did the films gross?", "criteria": []}
    cards = [
        _card("c-a", "src-a", "Kiss and Tell grossed 5 million dollars at the box office."),
        _card("c-b", "src-b", "Meet Corliss Archer grossed 9 million dollars at the box office."),
    ]
    titles = {"src-a": "Kiss and Tell (1945 film)", "src-b": "Meet Corliss Archer (1951 film)"}
    periods = {c["card_id"]: period_of("", titles[c["source_id"]], c["quote"]) for c in cards}
    claims = OfflineAnalyst()._question_claims(q, cards, {"src-a": "primary", "src-b": "primary"}, titles, periods)
    assert len(claims) == 2 and not any("series" in c for c in claims)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # a birth and a song's release: "28 August" and "26 August" are days of a month, not figures of one measure
        (
            "Florence Welch (born 28 August 1986) is an English musician.",
            "The song was released on Island Records on 26 August 2016.",
        ),
        # what follows an early year is not what a figure counts: "1923 Acme" and "1931 Acme" are not one measure
        ("In 1923 Acme had 40 workers.", "In 1931 Acme sold 900 cars."),
        # two people's lives: their years (1923, 1939) are dates, not figures, however old
        (
            "Priscilla Denise Levertov (24 October 1923 – 20 December 1997) was an American poet.",
            "Harvey Lawrence Pekar (October 8, 1939 – July 12, 2010) was an American comic book writer.",
        ),
    ],
)
def test_dates_are_not_figures_of_one_measure(a, b):
    assert not same_measure(a, b)
    q = {"id": "Q1", "text": "Who was born first?", "criteria": []}
    cards = [_card("c-a", "src-a", a), _card("c-b", "src-b", b)]
    periods = {c["card_id"]: period_of("", "", c["quote"]) for c in cards}
    titles = {"src-a": "Florence", "src-b": "Pekar"}
    claims = OfflineAnalyst()._question_claims(q, cards, {"src-a": "primary", "src-b": "primary"}, titles, periods)
    assert len(claims) == 2 and not any("series" in c for c in claims)  # neither is superseded by the other
