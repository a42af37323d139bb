"""Local corpora: passage splitting, loading (skips and duplicates), the cached BM25 index, and
what `research run` does with a bad --corpus. Every cache lives in tmp; nothing reaches the internet."""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fakes.documents import minimal_pdf
from harness.errors import UsageError
from harness.sources import index as index_mod
from harness.sources import tokens as tokens_mod
from harness.sources.corpus import PASSAGE_MAX, PASSAGE_TARGET, load_corpus, load_folder, split_passages
from harness.sources.index import CorpusIndex

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    """A cache folder of this test's own, so index and token caches never leak between tests."""
    path = tmp_path / "cache"
    monkeypatch.setenv("RESEARCH_CACHE_DIR", str(path))
    return path


def write(folder: Path, files: dict[str, str | bytes]) -> Path:
    for rel, content in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return folder


GARBAGE_PDF = b"%PDF-1.7\n" + bytes(range(256)) * 8 + b"\nno trailer here"
BAD_FILES: dict[str, str | bytes] = {
    "broken.pdf": GARBAGE_PDF,
    "blob.txt": b"looks like text\x00\x01\x02 but is not",
    "picture.png": b"\x89PNG\r\n\x1a\n" + b"\x00" * 64,
}
GOOD_DOC = (
    "# Quokkas\n\nThe quokka is a small marsupial that lives on Rottnest Island.\n\n"
    "Quokkas are mostly nocturnal and eat grasses and leaves.\n"
)


# ---- passage splitting ---------------------------------------------------------------------


def check_passages(text: str) -> list[tuple[int, int]]:
    """Assert every invariant of split_passages on `text`; return the spans."""
    spans = split_passages(text)
    for s, e in spans:
        assert 0 <= s < e <= len(text)
        piece = text[s:e]
        assert piece.strip() == piece, (s, e)  # a passage starts and ends on text
        assert e - s <= PASSAGE_MAX
    for (s1, e1), (s2, e2) in zip(spans, spans[1:]):
        assert e1 <= s2, "passages are sorted and do not overlap"
        assert e2 - s1 > PASSAGE_TARGET, "two neighbours that fit together must have been packed into one"
    covered = bytearray(len(text))
    for s, e in spans:
        covered[s:e] = b"\x01" * (e - s)
    missed = [i for i, ch in enumerate(text) if not ch.isspace() and not covered[i]]
    assert not missed, f"text outside every passage at {missed[:5]}"
    return spans


WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABC0123456789_,;:'\"()é", min_size=1, max_size=14)
GAP = st.sampled_from(
    [
        " ",
        " ",
        " ",
        "  ",
        "\n",
        "\n\n",
        "\n \n",
        "\n\t\n\n",
        "\t",
        ". ",
        ".\n",
        ".  ",
        " \n\n ",
        "\u00a0",
        "\r\n",
        "\u2028",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(WORD, GAP), max_size=700).map(lambda parts: "".join(w + g for w, g in parts)))
