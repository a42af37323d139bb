"""The PDF export: the export's HTML printed by WeasyPrint (no browser), with nothing fetched.

The page has no external resources; the URL fetcher refuses any all the same, so a rendering
never reaches the network. Fragment links (`#card-…`) become PDF internal links, and the
`<meta name="research-…">` tags become the PDF's custom metadata (WeasyPrint keeps only letters and
digits of a key: `/researchrunid`, `/researchdraft`, `/researchdraftsha256`),
next to the title and the generator.
"""

from __future__ import annotations

import io
from typing import Any

from harness.surfaces.export.content import ExportContent


def _no_fetch(url: str, *args, **kwargs):
    raise ValueError(f"export renders offline: refusing to fetch {url}")


def render_pdf(content: ExportContent) -> bytes:
    from weasyprint import HTML

    return HTML(string=content.html_file(), url_fetcher=_no_fetch).write_pdf(custom_metadata=True)


def pdf_text(data: bytes) -> str:
    """The PDF's text, page after page (pypdf), with whitespace runs folded (what the export check compares)."""
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(data))
    return " ".join(" ".join((page.extract_text() or "").split()) for page in reader.pages)


def pdf_provenance(data: bytes) -> dict[str, str]:
    from pypdf import PdfReader

    meta: dict[str, Any] = PdfReader(io.BytesIO(data)).metadata or {}
    return {k: str(meta.get("/research" + k.replace("_", ""), "")) for k in ("run_id", "draft", "draft_sha256")}
