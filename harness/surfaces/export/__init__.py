"""`research export` and `research validate --export`: a completed run as a file people can share.

`export_run` writes the run's standalone report (`content.py`) as Markdown, HTML, PDF (`pdf.py`) or
Word (`word.py`), or the references of the papers it cites as BibTeX or CSL-JSON (`evidence/bibliography.py`),
atomically, its bibliography in the run's citation style or the one asked for. `check_export` rebuilds what the
file should hold from the run (in the run's style, else in the bundled style the file was written in) and compares: Markdown and HTML byte for byte, Word paragraph by paragraph (table cells included) with
its core properties, PDF by its extracted text and its metadata. An edited export, or an export of
another run or of an earlier draft, is reported with one line per difference found.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path
from typing import Literal, get_args

from harness.contract.layout import EXPORTS_DIR
from harness.contract.works import CITATION_STYLES, CitationStyle, run_citation_style
from harness.errors import UsageError, extra_missing
from harness.evidence.bibliography import bibtex, csl_json
from harness.surfaces.export.content import ExportContent, export_content
from harness.workspace.atomic import atomic_write
from harness.workspace.reader import RunReader

Format = Literal["pdf", "docx", "html", "md", "bibtex", "csl-json"]
FORMATS: tuple[str, ...] = get_args(Format)
SUFFIXES = {"bibtex": "bib", "csl-json": "json"}  # a format whose file name does not end in its own name
_BY_SUFFIX = {suffix: fmt for fmt, suffix in SUFFIXES.items()}


def _render(content: ExportContent, fmt: str) -> bytes:
    if fmt == "md":
        return content.md_file().encode("utf-8")
    if fmt == "html":
        return content.html_file().encode("utf-8")
    if fmt == "bibtex":
        return bibtex(list(content.references)).encode("utf-8")
    if fmt == "csl-json":
        return csl_json(list(content.references)).encode("utf-8")
    try:
        if fmt == "pdf":
            from harness.surfaces.export.pdf import render_pdf

            return render_pdf(content)
        from harness.surfaces.export.word import render_docx
    except ImportError as exc:  # not installed, or a system library it loads is missing
        raise extra_missing(f"--format {fmt}", "export", exc.name or str(exc)) from None
    return render_docx(content)


def _format_of(path: Path, fmt: str | None) -> str:
    suffix = path.suffix.lstrip(".").lower()
    fmt = fmt or _BY_SUFFIX.get(suffix, suffix)
    if fmt not in FORMATS:
        raise UsageError(f"--format {fmt or '(none)'}: choose one of {', '.join(FORMATS)}")
    return fmt


def export_bytes(run_dir: Path | str, fmt: str, citation_style: CitationStyle | None = None) -> tuple[str, bytes]:
    """The export of a completed run in `fmt`, in memory (the app's export button): its file name and content."""
    fmt = _format_of(Path(f"x.{fmt}"), fmt)
    content = export_content(run_dir, citation_style)
    return f"{content.provenance.run_id}.{fmt}", _render(content, fmt)


def export_run(
    run_dir: Path | str, fmt: str, out: Path | None = None, citation_style: CitationStyle | None = None
) -> Path:
    """Write the export of a completed run; returns its path (default RUN_DIR/exports/<run_id>.<fmt>, a folder
    `validate` never reads). The file is meant to be shared, so it gets the mode the umask gives a new file, not
    the private 0600 of the temporary file it is renamed from. `citation_style` (--citation-style) renders the
    bibliography in another bundled style than the run's."""
    fmt = _format_of(Path(f"x.{fmt}"), fmt)
    content = export_content(run_dir, citation_style)
    if fmt in SUFFIXES and not content.references:
        raise UsageError(f"--format {fmt}: the report of {run_dir} cites no papers, so it has no references")
    path = out or Path(run_dir) / EXPORTS_DIR / f"{content.provenance.run_id}.{SUFFIXES.get(fmt, fmt)}"
    data = _render(content, fmt)
    try:
        if out is None:
            path.parent.mkdir(exist_ok=True)
        atomic_write(path, data)
        os.chmod(path, 0o666 & ~_umask())
    except OSError as exc:
        raise UsageError(f"--out {path}: {exc.strerror or exc}") from None
    return path


def _umask() -> int:
    """The process's umask (read by setting it, then putting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _first_difference(got: list[str], want: list[str], what: str) -> list[str]:
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=want, b=got, autojunk=False).get_opcodes():
        if op != "equal":
            shown = (got[j1:j2] or ["(nothing)"])[0][:80]
            expected = (want[i1:i2] or ["(nothing)"])[0][:80]
            return [f"{what} {i1 + 1} differs from the run: has {shown!r}, the run gives {expected!r}"]
    return []


def check_export(run_dir: Path | str, file: Path) -> list[str]:
    """What is wrong with `file` as an export of the run (empty when it matches): compared with the export in the
    run's citation style, and when that differs, with each other bundled style (`export --citation-style`); the
    differences reported are those from the run's style."""
    fmt = _format_of(file, None)
    try:
        data = file.read_bytes()
    except OSError as exc:
        raise UsageError(f"--export {file}: {exc.strerror or exc}") from None
    content = export_content(run_dir)
    problems = _differences(content, fmt, file, data)
    if problems:
        own = run_citation_style(RunReader(run_dir, cache=True).run())
        for style in CITATION_STYLES:
            if style != own and not _differences(export_content(run_dir, style), fmt, file, data):
                return []
    return problems


def _differences(content: ExportContent, fmt: str, file: Path, data: bytes) -> list[str]:
    """What differs between `data` (the file `file` in `fmt`) and `content` rendered in `fmt`."""
    want = content.provenance.fields()
    if fmt in ("md", "html"):
        expected = _render(content, fmt).decode("utf-8")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return [f"{file}: not UTF-8 text"]
        if text == expected:
            return []
        problems = [f"{file}: does not record run {want['run_id']}"] if want["run_id"] not in text else []
        if want["draft_sha256"] not in text:
            problems.append(f"{file}: does not record the sha256 of {want['draft']} ({want['draft_sha256'][:12]}…)")
        return problems + [f"{file}: " + p for p in _first_difference(text.splitlines(), expected.splitlines(), "line")]
    if fmt in SUFFIXES:  # references carry no provenance: they are compared with the run's, line by line
        expected = _render(content, fmt).decode("utf-8")
        text = data.decode("utf-8", errors="replace")
        return (
            []
            if text == expected
            else [f"{file}: " + p for p in _first_difference(text.splitlines(), expected.splitlines(), "line")]
        )
    if fmt == "docx":
        from harness.surfaces.export.word import docx_provenance, docx_text

        try:
            got_meta, got_text = docx_provenance(data), docx_text(data)
        except Exception as exc:  # python-docx raises several types for a file that is not a .docx
            return [f"{file}: not a readable .docx ({type(exc).__name__})"]
        want_text = docx_text(_render(content, fmt))
        what = "paragraph"
    else:
        from harness.surfaces.export.pdf import pdf_provenance, pdf_text

        try:
            got_meta, got_text = pdf_provenance(data), pdf_text(data).split(" ")
        except Exception as exc:  # pypdf raises several types for a file that is not a PDF
            return [f"{file}: not a readable PDF ({type(exc).__name__})"]
        want_text = pdf_text(_render(content, fmt)).split(" ")
        what = "word"
    problems = [
        f"{file}: records {key} {got_meta.get(key)!r}, the run gives {value!r}"
        for key, value in want.items()
        if got_meta.get(key) != value
    ]
    return problems + [f"{file}: " + p for p in _first_difference(got_text, want_text, what)]
