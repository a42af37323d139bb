"""Quote matching and locating: the verbatim rule, and the harness finding what a model quoted."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.contract.quotes import closest_passage, find_quote, locate_quote, quote_matches

SNAPSHOT = (
    "# asyncio.TaskGroup\n\n"
    "An asynchronous context manager holding a group of tasks. Tasks can be added with `create_task()`.\n\n"
    "The first time any task fails with an exception other than `asyncio.CancelledError`, the remaining\n"
    "tasks are **cancelled**. The exceptions are combined in an \u201cexception group\u201d \u2014 the structured way.\n"
    "The e\ufb03cient path uses the \ufb01rst result.\n"
)


def test_exact_quote_is_found_with_its_true_span():
    q = "An asynchronous context manager holding a group of tasks."
    where = locate_quote(SNAPSHOT, q, hint=3)
    assert where.how == "exact" and SNAPSHOT[where.start : where.end] == q


def test_line_breaks_and_extra_spaces_are_whitespace():
    q = "the remaining tasks   are"
    where = locate_quote(SNAPSHOT, q)
    assert where.how == "whitespace" and where.text == "the remaining\ntasks are"


@pytest.mark.parametrize(
    "quote, expected",
    [
        ("other than asyncio.CancelledError, the remaining", "other than `asyncio.CancelledError`, the remaining"),
        ("tasks are cancelled.", "tasks are **cancelled**."),
        (
            'combined in an "exception group" - the structured way',
            "combined in an \u201cexception group\u201d \u2014 the structured way",
        ),
        ("The efficient path uses the first result.", "The e\ufb03cient path uses the \ufb01rst result."),
        ("added with create_task().", "added with `create_task()`."),
    ],
)
def test_typography_is_set_aside_and_the_snapshot_text_is_kept(quote, expected):
    where = locate_quote(SNAPSHOT, quote)
    assert where is not None and where.how == "typography"
    assert where.text == expected and SNAPSHOT[where.start : where.end] == expected  # the snapshot's own characters
    assert quote_matches(SNAPSHOT, where.text, where.start, where.end)


@pytest.mark.parametrize(
    "paraphrase",
    [
        "The remaining tasks get cancelled.",  # a different word
        "the remaining tasks are cancelled soon",  # a word added
        "any task fails with an exception other than CancelledError",  # a word dropped ('asyncio.')
        "An asynchronous context manager holding a group of task.",  # a letter changed
    ],
)
def test_a_paraphrase_is_never_located(paraphrase):
    assert locate_quote(SNAPSHOT, paraphrase) is None


def test_the_occurrence_nearest_the_hint_wins():
    text = "alpha beta gamma. " * 3
    assert locate_quote(text, "beta gamma", hint=30).start == text.index("beta gamma", 20)
    assert locate_quote(text, "beta gamma", hint=0).start == text.index("beta gamma")


def test_closest_passage_points_at_the_nearest_text():
    start, end, score = closest_passage(SNAPSHOT, "the remaining tasks were all cancelled at once")
    assert "remaining" in SNAPSHOT[start:end] and score > 50


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.sampled_from('abc de`*_\u201c\u201d"-\u2014\n'), min_size=1, max_size=80), st.data())
def test_whatever_is_located_matches_the_snapshot_verbatim(text, data):
    """Locating never returns a span whose text differs from what the card will store."""
    i = data.draw(st.integers(0, len(text) - 1))
    j = data.draw(st.integers(i + 1, len(text)))
    quote = text[i:j]
    where = locate_quote(text, quote)
    if where is not None:
        assert text[where.start : where.end] == where.text
        assert quote_matches(text, where.text, where.start, where.end)
    if quote.strip():
        assert where is not None  # a substring of the snapshot is always found
        assert find_quote(text, quote) is not None or where.how != "whitespace"
