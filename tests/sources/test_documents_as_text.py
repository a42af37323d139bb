"""A corpus's documents are read as text: Markdown as a reader sees it, Word files' paragraphs and tables; quotes
verify against that text, and the index follows it."""

from __future__ import annotations

import io
from pathlib import Path

import docx
import pytest

from fakes.workspaces import write_docs
from harness.contract.quotes import locate_quote
from harness.errors import UsageError
from harness.sources.corpus import load_folder
from harness.sources.extract import extract
from harness.sources.index import CorpusIndex
from harness.sources.markdown_text import markdown_to_text

CHAPTER = """---
title: "Recoverable Errors with Result"
---
# Recoverable Errors with `Result`

Most errors aren't serious enough to require the program to stop entirely. When a function fails, it returns
an error value, [as discussed in Chapter 9][ch9-error-guidelines]<!-- ignore -->, that the caller handles.
See the [`Result` documentation](https://doc.rust-lang.org/std/result/) and ![a diagram](img/result.svg).
Use *emphasis*, **strong** and \\*escaped stars\\* &amp; entities.

<!-- a comment nobody should read -->

- The `?` operator returns early on `Err`.
- Matching on `Result` handles each case:
  1. `Ok(value)` carries the value.

| Variant | Meaning |
|---------|---------|
| `Ok(T)` | success, with a [value](#values) |
| `Err(E)` | failure |

```rust
fn main() {
    let f = File::open("hello.txt")?;

    Ok(())
}
```

    indented code stays code

<div class="note">An <b>HTML</b> block keeps its text.</div>

[ch9-error-guidelines]: ch09-03-to-panic-or-not-to-panic.html#guidelines-for-error-handling
"""


def text_of(markdown: str) -> str:
    return extract(Path("chapter.md"), markdown.encode("utf-8"))[1]


def test_links_keep_their_text_and_lose_targets_reference_definitions_and_comments():
    text = text_of(CHAPTER)
    assert "an error value, as discussed in Chapter 9, that the caller handles." in " ".join(text.split())
    assert "See the `Result` documentation and a diagram." in text
    for markup in ("](", "][", "ch9-error-guidelines", "https://", "<!--", "ignore", "img/result.svg", "#values"):
        assert markup not in text
    assert "a comment nobody should read" not in text
    assert "Use emphasis, strong and *escaped stars* & entities." in text


def test_headings_lists_and_tables_are_readable_lines_and_code_stays_code():
    text = text_of(CHAPTER)
    assert text.startswith("Recoverable Errors with `Result`\n\nMost errors")  # the front matter is not text
    assert "\n- The `?` operator returns early on `Err`.\n- Matching on `Result` handles each case:\n" in text
    assert "\n  1. `Ok(value)` carries the value.\n" in text
    assert "\nVariant | Meaning\n`Ok(T)` | success, with a value\n`Err(E)` | failure\n" in text
    # a code block keeps its lines (and its blank line), indented as plain-text documentation indents code
    assert '\n    fn main() {\n        let f = File::open("hello.txt")?;\n\n        Ok(())\n    }\n' in text
    assert "\n    indented code stays code\n" in text
    assert "An HTML block keeps its text." in text
    assert "```" not in text and "|---" not in text and "# " not in text


def test_the_title_is_read_from_the_markup_not_shown_with_it():
    title, _ = extract(Path("chapter.md"), CHAPTER.encode())
    assert title == "Recoverable Errors with Result"  # front matter
    title, _ = extract(Path("c.md"), b"# Using [`Box<T>`](box.html) to Point to Data\n\nText here.\n")
    assert title == "Using `Box<T>` to Point to Data"


def test_a_markdown_file_with_no_text_is_skipped_and_named(tmp_path: Path):
    warnings: list[str] = []
    write_docs(
        tmp_path, {"empty.md": "<!-- only a comment -->\n\n[ref]: https://example.org\n", "ok.md": "Some text.\n"}
    )
    corpus = load_folder(tmp_path, warn=warnings.append)
    assert [d.path for d in corpus.documents] == ["ok.md"]
    assert corpus.skipped == [{"path": "empty.md", "reason": "Markdown file has no text"}]
    assert warnings == [f"{tmp_path}: skipped 1 file(s) with no text: empty.md"]


def test_plain_text_is_stored_as_it_is():
    raw = "A [bracket](not a link in .txt) stays.\n"
    assert extract(Path("notes.txt"), raw.encode())[1] == raw


