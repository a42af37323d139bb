"""The bibliography: a work's CSL-JSON item, rendered by citeproc-py in each bundled style, and written as BibTeX
that pybtex reads back; in the report, a Bibliography section only when the cited sources include papers."""

from __future__ import annotations

import pytest
from pybtex.database import parse_string

from harness.contract.works import CITATION_STYLES, csl_item
from harness.errors import UsageError
from harness.evidence.bibliography import STYLES, bibtex, csl_json, escape_markdown, render_bibliography

JOURNAL = {
    "doi": "10.5555/rsm.2024.7",
    "title": "Leader Election in Replicated State Machines",
    "authors": [{"family": "Lovelace", "given": "Ada"}, {"family": "Turing", "given": "Alan"}],
    "year": 2024,
    "venue": "Journal of Replicated Systems",
    "url": "https://doi.org/10.5555/rsm.2024.7",
}
PREPRINT = {
    "arxiv_id": "2401.00002",
    "title": "Randomized Timeouts Against Split Votes",
    "authors": [{"family": "Hopper", "given": "Grace"}, {"literal": "The Consensus Group"}],
    "year": 2021,
    "url": "https://arxiv.org/abs/2401.00002",
}
ITEMS = [csl_item(PREPRINT, "src-bbbbbbbbbbbb"), csl_item(JOURNAL, "src-aaaaaaaaaaaa")]


def test_every_style_is_bundled():
    assert sorted(p.stem for p in STYLES.glob("*.csl")) == sorted(CITATION_STYLES)


def test_apa_orders_by_author_and_writes_the_venue_and_doi():
    assert render_bibliography(ITEMS, "apa") == [
        "Hopper, G., & The Consensus Group. (2021). Randomized Timeouts Against Split Votes (ArXiv:2401.00002). "
        "arXiv. https://arxiv.org/abs/2401.00002",
        "Lovelace, A., & Turing, A. (2024). Leader Election in Replicated State Machines. Journal of Replicated "
        "Systems. https://doi.org/10.5555/rsm.2024.7",
    ]


def test_ieee_numbers_by_first_citation_and_chicago_puts_the_year_after_the_authors():
    ieee = render_bibliography(ITEMS, "ieee")
    assert [e[:4] for e in ieee] == ["[1] ", "[2] "] and "G. Hopper" in ieee[0] and "doi: 10.5555" in ieee[1]
    chicago = render_bibliography(ITEMS, "chicago-author-date")
    assert chicago[1].startswith("Lovelace, A., and A. Turing. 2024. “Leader Election in Replicated State Machines”")


def test_an_unknown_style_is_named_in_one_line():
    with pytest.raises(UsageError, match=r"^--citation-style mla: choose one of apa, ieee, chicago-author-date$"):
        render_bibliography(ITEMS, "mla")


def test_bibtex_parses_back_with_its_authors_and_fields():
    bib = parse_string(bibtex(ITEMS), "bibtex")
    assert list(bib.entries) == ["src_bbbbbbbbbbbb", "src_aaaaaaaaaaaa"]
    preprint, journal = bib.entries.values()
    assert (preprint.type, journal.type) == ("misc", "article")
    assert journal.fields["journal"] == "Journal of Replicated Systems" and journal.fields["doi"] == JOURNAL["doi"]
    assert [str(p) for p in preprint.persons["author"]] == ["Hopper, Grace", "{The Consensus Group}"]


def test_csl_json_is_the_items_and_markdown_specials_in_a_reference_stay_literal():
    assert csl_json(ITEMS).startswith('[\n  {\n    "id": "src-bbbbbbbbbbbb"')
    assert escape_markdown("On *stars* and [links]_x") == r"On \*stars\* and \[links\]\_x"
