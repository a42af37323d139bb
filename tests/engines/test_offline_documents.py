"""Which documents the offline Researcher answers from: a deprecated module gives way to its replacement, and a
half name (a module the question writes as a word that may be English) does not outrank a better sentence."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from test_offline_engine import cards, cited_titles, run, title_of

from fakes.workspaces import use_profile, write_docs
from harness.engines.offline import answer, passages, researcher
from harness.engines.offline.profile import ENCYCLOPEDIA, REFERENCE
from harness.engines.offline.ranking import Ask
from harness.sources.pythondocs import DEPRECATED

QUESTION = "How do I copy a whole directory tree?"


def tree_docs(warns: bool) -> dict[str, str]:
    """An old module whose sentences say one more of the question's words ("whole"), and its replacement. Plain
    text, stored as written: the two are so close that the meaning model's closeness (scaled between the retrieved
    documents) flips with the "# " of their first lines, which a Markdown file's snapshot would not keep."""
    warning = f"{DEPRECATED}The olddirs module is deprecated, use filetools instead.\n\n" if warns else ""
    return {
        "olddirs.txt": "# olddirs\n\nUtility functions for manipulating directories and whole directory trees.\n\n"
        + warning
        + "def copy_tree(src, dst)\nCopy a whole directory tree 'src' to a new location 'dst'.\n",
        "filetools.txt": "# filetools\n\nUtility functions for copying and archiving files and directory trees.\n\n"
        "def copytree(src, dst)\nCopy a directory tree 'src' to a new location 'dst'.\n",
    }


def answer_of(run_dir: Path) -> set[str]:
    """The answer's chain: its cards have confidence "high"."""
    return {title_of(run_dir, c) for c in cards(run_dir) if c["confidence"] == "high"}


@pytest.mark.parametrize("warns", [True, False])
def test_a_deprecated_module_gives_way_to_its_replacement(tmp_path: Path, monkeypatch, warns):
    """The folder stands for the Python documentation (`researcher.BUILTIN`), where a deprecated module's document
    says so (`pythondocs.DEPRECATED`); without that line the old module, sharing more words, is the answer."""
    corpus = write_docs(tmp_path / "corpus", tree_docs(warns))
    use_profile(monkeypatch, REFERENCE)
    # the two documents are near-identical by design, so which one a meaning model finds closer is a coin toss (the
    # int8 weights toss it the other way from the float32 and wordllama ones): the rule under test is the deprecation
    monkeypatch.setenv("RESEARCH_MEANING", "wordllama")
    run_dir = run(corpus, tmp_path / "runs", QUESTION)
    answer = answer_of(run_dir)
    assert answer == ({"filetools"} if warns else {"olddirs"})
    assert answer <= cited_titles(run_dir)


def test_the_deprecation_line_counts_only_on_the_python_documentation(tmp_path: Path):
    corpus = write_docs(tmp_path / "corpus", tree_docs(True))
    assert answer_of(run(corpus, tmp_path / "runs", QUESTION)) == {"olddirs"}


def candidate(source_id: str, relevance: float, titled: float) -> answer._Candidate:
    return answer._Candidate(
        relevance=relevance,
        rank=0,
        source_id=source_id,
        start=0,
        end=10,
        kind="primary",
        title=source_id,
        flagged=False,
        hop=1,
        text="x",
        titled=titled,
    )


def test_only_a_full_name_outranks_a_better_sentence_of_another_document():
    best, half, full = candidate("a", 2.0, 0.0), candidate("random", 1.8, 0.5), candidate("with", 1.0, 1.0)
    assert answer._named_best([best, half]) == [best]  # "random" may be an English word
    assert answer._named_best([best, half, full]) == [full]  # the `with` statement's own page
    assert answer._named_best([half, best]) == [half]  # a half name that is also the best sentence
    assert answer._named_best([]) == []


ASK = Ask.of("What does the widget return?")