def test_split_passages_invariants_on_prose(text):
    check_passages(text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_split_passages_invariants_on_arbitrary_text(text):
    check_passages(text)


@settings(max_examples=50, deadline=None)
@given(st.integers(PASSAGE_MAX + 1, 4 * PASSAGE_MAX), st.sampled_from(["x", "ab ", "word\n", "w\t", "é"]))
def test_split_passages_invariants_on_long_runs(n, unit):
    """Long paragraphs with no sentence end (and some with no whitespace at all) are still cut below the max."""
    text = (unit * n)[:n]
    spans = check_passages(text)
    assert len(spans) >= 2


def test_short_paragraphs_are_packed_and_long_ones_kept_apart():
    short = [f"Short paragraph number {i} with a few words." for i in range(5)]
    text = "\n\n".join(short) + "\n"
    assert split_passages(text) == [(0, text.rstrip().__len__())]  # one passage for all five

    long_para = ("This sentence is part of a long paragraph. " * 14).strip()  # ~600 characters
    text = "\n\n".join([long_para, long_para, long_para])
    spans = split_passages(text)
    assert len(spans) == 3
    assert [text[s:e] for s, e in spans] == [long_para] * 3


def test_long_paragraph_is_cut_at_sentence_ends():
    text = " ".join(f"Sentence {i} says something about asyncio tasks and cancellation." for i in range(80))
    spans = check_passages(text)
    assert len(spans) > 2
    for s, e in spans[:-1]:
        assert text[s:e].endswith("."), text[e - 20 : e]


def test_passages_of_a_document_without_text():
    assert split_passages("") == []
    assert split_passages(" \n\n\t \n") == []


# ---- loading a folder --------------------------------------------------------------------


def test_identical_files_are_loaded_once(tmp_path, cache):
    folder = write(tmp_path / "c", {"a.md": GOOD_DOC, "copy/a-again.md": GOOD_DOC, "b.txt": "Another note.\n"})
    corpus = load_folder(folder)
    assert corpus.duplicates == 1
    assert [d.path for d in corpus.documents] == ["a.md", "b.txt"]
    assert corpus.skipped == []


def test_unreadable_files_are_skipped_with_one_warning_each(tmp_path, cache, caplog):
    folder = write(tmp_path / "c", {"good.md": GOOD_DOC, **BAD_FILES})
    warnings: list[str] = []
    with caplog.at_level(logging.DEBUG):
        corpus = load_folder(folder, warn=warnings.append)
    assert [d.path for d in corpus.documents] == ["good.md"]
    reasons = {s["path"]: s["reason"] for s in corpus.skipped}
    assert set(reasons) == set(BAD_FILES)
    assert reasons["broken.pdf"].startswith("corrupt or unreadable PDF")
    assert reasons["blob.txt"] == "binary file (NUL bytes)"
    assert reasons["picture.png"] == "unsupported file type '.png'"
    assert len(warnings) == 3
    for name, reason in reasons.items():
        [line] = [w for w in warnings if name in w]
        assert "\n" not in line and reason in line and str(folder / name) in line
    # pypdf's own complaints ("EOF marker not found", ...) must not add lines of their own
    assert not [r for r in caplog.records if r.name.startswith("pypdf")]


def test_default_warning_goes_to_stderr_one_line_per_file(tmp_path, cache, capsys):
    folder = write(tmp_path / "c", {"good.md": GOOD_DOC, **BAD_FILES})
    load_folder(folder)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 3
    assert all(line.startswith("research: warning: ") and ": skipped: " in line for line in lines)
    assert sorted(Path(line.split(": ")[2]).name for line in lines) == sorted(BAD_FILES)


def test_files_with_no_text_are_named_in_one_warning_not_one_each(tmp_path, cache):
    empties = {f"section{i}/_index.md": "---\ntitle: Section\n---\n" for i in range(5)}
    folder = write(tmp_path / "c", {"good.md": GOOD_DOC, "blank.txt": "  \n", **empties, **BAD_FILES})
    warnings: list[str] = []
    corpus = load_folder(folder, warn=warnings.append)
    assert [d.path for d in corpus.documents] == ["good.md"]
    reasons = {s["path"]: s["reason"] for s in corpus.skipped}
    assert reasons["blank.txt"] == "empty file" and reasons["section0/_index.md"] == "Markdown file has no text"
    assert len(reasons) == 6 + len(BAD_FILES)  # run.json still lists each one
    [summary] = [w for w in warnings if "with no text" in w]
    assert (
        summary
        == f"{folder}: skipped 6 file(s) with no text: blank.txt, section0/_index.md, section1/_index.md and 3 more"
    )
    assert len(warnings) == len(BAD_FILES) + 1  # a file that failed to read still gets its own line


def test_a_real_pdf_is_extracted_and_searchable(tmp_path, cache):
    pdf = minimal_pdf(["Quokkas live on Rottnest Island near Perth.", "They were described by Willem de Vlamingh."])
    folder = write(tmp_path / "c", {"papers/quokka.pdf": pdf, "other.md": "Gardening notes about tomatoes.\n"})
    corpus = load_folder(folder)
    assert corpus.skipped == []
    [doc] = [d for d in corpus.documents if d.path == "papers/quokka.pdf"]
    assert "Quokkas live on Rottnest Island near Perth." in doc.text
    assert doc.title == "quokka"  # no metadata title, and a body sentence is never a title: the file name
    hits = CorpusIndex.build(corpus).search("Vlamingh island", k=3)
    assert hits and corpus.documents[hits[0].doc].path == "papers/quokka.pdf"


def test_html_is_reduced_to_text_and_an_empty_page_is_skipped(tmp_path, cache):
    folder = write(
        tmp_path / "c",
        {
            "page.html": "<html><head><title>T</title><style>p{}</style></head><body><p>Visible &amp; kept.</p>"
            "<script>var hidden = 1;</script></body></html>",
            "empty.html": "<html><head><title>Nothing</title></head><body><script>x()</script></body></html>",
        },
    )
    corpus = load_folder(folder, warn=lambda _m: None)
    [doc] = corpus.documents
    assert doc.title == "T" and "Visible & kept." in doc.text and "hidden" not in doc.text
    assert corpus.skipped == [{"path": "empty.html", "reason": "HTML page has no text"}]


def test_missing_or_empty_folder_is_a_usage_error(tmp_path, cache):
    with pytest.raises(UsageError, match="--corpus: .* does not exist"):
        load_corpus(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(UsageError, match="--corpus: .* has no readable documents"):
        load_corpus(tmp_path / "empty")
    write(tmp_path / "only-bad", BAD_FILES)
    with pytest.raises(UsageError, match="has no readable documents"):
        load_corpus(tmp_path / "only-bad", warn=lambda _m: None)


# ---- the index -----------------------------------------------------------------------------


DOCS = {
    "asyncio/taskgroup.md": "# TaskGroup\n\nasyncio.TaskGroup cancels the remaining tasks when one task fails.\n\n"
    "The zephyrine flag is documented here.\n",
    "asyncio/gather.md": "# gather\n\nasyncio.gather returns the results of awaitables in order.\n",
    "notes/garden.txt": "Tomatoes need six hours of sun.\n",
}


@pytest.fixture
def split_calls(monkeypatch) -> list[int]:
    """Counts the documents the index splits and tokenizes (the work a cache hit must skip)."""
    calls: list[int] = []
    real = index_mod.split_passages

    def counting(text):
        calls.append(1)
        return real(text)

    monkeypatch.setattr(index_mod, "split_passages", counting)
    return calls


def test_index_is_reused_and_rebuilt_incrementally(tmp_path, cache, split_calls):
    folder = write(tmp_path / "c", DOCS)
    first = CorpusIndex.build(load_folder(folder))
    assert first.rebuilt_docs == 3 and len(split_calls) == 3
    assert list((cache / "index").iterdir()), "the index is cached under RESEARCH_CACHE_DIR"

    again = CorpusIndex.build(load_folder(folder))
    assert again.rebuilt_docs == 0 and len(split_calls) == 3  # nothing split or tokenized again
    assert again.passages.tolist() == first.passages.tolist()

    # change one document: only it is tokenized again, and the search sees the new text only
    path = folder / "asyncio/taskgroup.md"
    path.write_text(path.read_text().replace("zephyrine", "quixotical"), encoding="utf-8")
    corpus = load_folder(folder)
    changed = CorpusIndex.build(corpus)
    assert changed.rebuilt_docs == 1 and len(split_calls) == 4
    hits = changed.search("quixotical flag")
    assert hits and corpus.documents[hits[0].doc].path == "asyncio/taskgroup.md"
    assert changed.search("zephyrine") == []

    # add a document: only it is tokenized
    write(folder, {"asyncio/timeout.md": "asyncio.timeout raises TimeoutError after the delay.\n"})
    corpus = load_folder(folder)
    added = CorpusIndex.build(corpus)
    assert added.rebuilt_docs == 1 and len(split_calls) == 5
    assert corpus.documents[added.search("TimeoutError delay")[0].doc].path == "asyncio/timeout.md"

    # remove a document: nothing to tokenize, and it is no longer found
    (folder / "notes/garden.txt").unlink()
    corpus = load_folder(folder)
    removed = CorpusIndex.build(corpus)
    assert removed.rebuilt_docs == 0 and len(split_calls) == 5
    assert removed.search("tomatoes sun") == []


def test_damaged_index_cache_is_rebuilt(tmp_path, cache):
    folder = write(tmp_path / "c", DOCS)
    corpus = load_folder(folder)
    CorpusIndex.build(corpus)
    [index_dir] = (cache / "index").iterdir()
    for f in index_dir.iterdir():
        if f.name != "passages.npy":
            f.write_bytes(b"garbage")
    rebuilt = CorpusIndex.build(corpus)
    hits = rebuilt.search("TaskGroup cancels")
    assert hits and corpus.documents[hits[0].doc].path == "asyncio/taskgroup.md"


def test_every_hit_is_a_passage_of_its_document(tmp_path, cache):
    long_doc = "\n\n".join(f"Paragraph {i}. " + "The event loop schedules callbacks and tasks. " * 12 for i in range(8))
    folder = write(tmp_path / "c", {**DOCS, "loop.md": long_doc})
    corpus = load_folder(folder)
    index = CorpusIndex.build(corpus)
    for query in ("asyncio tasks", "event loop callbacks", "paragraph 3", "TaskGroup cancel", "results order"):
        hits = index.search(query, k=10)
        assert hits, query
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
        for h in hits:
            text = corpus.documents[h.doc].text
            assert (h.start, h.end) in split_passages(text)
            assert text[h.start : h.end].strip() == text[h.start : h.end]


def test_search_edge_cases(tmp_path, cache):
    index = CorpusIndex.build(load_folder(write(tmp_path / "c", DOCS)))
    assert index.search("the of and") == []  # stopwords only
    assert index.search("unheardofword") == []
    assert index.search("asyncio", k=0) == []
    assert len(index.search("asyncio", k=1)) == 1


def test_ties_are_broken_by_position_even_at_the_cut_off(tmp_path, cache):
    files = {f"d{i:02d}.md": "Kangaroo facts.\n" for i in range(30)}
    files = {name: f"{text}\nNote {i}.\n" for i, (name, text) in enumerate(files.items())}
    for i in (7, 20):  # same length, the word twice: a higher score than the 28 tied documents
        files[f"d{i:02d}.md"] = f"Kangaroo kangaroo.\n\nNote {i}.\n"
    corpus = load_folder(write(tmp_path / "c", files))
    hits = CorpusIndex.build(corpus).search("kangaroo", k=5)
    assert [corpus.documents[h.doc].path for h in hits] == ["d07.md", "d20.md", "d00.md", "d01.md", "d02.md"]
    assert hits[1].score > hits[2].score == hits[3].score == hits[4].score


def test_parallel_tokenizing_gives_the_same_tokens(monkeypatch):
    """Research branches search in parallel: stemming new words from many threads must not mix them up."""
    import threading

    words = [f"{stem}{i}ations" for stem in ("connect", "relat", "gener", "oper") for i in range(150)]
    monkeypatch.setattr(tokens_mod, "_STEMS", tokens_mod._Stems())
    expected = {w: tokens_mod._STEMMER.stemWord(w) for w in words}
    monkeypatch.setattr(tokens_mod, "_STEMS", tokens_mod._Stems())
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    errors: list[BaseException] = []

    def work(chunk):
        try:
            for w in chunk:
                assert tokens_mod.tokenize(w) == [expected[w]]
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    try:
        threads = [threading.Thread(target=work, args=(words[i::4],)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(switch)
    assert not errors, errors[:3]


# ---- research run with a bad corpus ------------------------------------------------------


def research(args: list[str], cwd: Path, cache: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("GOOGLE_API_KEY", "GEMINI_API_KEY")}
    env["RESEARCH_CACHE_DIR"] = str(cache)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run(
        [sys.executable, "-m", "harness", "run", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.parametrize("kind", ["missing", "empty", "only-unreadable"])
def test_bad_corpus_exits_2_without_creating_a_workspace(tmp_path, cache, kind):
    corpus = tmp_path / "corpus"
    if kind == "empty":
        corpus.mkdir()
    elif kind == "only-unreadable":
        write(corpus, BAD_FILES)
    runs = tmp_path / "runs"
    proc = research(
        ["What do quokkas eat?", "--corpus", str(corpus), "--yes", "--runs-dir", str(runs)], tmp_path, cache
    )
    assert proc.returncode == 2, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("research: error:")]
    assert len(errors) == 1 and "--corpus" in errors[0] and str(corpus) in errors[0]
    assert not runs.exists() or not any(runs.iterdir()), "no workspace may be created"


def test_skipped_files_are_recorded_in_run_json(tmp_path, cache):
    corpus = write(tmp_path / "corpus", {"quokka.md": GOOD_DOC, **BAD_FILES})
    runs = tmp_path / "runs"
    proc = research(
        ["What do quokkas eat?", "--corpus", str(corpus), "--yes", "--runs-dir", str(runs)], tmp_path, cache
    )
    assert proc.returncode in (0, 3), proc.stderr  # completed, or stopped short by the offline engine: not an error
    [run_dir] = [p for p in runs.iterdir() if not p.name.startswith(".")]
    manifest = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    skipped = {s["path"]: s["reason"] for s in manifest["corpus"]["skipped"]}
    assert skipped == {
        "broken.pdf": skipped["broken.pdf"],
        "blob.txt": "binary file (NUL bytes)",
        "picture.png": "unsupported file type '.png'",
    }
    assert skipped["broken.pdf"].startswith("corrupt or unreadable PDF")
    assert manifest["corpus"]["documents"] == 1 and manifest["corpus"]["passages"] >= 1
    # one warning line per skipped file, and nothing else about them (no pypdf chatter)
    for name, reason in skipped.items():
        lines = [line for line in proc.stderr.splitlines() if name in line]
        assert len(lines) == 1 and reason in lines[0], proc.stderr
    assert not re.search(r"EOF marker|invalid pdf header", proc.stderr, re.I), proc.stderr
