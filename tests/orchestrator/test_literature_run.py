"""A literature question answered end to end by the offline engine, through the CLI, from stand-ins of arXiv and
OpenAlex on 127.0.0.1 (fakes/scholarly.py), without --web (the literature providers are keyless sources of their
own, which the plan allows by name): the run validates, its report ends with an APA bibliography of the papers it
cites, and its BibTeX export parses (pybtex) and its CSL-JSON export holds the same references."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from pybtex.database import parse_string

from fakes.scholarly import ELECTION, RETRACTED, literature
from harness.contract.works import ABSTRACT_ONLY_LIMITATION

QUESTION = "How do replicated state machines elect a leader?"


def research(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "harness", *args], cwd=cwd, capture_output=True, text=True, timeout=600
    )


@pytest.fixture(scope="module")
def literature_run(tmp_path_factory) -> tuple[Path, Path, dict]:
    """One offline run of QUESTION searching arXiv and OpenAlex (research.yaml: both, each at its stand-in, a
    polite-pool email for OpenAlex), with a one-file corpus that says nothing about it."""
    home = tmp_path_factory.mktemp("literature")
    (home / "corpus").mkdir()
    (home / "corpus" / "bread.md").write_text("# Kitchen notes\n\nBread rises when yeast ferments the sugars.\n")
    with literature() as lit:
        (home / "research.yaml").write_text(
            "fetch: {cache_ttl: 0}\n"
            "search:\n  provider: arxiv\n  also: [openalex]\n  providers:\n"
            f'    arxiv: {{url: "{lit.api("arxiv")}"}}\n'
            f'    openalex: {{url: "{lit.api("openalex")}", email: test@example.org}}\n'
        )
        r = research(
            ["run", QUESTION, "--web-allow-private", "--yes", "--runs-dir", "runs", "--corpus", "corpus"],
            home,
        )
        requests = dict(lit.requests)
    assert r.returncode == 0, r.stderr
    run = Path(home, re.search(r"final report: (\S+)", r.stdout).group(1)).parent
    return home, run, requests


def records(run: Path) -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text()) for p in (run / "sources").glob("*.json")}


def test_the_run_researches_both_providers_without_the_web_as_its_plan_allows_and_validates(literature_run):
    home, run, requests = literature_run
    assert set(requests) == {"arxiv", "openalex"}
    manifest = json.loads((run / "run.json").read_text())
    assert manifest["config"]["web"] is False
    plan = json.loads((run / "plan.json").read_text())
    for q in plan["questions"]:
        if q["kind"] == "research":
            assert q["allowed_sources"] == ["corpus", "arxiv", "openalex"]
    check = research(["validate", str(run)], home)
    assert check.returncode == 0, check.stdout
    works = {r["work"]["title"]: r for r in records(run).values() if "work" in r}
    # ELECTION, found by both providers, is one source: its open-access PDF; the others are their abstracts
    assert sum(r["work"]["title"] == ELECTION.title for r in records(run).values() if "work" in r) == 1
    election = works[ELECTION.title]
    assert election["work"]["abstract_only"] is False and election["web"]["content_type"] == "application/pdf"
    assert {r["kind"] for r in works.values()} == {"primary"}
    abstract_only = {sid for sid, r in records(run).items() if r.get("work", {}).get("abstract_only")}
    cards = [json.loads(p.read_text()) for p in (run / "source-cards").glob("*.json")]
    for card in cards:
        assert (ABSTRACT_ONLY_LIMITATION in card["limitations"]) == (card["source_id"] in abstract_only)


def test_the_report_ends_with_an_apa_bibliography_of_the_cited_papers(literature_run):
    _home, run, _ = literature_run
    report = (run / "final-report.md").read_text()
    head, bibliography = report.split("\n## Bibliography\n")
    assert "## Sources" in head and "##" not in bibliography  # the last section
    entries = [line[2:] for line in bibliography.splitlines() if line.startswith("- ")]
    assert entries == [
        "Lovelace, A., & Turing, A. (2024). Leader Election in Replicated State Machines"
        " (ArXiv:2401.00001). arXiv. https://doi.org/10.5555/rsm.2024.7"
    ]
    assert "in the APA style" in bibliography
    assert RETRACTED.title not in report
    assert json.loads((run / "run.json").read_text())["config"]["citation_style"] == "apa"


def test_the_bibtex_export_parses_and_the_csl_json_export_holds_the_same_references(literature_run):
    home, run, _ = literature_run
    r = research(["export", str(run), "--format", "bibtex", "--out", "refs.bib"], home)
    assert r.returncode == 0, r.stderr
    bib = parse_string((home / "refs.bib").read_text(), "bibtex")
    (key,) = bib.entries
    entry = bib.entries[key]
    assert entry.fields["title"] == ELECTION.title and entry.fields["year"] == "2024"
    assert entry.fields["doi"] == ELECTION.doi
    assert [str(p) for p in entry.persons["author"]] == ["Lovelace, Ada", "Turing, Alan"]
    r = research(["export", str(run), "--format", "csl-json"], home)
    assert r.returncode == 0, r.stderr
    (item,) = json.loads(next((run / "exports").glob("*.json")).read_text())  # the default: RUN_DIR/exports/
    assert item["id"].replace("-", "_") == key and item["DOI"] == ELECTION.doi
    assert research(["validate", str(run), "--export", "refs.bib"], home).returncode == 0
    (home / "refs.bib").write_text((home / "refs.bib").read_text().replace("2024", "2023"))
    edited = research(["validate", str(run), "--export", "refs.bib"], home)
    assert edited.returncode != 0 and "refs.bib: line" in edited.stdout + edited.stderr


def test_an_export_renders_the_bibliography_in_the_style_asked_for_and_still_validates(literature_run):
    home, run, _ = literature_run
    r = research(["export", str(run), "--format", "md", "--out", "ieee.md", "--citation-style", "ieee"], home)
    assert r.returncode == 0, r.stderr
    ieee = (home / "ieee.md").read_text()
    assert "in the IEEE style" in ieee and "in the APA style" not in ieee
    assert "A. Lovelace and A. Turing" in ieee  # IEEE names authors initials first
    assert research(["export", str(run), "--format", "md", "--out", "apa.md"], home).returncode == 0
    assert "in the APA style" in (home / "apa.md").read_text()  # the run's own style when none is asked for
    for name in ("ieee.md", "apa.md"):  # an export in any bundled style is an export of this run
        check = research(["validate", str(run), "--export", name], home)
        assert check.returncode == 0, check.stdout + check.stderr
    (home / "ieee.md").write_text(ieee.replace("A. Lovelace", "B. Lovelace"))
    edited = research(["validate", str(run), "--export", "ieee.md"], home)
    assert edited.returncode != 0 and "ieee.md: line" in edited.stdout + edited.stderr
    bad = research(["export", str(run), "--format", "md", "--citation-style", "mla"], home)
    assert bad.returncode == 2 and bad.stderr.strip().splitlines()[-1] == (
        "research: error: --citation-style mla: choose one of apa, ieee, chicago-author-date"
    )
