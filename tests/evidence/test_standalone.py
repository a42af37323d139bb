"""Evidence stands alone: each rule refuses what it names and accepts the statement beside it."""

from __future__ import annotations

import pytest

from harness.contract.cards import HEADING, NARRATION, NOT_STANDALONE, QUESTION, UNRESOLVED_REFERENCE
from harness.evidence.standalone import not_standalone, refusal


def judged(quote: str, text: str | None = None, title: str = ""):
    """The rule on `quote` as it stands in `text` (the quote alone when no text is given)."""
    text = quote if text is None else text
    start = text.index(quote)
    return not_standalone(text, start, start + len(quote), title)


@pytest.mark.parametrize(
    "quote",
    [
        "But wait, doesn't the program already have a variable named `guess`?",
        "Is the TaskGroup cancelled?",
        "What happens next? And who handles the error?",
    ],
)
def test_a_question_is_never_the_whole_quote(quote):
    assert judged(quote) == QUESTION


def test_a_question_with_the_statement_that_answers_it_stands():
    assert judged("What happens when a task fails? The TaskGroup cancels the remaining tasks.") is None


DOCUMENT = "Intro.\n\nRecoverable Errors with Result\n\nMost errors aren't serious enough to stop the program.\n"


def test_a_heading_or_title_is_never_the_whole_quote():
    assert judged("Recoverable Errors with Result", DOCUMENT) == HEADING
    assert judged("Company overview", "Acme makes Company overview sheets.", title="Company Overview") == HEADING
    # the title is a heading however it is spelled: brackets and code characters do not make it a statement
    song = "Dancing in the Dark (Rihanna song)\n\nThe song was recorded by Rihanna for the 2015 film Home.\n"
    assert judged("Dancing in the Dark (Rihanna song)", song, title="Dancing in the Dark (Rihanna song)") == HEADING
    assert (
        judged("Using Box<T> to Point to Data", "Using Box<T> to Point to Data", title="Using Box<T> to Point to Data")
        == HEADING
    )


@pytest.mark.parametrize(
    ("quote", "text"),
    [
        ("Most errors aren't serious enough to stop the program.", DOCUMENT),
        # a fragment of a sentence is not a heading: it does not stand on a line of its own
        ("the TaskGroup cancels the remaining tasks", "When one fails, the TaskGroup cancels the remaining tasks."),
        ("- Rovers for warehouses", "- Rovers for warehouses\n- Arms\n"),  # a list item
        ("def walk(top, topdown=True)", "x\n\ndef walk(top, topdown=True)\n\ny"),  # code, not a heading
    ],
)
def test_a_statement_is_no_heading(quote, text):
    assert judged(quote, text) is None


@pytest.mark.parametrize(
    "quote",
    [
        "Yup, our error message is being printed to standard output.",
        "In the next section, we'll look at closures.",
        "Let's look at how the error is propagated.",
        "Now we'll write a test for the function.",
        "As you can see, the program compiles.",
        "This chapter explains the meaning of the elements of expressions.",
        "Let's run it. Yup, it works?",
    ],
)
def test_narration_about_the_document_is_never_the_whole_quote(quote):
    assert judged(quote) == NARRATION


def test_narration_that_leads_to_a_statement_stands_with_it():
    assert judged("Let's see what happens. The program panics when the file is missing.") is None
    assert judged("Now the loop stops at the first error.") is None  # "now" in time, not the document's next step
    assert judged("Okayama is a city in Japan.") is None


@pytest.mark.parametrize(
    "quote",
    [
        "This means the function never returns.",
        "It also cancels the other tasks.",
        "These are stored in a list.",
        "They were founded in 1998.",
        "Such a call blocks until the future is done.",
        "It is used to open files.",
    ],
)
def test_an_opening_reference_the_quote_does_not_resolve_is_refused(quote):
    assert judged(quote) == UNRESOLVED_REFERENCE


@pytest.mark.parametrize(
    "quote",
    [
        "The program stops at the first error. This means the function never returns.",  # its antecedent is quoted
        "This module provides access to the mathematical functions.",  # the document's own subject, named by the card
        "It is an error to await a task twice.",  # an empty "it"
        "It is recommended that callers pass a timeout.",
        "Thistle grows in Scotland.",
        "The TaskGroup cancels the remaining tasks when one fails.",
    ],
)
def test_a_reference_resolved_in_the_quote_or_no_reference_stands(quote):
    assert judged(quote) is None


def test_the_refusal_says_why_and_how_to_succeed():
    message = refusal(UNRESOLVED_REFERENCE, "This means the function never returns.")
    assert message.startswith("quote refused (unresolved_reference):")
    assert '"This means…"' in message and "with its antecedent" in message
    for reason in NOT_STANDALONE:
        assert "quote the statement" in refusal(reason, "x")


def test_a_docstrings_summary_line_under_its_signature_is_no_heading():
    text = (
        "def recursive_repr(fillvalue='...')\nDecorator to make a repr function return fillvalue for a recursive call\n"
    )
    assert judged("Decorator to make a repr function return fillvalue for a recursive call", text) is None
    assert judged("The if statement", "Intro.\n\nThe if statement\n****************\n\nIt is used.\n") == HEADING
