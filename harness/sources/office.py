"""Office documents as plain text: a Word file's paragraphs and tables, in the order they stand, read by python-docx.

A heading, a paragraph and a table each take a block of their own (a blank line between blocks); a list
paragraph keeps a line of its own after a `- `, so a run of list items stays one block; a table is one row a
line, its cells between ` | ` (a merged cell once). The title is the document's own (its properties' title,
else its first Title or Heading 1 paragraph); `extract` falls back to the first line or the file name.
"""

from __future__ import annotations

import io

OFFICE = (".docx",)
_HEADING_STYLES = ("Title", "Heading 1")


class OfficeUnreadable(Exception):
    """An office file its library cannot open; the message is the reason (`extract` turns it into `Unreadable`)."""


def _style(paragraph) -> str:
    try:
        return paragraph.style.name or ""
    except (AttributeError, KeyError, ValueError):  # a style the file names but does not define
        return ""


def _row(row) -> str:
    cells: list[str] = []
    previous = None
    for cell in row.cells:
        if cell._tc is previous:  # a merged cell is listed once per grid column it spans
            continue
        previous = cell._tc
        cells.append(" ".join(cell.text.split()))
    return " | ".join(cells)


def docx_text(data: bytes) -> tuple[str, str]:
    """(title or "", text) of a .docx file, or OfficeUnreadable."""
    try:
        from docx import Document
        from docx.table import Table

        document = Document(io.BytesIO(data))
        blocks: list[str] = []
        in_list = False
        title = (document.core_properties.title or "").strip()
        for part in document.iter_inner_content():
            if isinstance(part, Table):
                rows = [r for r in (_row(row) for row in part.rows) if r.strip(" |")]
                blocks += ["\n".join(rows)] if rows else []
                in_list = False
                continue
            text = part.text.strip()
            if not text:
                in_list = False
                continue
            style = _style(part)
            if not title and style in _HEADING_STYLES:
                title = text
            if style.startswith("List"):
                if in_list:
                    blocks[-1] += "\n- " + text
                else:
                    blocks.append("- " + text)
                in_list = True
                continue
            blocks.append(text)
            in_list = False
    except Exception as exc:  # python-docx and zipfile raise many types for damaged files
        raise OfficeUnreadable(f"corrupt or unreadable Word document ({type(exc).__name__})") from None
    return title, "\n\n".join(blocks) + "\n" if blocks else ""


def read_office(suffix: str, data: bytes) -> tuple[str, str]:
    """(title or "", text) of an office file by its suffix (one of OFFICE)."""
    return docx_text(data)
