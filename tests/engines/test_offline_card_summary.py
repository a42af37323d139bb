"""The offline Researcher's card summaries are sentences about what the document says, not keyword lists."""

from __future__ import annotations

from harness.engines.offline.researcher import _summary


def test_a_summary_is_the_quotes_first_sentence_said_of_its_document():
    quote = "An asynchronous context manager holding a group of tasks. Tasks can be added with create_task()."
    summary = _summary("asyncio.TaskGroup", quote, "Q1", "")
    assert summary == '"asyncio.TaskGroup" says, for Q1: An asynchronous context manager holding a group of tasks.'
    assert "speaks to" not in summary


def test_a_long_sentence_is_cut_at_a_word_and_every_summary_ends_as_a_sentence():
    summary = _summary("doc", "alpha beta, " * 40 + "end", "Q2", "")
    said = summary.split(": ", 1)[1]
    assert said.endswith(" …") and len(said) <= 203 and "alpha beta" in said
    assert _summary("doc", "no final stop", "Q3", "").endswith("no final stop.")
    assert _summary("doc", "   ", "Q3", "").endswith("see the quote.")
