"""`research export` and `research validate --export`, on one real offline run.

Each format is exported and checked against the run; the PDF's text (pypdf) and the .docx's
paragraphs (python-docx) carry every citation and every evidence quote; the citations link
inside the document; an edited export of each format is caught; a run without a final report
is refused in one line (exit 2); rendering a PDF opens no connection.
"""

from __future__ import annotations

import io
import json
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from fakes.workspaces import FIXTURE_QUESTION, write_fixture_corpus
from harness.contract.formats import sha256_text
from harness.orchestrator.config import build_config
from harness.orchestrator.lifecycle import start_run
from harness.surfaces.export import check_export, export_run
from harness.surfaces.export.pdf import pdf_provenance, pdf_text
from harness.surfaces.export.word import docx_provenance, docx_text


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("export")
    corpus = write_fixture_corpus(base / "corpus")
    with pytest.MonkeyPatch.context() as mp:
        for key in ("GOOGLE_API_KEY", "GEMINI_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
            mp.delenv(key, raising=False)
        mp.setenv("RESEARCH_CACHE_DIR", str(base / "cache"))
        result = start_run(build_config(FIXTURE_QUESTION, corpus=str(corpus), runs_dir=str(base / "runs"), yes=True))
    assert result.status == "completed", result.reason
    return result.run_dir


def _cited(run_dir: Path) -> tuple[list[str], list[str]]:
    """(claim ids the final report cites, the quotes of their cards) as the run holds them."""
    report = (run_dir / "final-report.md").read_text(encoding="utf-8")
    claims = {c["claim_id"]: c for c in json.loads((run_dir / "claims.json").read_text())["claims"]}
    cited = sorted(set(re.findall(r"\[(C\d+)\]\(source-cards/", report)))
    quotes = []
    for cid in cited:
        for card in claims[cid]["supporting_cards"] + claims[cid]["contradicting_cards"]:
            quotes.append(json.loads((run_dir / f"source-cards/{card}.json").read_text())["quote"])
    assert cited and quotes
    return cited, quotes


def _draft_sha(run_dir: Path) -> str:
    report = (run_dir / "final-report.md").read_text(encoding="utf-8")
    draft = re.search(r"from `(drafts/draft-\d+\.md)`", report).group(1)
    return sha256_text((run_dir / draft).read_text(encoding="utf-8"))


def _fold(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("fmt", ["md", "html", "pdf", "docx"])
def test_each_format_exports_and_matches_its_run(run_dir: Path, tmp_path: Path, fmt: str):
    path = export_run(run_dir, fmt, tmp_path / f"report.{fmt}")
    assert check_export(run_dir, path) == []
    data = path.read_bytes()
    run_id = json.loads((run_dir / "run.json").read_text())["run_id"]
    cited, quotes = _cited(run_dir)
    if fmt == "pdf":
        text, meta = pdf_text(data), pdf_provenance(data)
    elif fmt == "docx":
        text, meta = _fold(" ".join(docx_text(data))), docx_provenance(data)
    else:
        text = data.decode("utf-8")
        assert run_id in text and _draft_sha(run_dir) in text
        meta = {"run_id": run_id, "draft_sha256": _draft_sha(run_dir)}
        # no link leads out of the document: each citation points at its card's entry in the appendix
        assert "source-cards/" not in re.sub(r"^---.*?---", "", text, flags=re.S).replace("`source-cards/", "")
    assert meta["run_id"] == run_id and meta["draft_sha256"] == _draft_sha(run_dir)
    shape = {"md": r"\[{}\]\(#card-", "html": r'href="#card-[^"]+">{}</a>'}.get(fmt, r"\(\s*{}(?!\d)")
    for cid in cited:
        assert re.search(shape.format(cid), text), f"citation {cid} missing from the {fmt} export"
    for quote in quotes:
        assert _fold(quote) in _fold(text), f"quote missing from the {fmt} export: {quote[:40]}"
    assert "Evidence" in text and "Sources" in text


def test_citations_are_internal_links_in_html_pdf_and_docx(run_dir: Path, tmp_path: Path):
    html = export_run(run_dir, "html", tmp_path / "r.html").read_text(encoding="utf-8")
    targets = set(re.findall(r'href="#(card-[^"]+)"', html))
    assert targets and all(f'id="{t}"' in html for t in targets)

    from pypdf import PdfReader

    reader = PdfReader(export_run(run_dir, "pdf", tmp_path / "r.pdf"))
    dests = {
        str(a.get_object().get("/Dest"))
        for page in reader.pages
        for a in page.get("/Annots") or []
        if a.get_object().get("/Dest")
    }
    assert targets <= dests

    from docx import Document
    from docx.oxml.ns import qn

    body = Document(export_run(run_dir, "docx", tmp_path / "r.docx")).element.body
    anchors = {h.get(qn("w:anchor")) for h in body.iter(qn("w:hyperlink"))}
    bookmarks = {b.get(qn("w:name")) for b in body.iter(qn("w:bookmarkStart"))}
    assert targets <= anchors <= bookmarks | {None}


def test_an_edited_export_is_caught(run_dir: Path, tmp_path: Path):
    _, quotes = _cited(run_dir)
    word = quotes[0].split()[-2]

    md = export_run(run_dir, "md", tmp_path / "r.md")
    md.write_text(md.read_text(encoding="utf-8").replace(word, "edited", 1), encoding="utf-8")
    assert check_export(run_dir, md)

    html = export_run(run_dir, "html", tmp_path / "r.html")
    html.write_text(html.read_text(encoding="utf-8").replace(_draft_sha(run_dir), "0" * 64), encoding="utf-8")
    assert any("sha256" in p for p in check_export(run_dir, html))

    from docx import Document

    path = export_run(run_dir, "docx", tmp_path / "r.docx")
    doc = Document(path)
    para = next(p for p in doc.paragraphs if word in p.text)
    para.add_run(" (edited)")
    doc.save(path)
    problems = check_export(run_dir, path)
    assert problems and "paragraph" in problems[0]

    from pypdf import PdfReader, PdfWriter

    path = export_run(run_dir, "pdf", tmp_path / "r.pdf")
    reader = PdfReader(path)
    writer = PdfWriter()
    for page in reader.pages[:-1]:  # the appendix's last page dropped, metadata kept
        writer.add_page(page)
    writer.add_metadata(dict(reader.metadata))
    buf = io.BytesIO()
    writer.write(buf)
    path.write_bytes(buf.getvalue())
    assert pdf_provenance(path.read_bytes())["run_id"]
    assert check_export(run_dir, path)


def test_cli_export_and_validate_export(run_dir: Path, tmp_path: Path):
    cli = [sys.executable, "-m", "harness.surfaces.cli"]
    out = tmp_path / "r.docx"
    done = subprocess.run(
        [*cli, "export", str(run_dir), "--format", "docx", "--out", str(out)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    ok = subprocess.run([*cli, "validate", str(run_dir), "--export", str(out)], capture_output=True, text=True)
    assert ok.returncode == 0 and "matches" in ok.stdout
    other = tmp_path / "r.md"
    other.write_text("---\nrun_id: someone-else\n---\n\n# A report\n", encoding="utf-8")
    bad = subprocess.run([*cli, "validate", str(run_dir), "--export", str(other)], capture_output=True, text=True)
    assert bad.returncode == 1 and "does not record run" in bad.stdout


def test_a_run_without_a_final_report_is_refused_in_one_line(built_ws, tmp_path: Path):
    cli = [sys.executable, "-m", "harness.surfaces.cli"]
    out = tmp_path / "r.pdf"
    done = subprocess.run(
        [*cli, "export", str(built_ws.root), "--format", "pdf", "--out", str(out)], capture_output=True, text=True
    )
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "no final report" in done.stderr
    assert not out.exists()


def test_pdf_rendering_opens_no_connection(run_dir: Path, tmp_path: Path, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the PDF export tried to open a connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    path = export_run(run_dir, "pdf", tmp_path / "r.pdf")
    assert pdf_text(path.read_bytes())


def test_without_out_the_export_goes_to_the_run_folder_and_follows_the_umask(run_dir: Path):
    import os

    from harness.workspace.validate import validate_workspace

    before = os.umask(0o027)
    try:
        path = export_run(run_dir, "md")
    finally:
        os.umask(before)
    run_id = json.loads((run_dir / "run.json").read_text())["run_id"]
    assert path == run_dir / "exports" / f"{run_id}.md" and check_export(run_dir, path) == []
    assert path.stat().st_mode & 0o777 == 0o640  # 0666 less the umask, not the temporary file's 0600
    assert validate_workspace(run_dir) == []  # outside the audited set
