"""Which sentences of the answering document the offline engine quotes: the docstring a question names, read whole;
a docstring's first sentence as its opening; more of the best document of the Python documentation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_offline_engine import run

from fakes.workspaces import use_profile, write_docs
from harness.engines.offline import passages, researcher
from harness.engines.offline.profile import ENCYCLOPEDIA, REFERENCE
from harness.engines.offline.ranking import own_sections, signed_sections


def defines(text: str, name: str, title: str | None = None) -> bool:
    """Does the document define the code name: does `own_sections` find its own documentation there (a signature
    line, a reference entry, a method's entry indented under its class's; with the `title`, a line without the owner
    only in the owner's document)? The Researcher counts a document as defining the name on the same test."""
    return bool(own_sections(text, [name], title))


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


CLASS_TOPIC_DOC = (
    "Mapping Types\n*************\n\n"
    "class dict(**kwargs)\nclass dict(mapping, **kwargs)\n\n   Return a new dictionary.\n\n"
    "   get(key[, default])\n\n      Return the value for *key* if *key* is in the dictionary.\n\n"
    "   popitem()\n\n      Remove and return a pair from the dictionary.\n\n"
    "      Pairs are returned in LIFO order.\n\n"
    "   setdefault(key[, default])\n\n      Insert *key* with a value of *default*.\n\n"
    "Dictionary view objects\n=======================\n\n   get()\n\n      Not a method of dict.\n"
)


def test_a_method_entry_indented_under_its_classs_entry_documents_owner_dot_method():
    """A reference topic documents a class's methods as entries indented under `class dict(...)`: `dict.popitem`
    is defined there, from its entry line to the next entry indented as far; a method of another owner is not,
    nor a bare method name, nor an entry outside the class's."""
    assert defines(CLASS_TOPIC_DOC, "dict.popitem") and defines(CLASS_TOPIC_DOC, "dict.popitem()")
    (own,) = _texts(CLASS_TOPIC_DOC, own_sections(CLASS_TOPIC_DOC, ["dict.popitem"]))
    assert own.startswith("   popitem()") and "LIFO order" in own and "setdefault" not in own
    assert not defines(CLASS_TOPIC_DOC, "Queue.popitem") and not defines(CLASS_TOPIC_DOC, "popitem")
    assert not defines(CLASS_TOPIC_DOC, "dict.clear")
    (get,) = _texts(CLASS_TOPIC_DOC, own_sections(CLASS_TOPIC_DOC, ["dict.get"]))  # not the view section's get()
    assert "Return the value" in get and "Not a method" not in get


def test_a_signature_without_the_owner_defines_owner_dot_name_only_in_the_owners_document():
    """`def walk(top)` defines `os.walk` in the os module's document, not in `ast`'s, which has a `walk` of its own;
    `def get(self)` defines `Queue.get` where `class Queue` is documented; a module that says in its opening what
    name it goes by (posixpath: "refer to this module as os.path") defines `os.path.join`. Without a title (the
    document's identity unknown) the signature still counts, as before."""
    walk = "def walk(top)\nDirectory tree generator.\n"
    assert defines(walk, "os.walk", "Python standard library: os")
    assert not defines(walk, "os.walk", "Python standard library: ast") and defines(walk, "os.walk")
    assert own_sections(walk, ["os.walk"], "Python standard library: os") == [(0, len(walk))]
    assert own_sections(walk, ["os.walk"], "Python standard library: ast") == []
    assert defines("def walk(node)\nRecursively yield nodes.\n", "walk", "Python standard library: ast")
    queue = "class Queue\nCreate a queue object.\n\ndef get(self)\nRemove and return an item.\n"
    assert defines(queue, "Queue.get", "Python standard library: queue")
    assert not defines(
        "def get(url)\nReturn a browser controller.\n", "Queue.get", "Python standard library: webbrowser"
    )
    assert defines("def Queue.get(self)\nRemove an item.\n", "Queue.get", "Python standard library: other")
    posix = (
        "posixpath\n\nInstead of importing this module directly, refer to it as os.path.\n\ndef join(a, *p)\nJoin.\n"
    )
    assert defines(posix, "os.path.join", "Python standard library: posixpath")


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
    use_profile(monkeypatch, REFERENCE if documentation else ENCYCLOPEDIA)
    summary = _summary(run(corpus, tmp_path / "runs", SPREAD_QUESTION))
    quoted = [line for line in summary.splitlines() if line.strip()]
    if documentation:
        assert len(quoted) >= 3 and "deleted as soon as it is closed" in summary
    else:
        assert len(quoted) <= 2


def test_a_heading_over_its_underline_is_never_quoted(tmp_path):
    """A reference topic opens with its title over a line of `*` (reST): it names the section and states nothing,
    so it is no claim, however many words it has (it was quoted as one: "Unary arithmetic and bitwise operations
    ****"), and the topic's opening sentence is the first sentence after it."""
    heading = "Unary arithmetic and bitwise operations\n***************************************"
    assert not passages.is_prose(heading)
    assert not passages.is_prose("Statistics for relations between two inputs\n-------------------------------")
    assert passages.is_prose("The unary minus operator yields the negation of its numeric argument.")
    doc = f"{heading}\n\nThe unary minus operator yields the negation of its numeric argument.\n"
    assert doc[passages._opening_sentence(doc) :].startswith("The unary minus")
    # a Markdown heading read as text has lost its "#": the opening is still the first sentence under it
    song = "Dancing in the Dark (Rihanna song)\n\nThe song was recorded by Rihanna for the 2015 film Home.\n"
    assert song[passages._opening_sentence(song, "Dancing in the Dark (Rihanna song)") :].startswith("The song")
    corpus = write_docs(tmp_path / "corpus", {"unary.md": doc})
    summary = _summary(
        run(corpus, tmp_path / "runs", "What does the unary minus operator yield for bitwise operations?")
    )
    assert "negation of its numeric argument" in summary and "****" not in summary


INVERT_DOC = (
    "Unary operations\n****************\n\n"
    'The unary "-" (minus) operator yields the negation of its numeric argument.\n\n'
    'The unary "~" (invert) operator yields the bitwise inversion of its integer\nargument.  The bitwise inversion '
    'of "x" is defined as "-(x+1)".  It only applies to integral numbers.\n\n'
    "In all cases, if the argument does not have the proper type, a TypeError is raised.\n"
)
PLANTS_DOC = "# plants\n\nTomatoes need full sun and regular watering in the summer months.\n"


@pytest.mark.parametrize("documentation", [True, False])
def test_an_answer_card_of_the_python_documentation_quotes_the_rest_of_its_paragraph(
    tmp_path, monkeypatch, documentation
):
    """A paragraph of the documentation makes one point: the operator's definition, then its specifics. The answer's
    sentence ("...yields the bitwise inversion of its integer argument.") shares the question's words, the one that
    says what the value is ("-(x+1)") shares none, so only the paragraph brings it. Elsewhere (an encyclopedia's
    paragraph holds several facts) a card quotes its sentence alone."""
    corpus = write_docs(tmp_path / "corpus", {"unary.md": INVERT_DOC, "plants.md": PLANTS_DOC})
    use_profile(monkeypatch, REFERENCE if documentation else ENCYCLOPEDIA)
    summary = _summary(run(corpus, tmp_path / "runs", "What value does the invert operator yield for an integer?"))
    assert "yields the bitwise inversion of its integer argument" in summary
    assert ('"-(x+1)"' in summary and "It only applies to integral numbers" in summary) == documentation


SOCKET_DOC = (
    "# sockets\n\nLow-level networking interface for sockets and file descriptors.\n\n"
    "def fromfd(fd, family, type, proto=0)\nfromfd(fd, family, type[, proto]) -> socket object\n\nCreate a socket object from a duplicate of the given file\ndescriptor.  "
    "The remaining arguments are the same as for socket().\n\n"
    "def socketpair(family=None, type=None, proto=0)\nCreate a pair of connected socket objects.\n"
)


def test_an_answer_card_quotes_its_paragraphs_rest_only_when_the_reviewers_screen_passes_it(tmp_path, monkeypatch):
    """Alone, out of its document, a docstring's imperative summary followed by more text can read as a request to
    the injection screen the Reviewer runs on each cited card's quote; the sentence alone does not. The card then
    quotes the sentence alone, and the run completes."""
    from harness.sources.injection import find_injections

    longer = "Create a socket object from a duplicate of the given file\ndescriptor.  The remaining arguments are the same as for socket()."
    assert find_injections(longer) and not find_injections(longer.split("  ")[0])  # the screen, as it reads them
    corpus = write_docs(tmp_path / "corpus", {"sockets.md": SOCKET_DOC})
    use_profile(monkeypatch, REFERENCE)
    run_dir = run(corpus, tmp_path / "runs", "How do I create a socket object from a duplicate file descriptor?")
    assert json.loads((run_dir / "run.json").read_text())["status"] == "completed"
    quotes = [json.loads(p.read_text())["quote"] for p in (run_dir / "source-cards").glob("*.json")]
    assert any("duplicate of the given file" in q for q in quotes)
    assert not any(find_injections(q) for q in quotes)


def test_the_rest_of_a_paragraph_stops_at_its_end_at_code_and_at_the_cap():
    text = "The first point is said here in words.  The second point is said in words too.\n\n" + "Another one.\n"
    spans = researcher.split_sentences(text)
    s, e = spans[0]
    assert text[e : passages._rest(text, spans, s, e, [])].strip() == "The second point is said in words too."
    s, e = spans[1]
    assert passages._rest(text, spans, s, e, []) == e  # the paragraph ends there
    code = "It returns the loop that is running now.  >>> loop = get_loop()\n"
    spans = researcher.split_sentences(code)
    assert passages._rest(code, spans, *spans[0], []) == spans[0][1]  # code is no part of the point
    long = "A short sentence of words here.  " + "Words and more words follow in this long sentence. " * 30
    spans = researcher.split_sentences(long)
    assert passages._rest(long, spans, *spans[0], []) < len(long.rstrip())  # PARAGRAPH_MAX characters at most


ENCODE_DOC = (
    "# quoprimime\n\nQuoted-printable content transfer encoding.\n\n"
    "def body_encode(body, maxlinelen=76)\nEncode a body with quoted-printable, wrapping lines at maxlinelen "
    "characters.\n\nEach line of encoded text will end with the eol string given.\n\n"
    "Smaller values than 4 will generate a ValueError.\n\n"
    "def header_length(bytearray)\nReturn a header quoted-printable encoding length.\n"
)


@pytest.mark.parametrize("documentation", [True, False])
def test_a_docstrings_first_sentence_card_quotes_the_rest_of_its_docstring(tmp_path, monkeypatch, documentation):
    """A docstring documents one name: its summary line, then the paragraphs that say the rest (PEP 257). So the
    card of its first sentence, quoted with its signature, goes on through the docstring's later paragraphs (to the
    next signature), where a plain paragraph's card stops at the blank line."""
    corpus = write_docs(tmp_path / "corpus", {"quoprimime.md": ENCODE_DOC, "plants.md": PLANTS_DOC})
    use_profile(monkeypatch, REFERENCE if documentation else ENCYCLOPEDIA)
    summary = _summary(run(corpus, tmp_path / "runs", "How do I encode a body with quoted-printable wrapping lines?"))
    assert "`body_encode(body, maxlinelen=76)`: Encode a body with quoted-printable" in summary
    assert ("Smaller values than 4 will generate a ValueError" in summary) == documentation
    text = ENCODE_DOC
    spans = researcher.split_sentences(text)
    s, e = next(span for span in spans if text[span[0] :].startswith("def body_encode"))
    end = dict((a, b) for _, a, b in researcher.signed_sections(text))[s]
    assert text[passages._rest(text, spans, s, e, [], end) :].lstrip().startswith("def header_length")
    assert passages._rest(text, spans, s, e, []) == e  # without its docstring's end: the paragraph's


def test_emphasis_opens_prose_and_a_list_items_mark_does_not():
    """reST emphasis at a sentence's start ("**CPython implementation detail:**", "*path* is ...") opens prose; the
    sentence was never a candidate, though it states the answer. A star and a space opens a list item."""
    assert passages.is_prose('**CPython implementation detail:** For CPython, "id(x)" is the memory address.')
    assert passages.is_prose("*path* is a path-like object naming the file to open.")
    assert not passages.is_prose("* If the argument is a list item, it is not a sentence of prose.")
    assert not passages.is_prose("*****")


OBJECTS_DOC = (
    "Objects, values and types\n*************************\n\n"
    'Every object has an identity, a type and a value.  The "id()" function returns an integer representing its\n'
    "identity.\n\n"
    '**CPython implementation detail:** For CPython, "id(x)" is the memory\naddress where "x" is stored.\n\n'
    "An object's type determines the operations that the object supports.\n"
)


def test_an_implementation_detail_note_is_quoted_as_an_answer(tmp_path):
    """The note that answers opens with its emphasized label: it is quoted like any sentence of prose."""
    corpus = write_docs(tmp_path / "corpus", {"objects.md": OBJECTS_DOC})
    summary = _summary(run(corpus, tmp_path / "runs", "In CPython, what does id() of an object correspond to?"))
    assert '"id(x)" is the memory address where "x" is stored' in summary


BOOL_DOC = (
    "# util\n\nMiscellaneous utility functions.\n\n"
    "def strtobool(val)\nConvert a string representation of truth to true (1) or false (0).\n\n"
    "True values are 'y', 'yes', 't', 'true', 'on', and '1'; false values\nare 'n', 'no', 'f', 'false', 'off', "
    "and '0'.  Raises ValueError if\n'val' is anything else.\n\n"
    "def get_platform()\nReturn a string that identifies the current platform.\n"
)


def test_a_docstrings_rest_goes_on_through_a_sentence_of_quoted_values():
    """A sentence that lists quoted values ('y', 'yes', ...) is prose about them, not code: the card of the
    docstring's first sentence goes on through it (it stopped there, as most of its tokens are not words)."""
    text = BOOL_DOC
    spans = researcher.split_sentences(text)
    s, e = next(span for span in spans if text[span[0] :].startswith("def strtobool"))
    end = dict((a, b) for _, a, b in researcher.signed_sections(text))[s]
    rest = text[e : passages._rest(text, spans, s, e, [], end)]
    assert "True values are 'y', 'yes'" in rest and "Raises ValueError" in rest and "get_platform" not in rest
    code = "It takes one argument.  x = f('a', 'b', 'c', 'd', 'e', 'f', 'g')\n"
    spans = researcher.split_sentences(code)
    assert passages._rest(code, spans, *spans[0], []) == spans[0][1]  # code with quoted values is still code
