"""Which sentences of the answering document the offline engine quotes: the docstring a question names, read whole;
a docstring's first sentence as its opening; more of the best document of the Python documentation."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from test_offline_engine import run

from fakes.workspaces import write_docs
from harness.engines.offline import researcher
from harness.engines.offline.ranking import defines, own_sections, signed_sections
from harness.sources.corpus import load_folder

EVENT_DOC = (
    "class Lock\nA primitive lock.\n\n"
    "class Event\nClass implementing event objects.\n\n"
    "def Event.is_set(self)\nReturn true if and only if the internal flag is true.\n\n"
    "def Event.wait(self, timeout=None)\nBlock until the internal flag is true.\n\n"
    "class Barrier\nImplements a barrier.\n"
)
TOPIC_DOC = (
    "String methods\n**************\n\n"
    "str.rstrip([chars])\n\n   Return a copy of the string with trailing characters removed.\n\n"
    "str.strip([chars])\n\n   Return a copy of the string with the leading and trailing\n   characters removed.\n\n"
    "str.swapcase()\n\n   Return a copy of the string with case swapped.\n"
)


def _texts(text: str, spans) -> list[str]:
    return [text[a:b] for a, b in spans]


def test_a_classs_own_documentation_holds_its_methods_and_ends_at_the_next_class():
    (own,) = _texts(EVENT_DOC, own_sections(EVENT_DOC, ["threading.Event"]))
    assert own.startswith("class Event") and "def Event.wait" in own and "internal flag" in own
    assert "Barrier" not in own and "Lock" not in own


def test_a_reference_topics_entry_heading_documents_its_code_name_up_to_the_next_entry():
    (own,) = _texts(TOPIC_DOC, own_sections(TOPIC_DOC, ["str.strip"]))
    assert own.startswith("str.strip([chars])") and "leading and trailing" in own and "swapcase" not in own
    assert defines(TOPIC_DOC, "str.strip") and not defines(TOPIC_DOC, "str.lower")
    # a mention in running text is not a heading
    assert not defines("Call str.strip(chars) to trim a string.\n", "str.strip")


def test_each_docstring_is_a_section_named_by_its_signatures_last_name():
    got = [(name, EVENT_DOC[a:b].split("\n", 1)[0]) for name, a, b in signed_sections(EVENT_DOC)]
    assert got == [
        ("Lock", "class Lock"),
        ("Event", "class Event"),
        ("is_set", "def Event.is_set(self)"),
        ("wait", "def Event.wait(self, timeout=None)"),
        ("Barrier", "class Barrier"),
    ]
    _, a, b = signed_sections(EVENT_DOC)[2]
    assert EVENT_DOC[a:b].rstrip().endswith("the internal flag is true.")


def _filler(n: int) -> str:
    """n docstrings that say "path" more often than the answer's does, and do not answer."""
    return "".join(
        f"def PurePath.part{i}(self)\nThe path of part {i}, a path relative to the path of the anchor, for path {i}.\n\n"
        for i in range(n)
    )


def _summary(run_dir: Path) -> str:
    return (run_dir / "final-report.md").read_text().split("## Summary", 1)[1].split("\n## ", 1)[0]


def test_the_docstring_whose_name_holds_the_questions_word_is_read_though_no_search_returned_it(tmp_path):
    """The answer's docstring (`joinpath`) says "path" once; the searches return the passages that say it more
    often, not its own: it is read from the document, and its name holds the question's "join"."""
    doc = (
        "# paths\n\nObject-oriented filesystem paths and their path components.\n\n"
        + _filler(120)
        + "def PurePath.joinpath(self, *args)\nCombine this path with one or several arguments, and return a new "
        "path.\n"
    )
    corpus = write_docs(tmp_path / "corpus", {"paths.md": doc})
    summary = _summary(run(corpus, tmp_path / "runs", "How do I join path components?"))
    assert "`PurePath.joinpath(self, *args)`: Combine this path with one or several arguments" in summary


def test_a_code_like_docstring_summary_line_is_quoted_with_its_long_signature(tmp_path):
    """`Optional[X] is equivalent to Union[X, None].` is half code, and its signature is longer than 100
    characters: by its place (the docstring's first line) it is still the sentence that says what the name is."""
    signature = (
        "def Optional(self, parameters, *, strict=False, default_value=None, module_name=None, extra_names=None)"
    )
    assert len(signature) > 100
    docs = {
        "typing.md": f"# typing\n\nSupport for type hints.\n\n{signature}\nOptional[X] is equivalent to Union[X, None].\n"
        "\ndef Final(self, parameters)\nSpecial typing construct to indicate final names to type checkers.\n",
        "other.md": "# other\n\nTomatoes need full sun and regular watering in the summer months.\n",
    }
    summary = _summary(run(write_docs(tmp_path / "corpus", docs), tmp_path / "runs", "What does typing.Optional mean?"))
    assert "is equivalent to Union[X, None]" in summary and "`Optional(self, parameters" in summary


