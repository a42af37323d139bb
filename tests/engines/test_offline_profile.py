"""The offline Researcher's RankingProfile, chosen by what a corpus's text is, its Score of named terms, and the answer's
selectors, each a pure function of the candidates."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from fakes.workspaces import write_docs
from harness.engines.offline import answer
from harness.engines.offline.profile import (
    ENCYCLOPEDIA,
    GUIDE,
    REFERENCE,
    Score,
    TextProperties,
    choose_profile,
    corpus_profile,
)
from harness.engines.offline.ranking import Ask
from harness.sources.corpus import load_folder

ASK = Ask.of("What does the widget return?")

SIGNED = {
    f"mod{i}.md": f"# mod{i}\n\nHelpers for widgets, part {i}.\n\ndef make_widget{i}(size)\nReturn a new widget.\n\n"
    f"class Gadget{i}\nA gadget holds widgets.\n"
    for i in range(4)
}
ENTITIES = {
    f"person{i}.md": f"# Person {i}\n\nPerson {i} was a painter born in a small town by the sea, who moved to the city."
    for i in range(4)
}
CHAPTERS = {
    f"guide/chapter{i}.md": f"# Chapter {i}\n\nThis chapter explains how to set up step {i}.\n\n## Install\n\n"
    f"Run the installer first.\n\n```python\ndef example():\n    pass\n```\n\nThen configure it.\n"
    for i in range(4)
}


@pytest.mark.parametrize(
    ("docs", "chosen"),
    [(SIGNED, REFERENCE), (ENTITIES, ENCYCLOPEDIA), (CHAPTERS, GUIDE)],
    ids=["signature-lines", "one-paragraph-entities", "markdown-chapters"],
)
def test_the_profile_follows_what_the_text_is_not_the_corpuss_name(tmp_path: Path, docs, chosen):
    corpus = load_folder(write_docs(tmp_path / "python-docs", docs))  # the name says nothing
    assert corpus_profile(corpus) is chosen


def test_the_chooser_reads_the_measured_properties():
    props = TextProperties.of(["Title\n\nOne paragraph.", "Title\n\nOne.\n\nTwo.\n\nThree."])
    assert (props.documents, props.one_paragraph, props.signed) == (2, 0.5, 0.0)
    assert choose_profile(props) is ENCYCLOPEDIA  # half the documents one titled paragraph
    # a signature line inside fenced code is an example, not a docstring's signature
    assert TextProperties.of(["```\ndef f(x)\n```\n\nProse.\n\nMore."]).signed == 0.0
    assert TextProperties.of(["t\n\ndef f(x)\nDoc.\n\nMore."]).signed == 1.0
    assert choose_profile(replace(props, one_paragraph=0.1, signed=0.5)) is REFERENCE
    assert choose_profile(replace(props, one_paragraph=0.1, signed=0.0)) is GUIDE
    assert corpus_profile(None) is ENCYCLOPEDIA  # no corpus: web pages


def test_only_the_profiles_that_read_meaning_need_a_model():
    assert REFERENCE.needs_meaning and GUIDE.needs_meaning and not ENCYCLOPEDIA.needs_meaning


def test_a_score_is_its_named_terms_added_group_by_group():
    score = Score.of((("ask", 1.0),), (("screen", 0.25), ("retrieved", 0.5)), (("dangling", -0.3),))
    assert score.as_dict() == {"ask": 1.0, "screen": 0.25, "retrieved": 0.5, "dangling": -0.3}
    assert score.total == 1.0 + (0.25 + 0.5) + -0.3


def cand(source_id: str, relevance: float, **kw) -> answer._Candidate:
    base = dict(rank=0, start=0, end=10, kind="primary", title=source_id, flagged=False, hop=1, text="x")
    return answer._Candidate(relevance=relevance, source_id=source_id, **(base | kw))


def test_the_rest_selector_quotes_a_paragraphs_rest_where_the_profile_says_so():
    a = cand("a", 2.0, text="The widget returns its size.", rest=" The size is in pixels.")
    dangling = cand("a", 1.0, start=40, end=60, text="It also returns a colour.", rest=" Always red.")
    for profile, profiled, trails in [
        (REFERENCE, {"a"}, [" The size is in pixels.", ""]),  # a sentence that does not stand alone: no rest
        (REFERENCE, set(), ["", ""]),  # a web page's sentence, not the corpus's
        (ENCYCLOPEDIA, {"a"}, ["", ""]),
    ]:
        sel = answer.Selection([a, dangling], ASK, profile, frozenset(profiled))
        assert [c.trail for c in answer._with_rest(sel, [a, dangling])] == trails


def test_select_runs_the_selectors_in_order():
    assert [name for name, _ in answer.SELECTORS] == ["chain", "near_best", "runner_up", "rest"]
    a1, a2, b1 = cand("a", 2.0), cand("a", 1.9, start=20, end=30), cand("b", 1.95)
    assert answer.select(answer.Selection([a1, a2, b1], ASK, REFERENCE, frozenset("ab"))) == [a1, a2, b1]
    assert answer.select(answer.Selection([a1, a2, b1], ASK, ENCYCLOPEDIA, frozenset("ab"))) == [a1]


def test_choose_writes_the_answer_whole_then_the_best_others_within_the_profiles_limits():
    ranked = [cand("a", 3.0 - i / 10, start=20 * i, end=20 * i + 10) for i in range(5)] + [cand("b", 1.0)]
    chosen, chain, per_source = answer._choose(answer.Selection(ranked, ASK, replace(ENCYCLOPEDIA)), ranked[:1])
    assert chosen == ranked[:3] + ranked[5:] and chain == ranked[:1]  # three a source at most
    assert per_source == {"a": 3, "b": 1}
    tight = replace(ENCYCLOPEDIA, max_cards=2)
    assert answer._choose(answer.Selection(ranked, ASK, tight), ranked[:1])[0] == ranked[:2]


def test_a_continuing_sentence_takes_its_antecedents_place_where_the_profile_says_so():
    first = cand("a", 2.0, start=0, end=20, text="The widget has a size.")
    # the next sentence, quoted with the first as its antecedent: its card holds the first's quote
    then = cand("a", 1.5, start=21, end=40, text="It is then doubled.", lead="The widget has a size. ")
    for profile, written in [(REFERENCE, [then]), (ENCYCLOPEDIA, [first, then])]:
        chosen = answer._choose(answer.Selection([first, then], ASK, profile, frozenset("a")), [first])[0]
        assert chosen == written