def test_quotes_verify_against_the_stored_text_and_the_index_searches_it(tmp_path: Path):
    write_docs(tmp_path / "book", {"ch09.md": CHAPTER})
    corpus = load_folder(tmp_path / "book")
    doc = corpus.documents[0]
    quote = "When a function fails, it returns an error value, as discussed in Chapter 9, that the caller handles."
    where = locate_quote(doc.text, quote)
    assert where is not None and where.how in ("exact", "whitespace")
    assert " ".join(doc.text[where.start : where.end].split()) == quote  # the snapshot's own text, no markup
    index = CorpusIndex.build(corpus, use_cache=False)
    for hit in index.search("error value caller handles", k=3):
        assert hit.end <= len(doc.text) and "<!--" not in doc.text[hit.start : hit.end]
    assert not index.search("guidelines panic", k=3)  # the link target's words are not indexed


def test_the_cached_index_follows_the_converted_text(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("RESEARCH_CACHE_DIR", str(tmp_path / "cache"))
    folder = write_docs(tmp_path / "book", {"a.md": "Alpha [beta](https://gamma.example) delta.\n"})
    first = CorpusIndex.build(load_folder(folder))
    assert first.search("beta", k=1) and not first.search("gamma", k=1)
    (folder / "a.md").write_text("Alpha [epsilon](https://gamma.example) delta.\n", encoding="utf-8")
    again = CorpusIndex.build(load_folder(folder))
    assert again.rebuilt_docs == 1 and again.search("epsilon", k=1) and not again.search("beta", k=1)


def test_markdown_to_text_hands_html_blocks_to_the_reader_it_is_given():
    assert markdown_to_text("<p>kept</p>\n\nafter\n", lambda html: "READ") == "READ\n\nafter\n"


def word_file(path: Path) -> Path:
    document = docx.Document()
    document.core_properties.title = ""
    document.add_heading("Acme Robotics: company overview", 0)
    document.add_paragraph("Acme raised a Series B of 40 million dollars in March 2024.")
    document.add_paragraph("Rovers for warehouses", style="List Bullet")
    document.add_paragraph("Arms for packing lines", style="List Bullet")
    table = document.add_table(rows=2, cols=3)
    for cell, value in zip(
        table.rows[0].cells + table.rows[1].cells, ["Product", "Price", "Since", "R1 rover", "$900", "2023"]
    ):
        cell.text = value
    document.add_heading("Risks", 1)
    document.add_paragraph("A single supplier makes every motor the rovers use.")
    buffer = io.BytesIO()
    document.save(buffer)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(buffer.getvalue())
    return path


def test_a_word_document_is_read_as_paragraphs_lists_and_table_rows_in_order(tmp_path: Path):
    word_file(tmp_path / "share" / "overview.docx")
    corpus = load_folder(tmp_path / "share")
    (doc,) = corpus.documents
    assert doc.title == "Acme Robotics: company overview"
    assert doc.text == (
        "Acme Robotics: company overview\n\n"
        "Acme raised a Series B of 40 million dollars in March 2024.\n\n"
        "- Rovers for warehouses\n- Arms for packing lines\n\n"
        "Product | Price | Since\nR1 rover | $900 | 2023\n\n"
        "Risks\n\n"
        "A single supplier makes every motor the rovers use.\n"
    )
    where = locate_quote(doc.text, "Acme raised a Series B of 40 million dollars in March 2024.")
    assert where is not None and where.how == "exact"
    assert CorpusIndex.build(corpus, use_cache=False).search("supplier motor", k=1)


def test_a_word_document_that_cannot_be_read_is_named_in_one_line(tmp_path: Path):
    word_file(tmp_path / "share" / "good.docx")
    (tmp_path / "share" / "broken.docx").write_bytes(b"PK\x03\x04 not really a zip")
    (tmp_path / "share" / "old.doc").write_bytes(b"\xd0\xcf\x11\xe0 binary")
    warnings: list[str] = []
    corpus = load_folder(tmp_path / "share", warn=warnings.append)
    assert [d.path for d in corpus.documents] == ["good.docx"]
    reasons = {s["path"]: s["reason"] for s in corpus.skipped}
    assert reasons["broken.docx"].startswith("corrupt or unreadable Word document (")
    assert reasons["old.doc"] == "unsupported file type '.doc'"
    assert len(warnings) == 2 and all("\n" not in w for w in warnings)


def test_a_folder_with_nothing_readable_names_the_formats_it_reads(tmp_path: Path):
    (tmp_path / "x.doc").write_bytes(b"binary")
    with pytest.raises(UsageError, match=r"no readable documents \(.*\.md.*\.docx\)"):
        load_folder(tmp_path, warn=lambda _msg: None)