SPREAD_DOC = (
    "# tempfiles\n\nCreate temporary files and directories.\n\n"
    "def NamedTemporaryFile(mode='w+b', delete=True)\nCreate and return a temporary file.\n\n"
    "The temporary file is deleted as soon as it is closed.\n\n"
    "A temporary file created on a network drive is deleted when it is closed by its last user.\n\n"
    "A temporary file created with delete=False is kept when it is closed.\n"
)
SPREAD_QUESTION = "How do I create a temporary file that is deleted when it is closed?"


@pytest.mark.parametrize("documentation", [True, False])
def test_more_of_the_best_document_is_quoted_in_the_python_documentation_only(tmp_path, monkeypatch, documentation):
    """In the Python documentation the best document's sentences that score close to its best join the answer (a
    docstring's later sentences say when the file goes away); elsewhere (HotpotQA's paragraphs) the Summary takes
    at most its document's next best claim besides the best."""
    corpus = write_docs(tmp_path / "corpus", {"tempfiles.md": SPREAD_DOC})
    if documentation:
        monkeypatch.setattr(researcher, "BUILTIN", (*researcher.BUILTIN, load_folder(corpus).name))
    summary = _summary(run(corpus, tmp_path / "runs", SPREAD_QUESTION))
    quoted = [line for line in summary.splitlines() if line.strip()]
    if documentation:
        assert len(quoted) >= 3 and "deleted as soon as it is closed" in summary
    else:
        assert len(quoted) <= 2


def test_two_docstrings_alike_in_words_are_two_claims_as_their_signatures_name_two_functions():
    from harness.engines.offline.analyst import _same_claim

    def card(quote: str) -> dict:
        return {"quote": quote}

    atof = card("def atof(string, func=float)\nParses a string as a float according to the locale settings.")
    delocalize = card(
        "def delocalize(string)\nParses a string as a normalized number according to the locale settings."
    )
    assert not _same_claim(atof, delocalize) and not _same_claim(delocalize, atof)
    # a docstring's later sentence says something its first does not: not the first's near-duplicate
    first = card("def quoteattr(data, entities={})\nEscape and quote an attribute value.")
    later = card("Escape &, <, and > in a string of data, then quote it for use as an attribute value.")
    assert not _same_claim(later, first)
    # without signatures, alike sentences stay one claim
    assert _same_claim(card("Parses a string as a float according to the locale settings."), atof) is False
    assert _same_claim(
        card("Parses a string as a float according to the locale settings."),
        card("Parses the string as a float according to locale settings."),
    )


def test_the_docstring_of_the_code_name_the_question_writes_joins_the_answer_whole():
    """Its later sentence ("Raise a RuntimeError if there is none.") may score far below other docstrings' first
    sentences, yet it is what the question asks about the function it names; the other close sentences follow."""

    def cand(start: int, relevance: float, own: bool = False):
        return researcher._Candidate(
            relevance=relevance, rank=0, source_id="events", start=start, end=start + 10, kind="primary",
            title="asyncio.events", flagged=False, hop=1, text=f"sentence {start}", own=own,
        )  # fmt: skip

    first = cand(100, 2.6, own=True)  # def get_running_loop() / Return the running event loop.
    others = [cand(10 * n, 2.4 - 0.01 * n) for n in range(1, 9)]  # other docstrings' first sentences, all close
    later = cand(130, 1.6, own=True)
    ranked = sorted([first, *others, later], key=lambda c: c.key)
    near = researcher._near_best(ranked, [first], {"events"})
    assert near[0] is later and len(near) == researcher.BEST_PER_SOURCE - 1
    # without a docstring the question names, only the close sentences
    plain = [replace(c, own=False) for c in ranked]
    assert all(c.relevance >= researcher.NEAR * 2.6 for c in researcher._near_best(plain, plain[:1], {"events"}))


def test_a_card_quotes_the_next_sentence_when_it_points_back_at_its_own():
    from harness.sources.sentences import split_sentences

    def trail(text: str, sentence: str) -> str:
        spans = split_sentences(text)
        s = text.index(sentence)
        return text[s : researcher._trail(text, spans, s, s + len(sentence), [])]

    unary = (
        'The unary "~" (invert) operator yields the bitwise inversion of its\ninteger argument.  The bitwise '
        'inversion of "x" is defined as\n"-(x+1)".  It only applies to integral numbers.\n\nNext paragraph here.'
    )
    first = 'The unary "~" (invert) operator yields the bitwise inversion of its\ninteger argument.'
    assert trail(unary, first).endswith('"-(x+1)".')  # it opens with the words this one ends on
    underscore = (
        "The interactive interpreter makes the result of the last evaluation available in the variable _.  "
        '(It is stored in the\n   "builtins" module, alongside built-in functions like "print".)\n\nElsewhere.'
    )
    assert trail(underscore, underscore.split("  ")[0]).endswith('"print".)')  # a parenthesized aside pointing back
    # a sentence that stands alone on another subject, or the next paragraph, is not quoted with it
    other = "The unary minus operator yields the negation of its argument.  Integers have unlimited precision here."
    assert trail(other, other.split("  ")[0]) == other.split("  ")[0]
    assert trail(unary, "It only applies to integral numbers.") == "It only applies to integral numbers."
