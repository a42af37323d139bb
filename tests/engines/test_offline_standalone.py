"""The offline Researcher quotes only evidence that stands alone, over a tutorial chapter written in Markdown: no
question, heading, narration or dangling reference as a card's whole quote, and no Markdown in the report."""

from __future__ import annotations

from pathlib import Path

from test_offline_engine import cards, run

from fakes.workspaces import write_docs
from harness.evidence.standalone import not_standalone
from harness.workspace.validate import validate_workspace

# Every narrating or asking sentence here shares the question's words, so only the rule keeps it out of the cards.
CHAPTER = """# Handling Errors with the Question Mark Operator

Let's look at how the question mark operator propagates errors in Rust functions.

But wait, doesn't the question mark operator hide errors in Rust functions?

The question mark operator returns the error early from the function, so the caller handles the error value,
[as discussed in Chapter 9][ch9]<!-- ignore -->.

This means that errors propagate to the calling function without a match expression.

Yup, our question mark operator propagates errors just as the match expression did.

In the next section, we'll see how the question mark operator propagates errors from main.

[ch9]: ch09-03-to-panic-or-not-to-panic.html
"""
OTHER = "# Gardening\n\nTomatoes need full sun and regular watering in the summer months.\n"
QUESTION = "How does the question mark operator propagate errors in Rust functions?"


def test_the_offline_researcher_quotes_only_statements_that_stand_alone(tmp_path: Path):
    corpus = write_docs(tmp_path / "book", {"ch09-02.md": CHAPTER, "garden.md": OTHER})
    run_dir = run(corpus, tmp_path / "runs", QUESTION)
    written = cards(run_dir)
    assert written, "the chapter's statements are evidence"
    for card in written:
        text = (run_dir / "sources" / f"{card['source_id']}.txt").read_text(encoding="utf-8")
        span = card["span"]
        assert not_standalone(text, span["start"], span["end"]) is None, card["quote"]
    quotes = " ".join(card["quote"] for card in written)
    assert "returns the error early from the function" in quotes
    for refused in ("Let's look", "But wait", "Yup,", "In the next section"):
        assert refused not in quotes
    report = (run_dir / "final-report.md").read_text(encoding="utf-8")
    assert "<!--" not in report and "][" not in report and "ch09-03" not in report
    assert not [p for p in validate_workspace(run_dir) if p.severity == "error"]