def test_more_of_the_answer_comes_from_the_document_the_question_names_by_a_definition():
    """`_near_best` adds the close sentences of one document to the answer: the best candidate's, or, when the
    chain holds a document the question names by a definition (it defines a code name the question writes) or
    opens by naming ("With poplib, ..."), that document's, so the answer is not split across two documents."""
    a1, a2 = candidate("a", 2.0, 0.0), candidate("a", 1.7, 0.0)
    b1, b2 = candidate("b", 1.9, 1.0), candidate("b", 1.6, 1.0)
    ranked, chain = [a1, b1, a2, b2], [b1]

    def near(profiled, agreed=""):
        sel = answer.Selection(ranked, ASK, REFERENCE, frozenset(profiled), agreed)
        return answer._near_best(sel, chain)[len(chain) :]

    assert near({"a", "b"}) == [a1, a2]
    assert near({"a", "b"}, agreed="b") == [b2]
    assert near({"a", "b"}, agreed="c") == [a1, a2]  # not in the chain
    assert near({"b"}, agreed="b") == []  # the best is not the profile's
    assert answer._near_best(answer.Selection(ranked, ASK, ENCYCLOPEDIA, frozenset("ab")), chain) == chain


def test_the_document_every_search_ranks_first_leads_short_of_a_full_name():
    """In the Python documentation, when every search of a branch ranks one document first (`agreed`), its best
    sentence is the answer's, over a better-scoring sentence of another document; a full name still leads, and a
    half name (a module written as a word) keeps the agreed document from leading unless it is that document."""
    best, agreed = candidate("a", 2.0, 0.0), candidate("b", 1.8, 0.0)
    assert answer._named_best([best, agreed]) == [best]
    assert answer._named_best([best, agreed], "b") == [agreed]
    full = candidate("with", 1.0, 1.0)
    assert answer._named_best([best, agreed, full], "b") == [full]
    half = candidate("heapq", 1.5, 0.5)
    assert answer._named_best([best, agreed, half], "b") == [best]
    assert answer._named_best([best, replace(agreed, titled=0.5)], "b") == [replace(agreed, titled=0.5)]
    assert answer._named_best([], "b") == []


@pytest.mark.parametrize(
    ("title", "named"),
    [
        ("Python reference: Integer literals", True),  # every title word, in lower case, in the question
        ("Python reference: Literals", False),  # one word: too broad to name a topic
        ("Python reference: Floating point literals", False),  # "floating" and "point" are not asked about
        ("Python standard library: asyncio.coroutines", False),  # a code name is named as code, not as a phrase
    ],
)
def test_a_question_names_a_topic_whose_phrase_title_it_says(title, named):
    from harness.engines.offline.ranking import Ask, phrase_title
    from harness.evidence.lexical import content_words

    question = "How do I write a hexadecimal integer literal with asyncio coroutines?"
    assert phrase_title(title, content_words(question)) is named
    assert (Ask.of(question).titled(title) == 1.0) is named


def test_a_title_the_question_writes_as_a_name_is_not_a_phrase_title():
    from harness.engines.offline.ranking import Ask

    # "Women" is capitalized in the question: a name (title_match's part), not a phrase it says
    assert Ask.of("Was it first published as a magazine for Women?").titled("First for Women") < 1.0
    assert Ask.of("Which magazine was first published for women?").titled("First for Women") == 1.0


def test_a_sources_profile_is_its_corpuss_and_a_web_pages_is_the_encyclopedias():
    """Every documentation rule (meaning, deprecation, more of the best document, card replacement) asks the same
    question of a source, hop 1 or hop 2: the profile of the corpus it comes from, or none of them for a web page."""
    from harness.engines.offline.profile import ENCYCLOPEDIA, REFERENCE

    branch = researcher._Branch.__new__(researcher._Branch)
    branch.profile = REFERENCE
    branch.cache = {"a": ("text", {"corpus": "anything"}), "b": ("text", {"url": "https://example.org/"})}
    assert branch.profile_of("a") is REFERENCE
    assert branch.profile_of("b") is ENCYCLOPEDIA


