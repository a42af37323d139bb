"""Markdown as the plain text a reader sees: what a corpus stores as a Markdown file's snapshot.

The snapshot is what every quote is checked against, so it must be the text a report can quote, not the
markup: link text is kept and link targets, reference definitions, images' addresses and HTML comments are
dropped (`[as discussed in Chapter 9][ch9]<!-- ignore -->` reads `as discussed in Chapter 9`); emphasis marks and
escapes go. Code stays code: an inline span keeps its backticks, a block keeps its lines, indented four spaces as
plain-text documentation shows it (so the sentence splitter and the offline engine read it as code, not prose).
Headings, paragraphs, list items and table rows each keep a line of their own, blocks are separated by a blank
line, and a list item keeps its mark (`- `, `1. `), a table its cells between ` | `.

Parsed by markdown-it-py (CommonMark, with tables and strikethrough), never by patterns over the text; only the
front matter, which CommonMark does not know, is cut off first (the title it names is read by `extract`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from markdown_it import MarkdownIt
from markdown_it.tree import SyntaxTreeNode

_PARSER = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
FRONT_MATTER = re.compile(r"\A---[ \t]*\n.*?\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.S)
CODE_INDENT = "    "  # a code block's lines, as plain-text documentation indents them

HtmlText = Callable[[str], str]  # an HTML block's readable text (extract.py hands its own HTML reader in)


def _inline(node: SyntaxTreeNode) -> str:
    """The text of an inline run: words, link and image text, code spans with their backticks; no markup."""
    out: list[str] = []
    for child in node.children:
        kind = child.type
        if kind == "text":
            out.append(child.content)
        elif kind in ("softbreak", "hardbreak"):
            out.append("\n")
        elif kind == "code_inline":
            tick = child.markup or "`"
            pad = " " if child.content.startswith("`") or child.content.endswith("`") else ""
            out.append(f"{tick}{pad}{child.content}{pad}{tick}")
        elif kind == "html_inline":
            if child.content.lower().startswith("<br"):
                out.append("\n")
            # other tags and comments are markup: the text between them is kept as text
        else:  # link, image (its alt text), emphasis, strong, strikethrough: their text
            out.append(_inline(child))
    return "".join(out)


def _indent(text: str, first: str, rest: str) -> str:
    lines = text.split("\n")
    return "\n".join([first + lines[0]] + [(rest + line) if line else line for line in lines[1:]])


def _list(node: SyntaxTreeNode, html_text: HtmlText) -> str:
    """A list, one item a line (a blank line between the items of a loose list), each after its mark."""
    ordered = node.type == "ordered_list"
    items = []
    for n, item in enumerate(node.children):
        mark = f"{item.info or n + 1}{item.markup or '.'} " if ordered else "- "
        body = "\n\n".join(b for b in (_block(c, html_text) for c in item.children) if b)
        if not any(c.type == "paragraph" and not c.hidden for c in item.children):
            body = body.replace("\n\n", "\n")  # a tight item: its paragraph and sub-list on lines of their own
        items.append(_indent(body, mark, " " * len(mark)))
    loose = any(c.type == "paragraph" and not c.hidden for item in node.children for c in item.children)
    return ("\n\n" if loose else "\n").join(items)


def _table(node: SyntaxTreeNode) -> str:
    """A table, one row a line, its cells between ` | `."""
    rows = []
    for part in node.children:  # thead, tbody
        for tr in part.children:
            rows.append(
                " | ".join(" ".join(_inline(cell.children[0]).split()) if cell.children else "" for cell in tr.children)
            )
    return "\n".join(row for row in rows if row.strip(" |"))


def _code(content: str) -> str:
    return "\n".join(CODE_INDENT + line if line.strip() else "" for line in content.rstrip("\n").split("\n"))


def _block(node: SyntaxTreeNode, html_text: HtmlText) -> str:
    kind = node.type
    if kind in ("paragraph", "heading"):
        return _inline(node.children[0]).strip() if node.children else ""
    if kind in ("bullet_list", "ordered_list"):
        return _list(node, html_text)
    if kind in ("fence", "code_block"):
        return _code(node.content)
    if kind == "table":
        return _table(node)
    if kind == "html_block":
        return "" if node.content.lstrip().startswith("<!--") else html_text(node.content).strip()
    if kind == "hr":
        return ""
    # root, blockquote: their blocks in order
    return "\n\n".join(b for b in (_block(c, html_text) for c in node.children) if b)


def markdown_to_text(source: str, html_text: HtmlText) -> str:
    """The readable text of a Markdown document (front matter cut off), ending with one newline ('' if none)."""
    body = FRONT_MATTER.sub("", source, count=1)
    text = _block(SyntaxTreeNode(_PARSER.parse(body)), html_text)
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    return text.strip("\n") + "\n" if text.strip() else ""


def inline_text(source: str) -> str:
    """One line of Markdown (a heading, a title) as text: `Using [Box<T>](url)` → `Using Box<T>`."""
    return " ".join(markdown_to_text(source, lambda html: "").split())
