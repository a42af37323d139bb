"""Spotting instruction-like sentences in sources: they are flagged for the Reviewer, never obeyed or quoted.

Text from sources is data. A planted instruction hides in it as a sentence that is not about
the document but about whoever reads it and answers: an order about "your reply", a request to
change the answer's language or spelling, a link to promote, a task or question unrelated to
the document, or the classic "ignore previous instructions". `find_injections` cuts the text
with the one sentence splitter (`sources/sentences.py`) and flags each such sentence with its
offsets and a reason: the name of the rule that fired (`contract/injection.py`).

Documentation is full of legitimate imperatives and questions ("Return the ...", "Install ...",
"How would we remove that duplication?", "- Generate the nth Fibonacci number."): an imperative
alone is never flagged. What is flagged is an order whose object is the answer or its reader, a
change of the answer's form, promotion aimed at the reader, or a request unrelated to its
document. Each sentence is judged in its `Setting`: its neighbours, the rest of its document (a
request most of whose topic words the document uses elsewhere is about it; "the response" in a
document about responses is that response), and the list it is an item of (a list of tasks is
the document's own exercises or steps). How often ordinary documents are flagged and the share
of planted attacks caught are measured by bench/bench_injection.py (figures in bench/README.md).
"""

from harness.sources.injection.document import CODE, find_injections
from harness.sources.injection.sentence import DocumentWords, Setting, classify
from harness.sources.injection.spans import MIN_INSIDE_WORDS, flag_span, flagged_spans, repeats_flagged

__all__ = [
    "CODE",
    "MIN_INSIDE_WORDS",
    "DocumentWords",
    "Setting",
    "classify",
    "find_injections",
    "flag_span",
    "flagged_spans",
    "repeats_flagged",
]