def test_two_documents_of_the_python_documentation_never_make_a_chain():
    """Elsewhere a sentence naming another document's title links the two (a bridge); in the Python documentation,
    which names its modules everywhere, the answer is the best sentence's one document (`answer._chain`)."""
    from harness.engines.offline.ranking import Ask

    ask = Ask.of("What does the frobnicate call return for a widget?")
    a = replace(candidate("a", 2.0, 0.0), title="gadgets", text="The frobnicate call on a widget is made by gizmos.")
    b = replace(candidate("b", 1.5, 0.0), title="gizmos", text="It returns the widget's count and frobnicate state.")
    assert {c.source_id for c in answer._chain(answer.Selection([a, b], ask, ENCYCLOPEDIA, frozenset("ab")), [])} == {
        "a",
        "b",
    }
    assert answer._chain(answer.Selection([a, b], ask, REFERENCE, frozenset("ab")), []) == [a]


def test_a_sentence_a_section_and_its_chapter_both_hold_is_quoted_from_one_copy():
    """`help()`'s topics overlap: `topics/try` is a section of `topics/compound`. A sentence both hold is quoted
    from the section, unless the chapter's own sentences (the section does not hold them) rank above every sentence
    of the section: then from the chapter (`answer._one_copy`). Each copy keeps its score; two documents that
    only share a sentence (a subclass's copied docstring) keep both copies."""
    sentence = "When a return statement is executed in the try suite, the finally clause is also executed."
    section = f"The try statement\n\n{sentence}\n\nThe try statement specifies exception handlers for statements."
    texts = {
        "try": section,
        "compound": f"Compound statements\n\nThey span lines.\n\n{section}\n\nThe with statement wraps a block.",
        "copy": f"A subclass\n\n{sentence}\n\nIt adds nothing else to the protocol it copies its docstring from.",
    }
    chapter_copy = replace(candidate("compound", 2.0, 0.0), text=sentence)
    section_copy = replace(candidate("try", 1.5, 1.0), text=sentence)
    own = replace(candidate("compound", 1.2, 0.0), text="The with statement wraps a block.")
    kept = answer._one_copy([chapter_copy, section_copy, own], texts)
    assert [(c.source_id, c.relevance) for c in kept] == [("try", 1.5), ("compound", 1.2)]
    # the chapter's own sentence ranks above all of the section's: the question asks about more of the chapter
    own = replace(own, relevance=1.8)
    kept = answer._one_copy([chapter_copy, own, section_copy], texts)
    assert [(c.source_id, c.relevance) for c in kept] == [("compound", 2.0), ("compound", 1.8)]
    shared = replace(candidate("copy", 1.8, 0.0), text=sentence)
    assert len(answer._one_copy([section_copy, shared], texts)) == 2
    assert passages._section_of(texts["try"], texts["compound"])
    assert not passages._section_of(texts["compound"], texts["try"])
    assert not passages._section_of(texts["copy"], texts["compound"])


def test_a_documents_meaning_is_judged_on_its_opening_and_the_names_it_documents(monkeypatch):
    """A module that opens with one generic line ("Package exception classes.") says what it offers in the names of
    the classes it documents (`passages._about`); private names are left out, and a document without signature
    lines (a reference topic) is its title and opening alone."""
    from harness.engines.offline.semantic import Meaning

    closeness = Meaning("minilm-int8").closeness

    monkeypatch.setattr(passages, "ABOUT_CHARS", 30)  # the opening alone: the docstrings below are cut off
    question = "Which defect is recorded when a multipart message has no boundary parameter?"
    errors = (
        "Package exception classes.\n\nclass NoBoundaryInMultipartDefect(MessageDefect)\nThe message had no "
        "boundary.\n\ndef _helper(x)\nInternal.\n"
    )
    other = "Message objects of the mail package.\n\nclass Message\nA message.\n"
    about = passages._about("errors", errors)
    assert about.endswith("\nNoBoundaryInMultipartDefect") and "_helper" not in about.split("\n")[-1]
    assert passages._about("topic", "The try statement specifies handlers.") == "topic\nThe try statement specifies ha"
    openings = {"errors": f"errors\n{errors[:30]}", "other": f"other\n{other[:30]}"}
    assert closeness(question, openings) == {"errors": 0.0, "other": 1.0}
    abouts = {"errors": about, "other": passages._about("other", other)}
    assert closeness(question, abouts) == {"errors": 1.0, "other": 0.0}


