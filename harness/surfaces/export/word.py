"""The Word export: the export's HTML (the viewer's Markdown renderer) laid out with python-docx.

The HTML is walked once (headings, paragraphs, lists, block quotes, code, tables, emphasis and
links; nothing else occurs in it). Each anchor (`<a id>`) becomes a bookmark and each fragment link
(`#card-…`, `#c1`) an internal hyperlink to it, so every citation still opens its evidence entry
inside the document; web links stay web links. The core properties record the run
(`identifier` = run id, `subject` = the draft's path, `keywords` = its sha256).
"""

from __future__ import annotations

import io
from html.parser import HTMLParser

from docx import Document
from docx.opc.constants import RELATIONSHIP_TYPE
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from docx.shared import Pt

from harness.surfaces.export.content import GENERATOR, ExportContent

_BLOCKS = {"p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "th", "td"}


class _Walker(HTMLParser):
    _columns: int  # the widest table's columns: set before `feed`

    def __init__(self, doc):
        super().__init__(convert_charrefs=True)
        self.doc = doc
        self.para = None
        self.lists: list[str] = []
        self.quote = 0
        self.fmt: dict[str, int] = {"b": 0, "i": 0, "code": 0}
        self.link: str | None = None
        self.link_el = None
        self.table = None
        self.row = None
        self.cells: list = []
        self.bookmarks = 0

    # ---- blocks -------------------------------------------------------------------------

    def _new_para(self, tag: str):
        if self.table is not None and tag in ("th", "td"):
            cell = self.row.cells[len(self.cells)] if len(self.cells) < len(self.row.cells) else None
            if cell is None:
                return None
            self.cells.append(cell)
            return cell.paragraphs[0]
        if tag.startswith("h") and len(tag) == 2:
            return self.doc.add_heading(level=int(tag[1]))
        if tag == "li":
            style = "List Number" if self.lists and self.lists[-1] == "ol" else "List Bullet"
            depth = min(len(self.lists), 3)
            return self.doc.add_paragraph(style=style if depth == 1 else f"{style} {depth}")
        para = self.doc.add_paragraph(style="Quote" if self.quote else None)
        return para

    def handle_starttag(self, tag, attrs):
        """A tag opens a container (a list, quote, table or row), a block of text, or inline markup."""
        if tag in ("ul", "ol", "blockquote", "table", "tr"):
            self._open_container(tag)
        elif tag in _BLOCKS:
            self._open_block(tag)
        else:
            self._open_inline(tag, dict(attrs))

    def _open_container(self, tag: str) -> None:
        """A list or quote sets how the blocks inside it are styled; a table is added at its first row, so one
        without rows adds nothing (a row outside a table is ignored)."""
        if tag in ("ul", "ol"):
            self.lists.append(tag)
        elif tag == "blockquote":
            self.quote += 1
        elif tag == "table":
            self.table = "pending"
            self.rows: list[list[str]] = []
        elif self.table is not None:  # a row
            if self.table == "pending":
                self.table = self.doc.add_table(rows=0, cols=self._columns)
                self.table.style = "Table Grid"
            self.row = self.table.add_row()
            self.cells = []

    def _open_block(self, tag: str) -> None:
        """A block starts a paragraph (`_new_para`); a header cell's text is bold and a code block's monospaced
        until it ends."""
        if tag == "li" and self.para is not None:
            self.para = None
        self.para = self._new_para(tag)
        if tag == "th":
            self.fmt["b"] += 1
        if tag == "pre":
            self.fmt["code"] += 1

    def _open_inline(self, tag: str, a: dict) -> None:
        """Emphasis and code style the runs until they end; a rule and a line break are written; an anchor becomes a
        bookmark and a link makes its runs a hyperlink (`_link_text`)."""
        if tag in ("strong", "b"):
            self.fmt["b"] += 1
        elif tag in ("em", "i"):
            self.fmt["i"] += 1
        elif tag == "code":
            self.fmt["code"] += 1
        elif tag == "hr":
            self.doc.add_paragraph("―" * 12)
        elif tag == "br" and self.para is not None:
            self.para.add_run().add_break()
        elif tag == "a":
            if a.get("id"):
                self._bookmark(a["id"])
            if a.get("href"):
                self.link = a["href"]
                self.link_el = None

    def handle_endtag(self, tag):
        if tag in ("ul", "ol") and self.lists:
            self.lists.pop()
        elif tag == "blockquote":
            self.quote -= 1
        elif tag == "table":
            self.table = None
        elif tag in _BLOCKS:
            self.para = None
            if tag == "th":
                self.fmt["b"] -= 1
            if tag == "pre":
                self.fmt["code"] -= 1
        elif tag in ("strong", "b"):
            self.fmt["b"] -= 1
        elif tag in ("em", "i"):
            self.fmt["i"] -= 1
        elif tag == "code":
            self.fmt["code"] -= 1
        elif tag == "a":
            self.link = None
            self.link_el = None

    # ---- inline -------------------------------------------------------------------------

    def handle_data(self, data):
        if self.para is None:
            if not data.strip():
                return
            self.para = self._new_para("p") if self.table is None else None
            if self.para is None:
                return
        if self.link:
            self._link_text(data)
            return
        run = self.para.add_run(data)
        self._style(run)

    def _style(self, run):
        run.bold = bool(self.fmt["b"]) or None
        run.italic = bool(self.fmt["i"]) or None
        if self.fmt["code"]:
            run.font.name = "Courier New"
            run.font.size = Pt(9)

    def _link_text(self, data):
        if self.link_el is None:
            self.link_el = OxmlElement("w:hyperlink")
            if self.link.startswith("#"):
                self.link_el.set(qn("w:anchor"), self.link[1:])
            else:
                rid = self.para.part.relate_to(self.link, RELATIONSHIP_TYPE.HYPERLINK, is_external=True)
                self.link_el.set(qn("r:id"), rid)
            self.para._p.append(self.link_el)
        r = OxmlElement("w:r")
        rpr = OxmlElement("w:rPr")
        style = OxmlElement("w:rStyle")
        style.set(qn("w:val"), "Hyperlink")
        rpr.append(style)
        color = OxmlElement("w:color")
        color.set(qn("w:val"), "0645AD")
        rpr.append(color)
        underline = OxmlElement("w:u")
        underline.set(qn("w:val"), "single")
        rpr.append(underline)
        r.append(rpr)
        t = OxmlElement("w:t")
        t.set(qn("xml:space"), "preserve")
        t.text = data
        r.append(t)
        self.link_el.append(r)

    def _bookmark(self, name: str):
        if self.para is None:
            self.para = self._new_para("p")
        self.bookmarks += 1
        start = OxmlElement("w:bookmarkStart")
        start.set(qn("w:id"), str(self.bookmarks))
        start.set(qn("w:name"), name)
        end = OxmlElement("w:bookmarkEnd")
        end.set(qn("w:id"), str(self.bookmarks))
        self.para._p.append(start)
        self.para._p.append(end)


def _max_columns(html: str) -> int:
    """Tables in the report are simple pipe tables: the widest row gives the column count."""
    best = 1
    for row in html.split("<tr")[1:]:
        row = row.split("</tr>", 1)[0]
        best = max(best, row.count("<td") + row.count("<th"))
    return best


def render_docx(content: ExportContent) -> bytes:
    doc = Document()
    props = doc.core_properties
    p = content.provenance
    props.title = p.question
    props.identifier = p.run_id
    props.subject = p.draft
    props.keywords = p.draft_sha256
    props.comments = f"{GENERATOR}: run {p.run_id}, {p.draft} sha256 {p.draft_sha256}"
    props.author = GENERATOR
    props.language = p.language
    html = content.html_file()
    body = html.split("<article>", 1)[1].rsplit("</article>", 1)[0]
    walker = _Walker(doc)
    walker._columns = _max_columns(body)
    walker.feed(body)
    walker.close()
    buf = io.BytesIO()
    doc.save(buf)
    return buf.getvalue()


def docx_text(data: bytes) -> list[str]:
    """Every paragraph's text of a .docx, table cells included, in order (what the export check compares)."""
    doc = Document(io.BytesIO(data))
    out: list[str] = []
    for block in doc.element.body.iterchildren():
        if block.tag == qn("w:p"):
            out.append("".join(t.text or "" for t in block.iter(qn("w:t"))))
        elif block.tag == qn("w:tbl"):
            for tc in block.iter(qn("w:tc")):
                out.append("".join(t.text or "" for t in tc.iter(qn("w:t"))))
    return out


def docx_provenance(data: bytes) -> dict[str, str]:
    props = Document(io.BytesIO(data)).core_properties
    return {"run_id": props.identifier or "", "draft": props.subject or "", "draft_sha256": props.keywords or ""}