BRIDGE_DOCS = {
    "kiss.md": "# Kiss and Tell (1945 film)\n\nKiss and Tell is a 1945 American comedy film directed by Richard Wallace.\n\n"
    "The film stars Shirley Temple as Corliss Archer, a teenage girl in a small town.\n",
    "temple.md": "# Shirley Temple\n\nShirley Temple Black was an American child star, singer and dancer.\n\n"
    "As an adult she held the government position of United States ambassador to Ghana.\n",
}
BRIDGE_QUESTION = "What government position did the actress who starred as Corliss Archer in Kiss and Tell hold?"


@pytest.mark.parametrize("documentation", [False, True])
def test_documents_of_the_python_documentation_make_no_chain_of_documents(tmp_path: Path, monkeypatch, documentation):
    """A question with a capitalized name ("Python", "Unicode", a class name) is about named things, and elsewhere
    its answer may be a chain of documents that lead to one another (`chain.chain_docs`: a film's page and its
    star's). In the Python documentation, which names its modules and topics everywhere, no two documents make that
    chain either: the answer is one document's (`researcher._doc_chain` leaves them out of its pool)."""
    corpus = write_docs(tmp_path / "corpus", BRIDGE_DOCS)
    use_profile(monkeypatch, REFERENCE if documentation else ENCYCLOPEDIA)
    answer = answer_of(run(corpus, tmp_path / "runs", BRIDGE_QUESTION))
    assert len(answer) == (1 if documentation else 2)


@pytest.mark.parametrize(
    ("question", "within"),
    [
        ("With poplib, why do other mail clients see the mailbox as locked?", "poplib"),
        ("In the mailbox module, what does remove() do?", "mailbox"),
        ("In email.headerregistry, what kind of datetime is it?", "email.headerregistry"),
        ("In CPython, what does id() correspond to?", ""),  # a name, not a module written as code
        ("Why do clients see the mailbox as locked with poplib?", ""),  # not what the question opens with
    ],
)
def test_a_module_the_question_opens_by_naming_is_named_in_full(question, within):
    """A module written as a word is half a name (it may be English: "see the mailbox as locked"); the module a
    question opens by naming, as what it asks within ("With poplib, ..."), is named in full, it and its
    submodules, so its document leads the answer (`_named_best`) over a document of another word it writes."""
    from harness.engines.offline.ranking import Ask

    ask = Ask.of(question)
    assert ask.within == within
    if within:
        assert ask.titled(f"Python standard library: {within}") == 1.0
        assert ask.titled(f"Python standard library: {within}.sub") == 1.0
        assert ask.titled(f"Python standard library: {within}lib") < 1.0
    if "mailbox" in question:
        assert ask.titled("Python standard library: mailbox") == (1.0 if within == "mailbox" else 0.5)


def test_a_second_document_that_answers_nearly_as_well_is_cited_too():
    """`_runner_up`: in the Python documentation the best sentence of the next document joins the answer when it
    scores at least RUNNER_UP of the answer's (two modules that answer about equally well); not when the answer
    leads clearly or scores 0 or less, not a document the answer already quotes, not a hop-2 sentence, and never
    outside it."""
    a1, a2 = candidate("a", 2.0, 0.0), candidate("a", 1.95, 0.0)
    share = REFERENCE.runner_up
    close, far = candidate("b", 2.0 * share, 0.0), candidate("b", 2.0 * share - 0.01, 0.0)

    def runner(ranked, chain, profiled=frozenset("ab"), profile=REFERENCE):
        return answer._runner_up(answer.Selection(ranked, ASK, profile, frozenset(profiled)), chain)[len(chain) :]

    assert runner([a1, a2, close], [a1]) == [close]
    assert runner([a1, a2, far], [a1]) == []
    assert runner([a1, close], [a1, close]) == []  # already in the answer
    assert runner([a1, replace(close, hop=2)], [a1]) == []
    assert runner([a1, close], [a1], {"b"}) == []  # the answer is not the profile's
    assert runner([a1, a2, close], [a1], profile=ENCYCLOPEDIA) == []  # an encyclopedia's second page is the chain's
    assert runner([a1, close], []) == []
    low = replace(a1, relevance=-1.0)  # a share of a negative score: any worse sentence would pass
    assert runner([low, replace(close, relevance=-1.05)], [low]) == []
