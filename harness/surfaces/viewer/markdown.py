"""A small Markdown renderer for what the harness's drafts and reports contain.

Blocks: ATX headings, paragraphs, bullet and numbered lists (nested by indentation),
block quotes, fenced code, thematic breaks and pipe tables. Inlines: emphasis, strong,
inline code, links, autolinks and backslash escapes. Raw HTML is never passed through:
it is shown as text. The one exception is the empty anchor the final report puts before
each evidence entry, ``<a id="c1"></a>``, which becomes an anchor whose id is given
`id_prefix` (fragment links ``#c1`` get the same prefix, so a report cannot clobber the
page's own ids). Link targets go through `markup.safe_href`.
"""

from __future__ import annotations

import re

from harness.surfaces.viewer.markup import Markup, el, escape, is_external, join, safe_href

_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_HR = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_LIST_ITEM = re.compile(r"^( *)([-*+]|\d{1,9}[.)])(?:[ \t]+(.*))?$")
_QUOTE = re.compile(r"^ {0,3}> ?(.*)$")
_TABLE_DELIM = re.compile(r"^ *\|?(?: *:?-+:? *\|)* *:?-+:? *\|? *$")
_ANCHOR = re.compile(r'<a id="([A-Za-z][A-Za-z0-9_-]{0,63})"></a>')
_AUTOLINK = re.compile(r"<((?:https?|mailto):[^\s<>]+)>")
_PUNCT = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_WORD = re.compile(r"\w")


def render_markdown(text: str, id_prefix: str = "md-") -> Markup:
    """`text` as escaped HTML."""
    return _Renderer(id_prefix).blocks(text.replace("\r\n", "\n").replace("\t", "    ").split("\n"))


def render_inline(text: str, id_prefix: str = "md-") -> Markup:
    """One line of `text` with its inline Markdown (code, emphasis, links) as escaped HTML, no block around it: a
    claim's statement or a card's summary, which quote documentation written in Markdown."""
    return _Renderer(id_prefix).inline(" ".join(text.split()))


def _is_blank(line: str) -> bool:
    return not line.strip()


def _starts_block(line: str) -> bool:
    """Lines that end a paragraph without a blank line before them."""
    return bool(
        _HEADING.match(line)
        or _HR.match(line)
        or _FENCE.match(line)
        or _QUOTE.match(line)
        or (item := _LIST_ITEM.match(line))
        and (item.group(3) or "").strip()
    )


def _split_row(line: str) -> list[str]:
    """The cells of a pipe-table row; '|' inside code spans or escaped with '\\' does not split."""
    line = line.strip()
    if line.startswith("|"):
        line = line[1:]
    if line.endswith("|") and not line.endswith("\\|"):
        line = line[:-1]
    cells, buf, i, in_code = [], [], 0, 0
    while i < len(line):
        c = line[i]
        if c == "\\" and i + 1 < len(line) and line[i + 1] == "|":
            buf.append("|")
            i += 2
            continue
        if c == "`":
            run = len(line[i:]) - len(line[i:].lstrip("`"))
            in_code = 0 if in_code == run else (run if not in_code else in_code)
            buf.append("`" * run)
            i += run
            continue
        if c == "|" and not in_code:
            cells.append("".join(buf).strip())
            buf = []
        else:
            buf.append(c)
        i += 1
    cells.append("".join(buf).strip())
    return cells


class _Renderer:
    def __init__(self, id_prefix: str):
        self.id_prefix = id_prefix

    # ---- blocks -------------------------------------------------------------------

    def blocks(self, lines: list[str]) -> Markup:
        out: list[Markup] = []
        i = 0
        while i < len(lines):
            line = lines[i]
            if _is_blank(line):
                i += 1
            elif m := _FENCE.match(line):
                i = self._fence(lines, i, m, out)
            elif m := _HEADING.match(line):
                level = len(m.group(1))
                out.append(el(f"h{level}", self.inline(m.group(2) or "")))
                i += 1
            elif _HR.match(line):
                out.append(el("hr"))
                i += 1
            elif _QUOTE.match(line):
                i = self._quote(lines, i, out)
            elif _LIST_ITEM.match(line):
                i = self._list(lines, i, out)
            elif (
                line.lstrip().startswith("|")
                and i + 1 < len(lines)
                and _TABLE_DELIM.match(lines[i + 1])
                and "-" in lines[i + 1]
            ):
                i = self._table(lines, i, out)
            else:
                i = self._paragraph(lines, i, out)
        return join(out, "\n")

    def _fence(self, lines: list[str], i: int, m: re.Match, out: list[Markup]) -> int:
        fence = m.group(1)
        lang = m.group(2).strip().split(" ")[0]
        body = []
        i += 1
        while i < len(lines) and not (
            lines[i].strip().startswith(fence[0] * len(fence)) and not lines[i].strip().strip(fence[0])
        ):
            body.append(lines[i])
            i += 1
        code = el("code", "\n".join(body), class_=f"language-{lang}" if re.fullmatch(r"[\w+-]{1,30}", lang) else None)
        out.append(el("pre", code))
        return i + 1

    def _quote(self, lines: list[str], i: int, out: list[Markup]) -> int:
        inner = []
        while i < len(lines) and (m := _QUOTE.match(lines[i])):
            inner.append(m.group(1))
            i += 1
        out.append(el("blockquote", self.blocks(inner)))
        return i

    def _paragraph(self, lines: list[str], i: int, out: list[Markup]) -> int:
        para = [lines[i].strip()]
        i += 1
        while i < len(lines) and not _is_blank(lines[i]) and not _starts_block(lines[i]):
            para.append(lines[i].strip())
            i += 1
        out.append(el("p", self.inline("\n".join(para))))
        return i

    def _list(self, lines: list[str], i: int, out: list[Markup]) -> int:
        first = _LIST_ITEM.match(lines[i])
        assert first is not None  # called on a list item's line
        base = len(first.group(1))
        ordered = first.group(2)[0].isdigit()
        items: list[list[str]] = []
        loose = False
        while i < len(lines):
            line = lines[i]
            m = _LIST_ITEM.match(line)
            if m and len(m.group(1)) == base and m.group(2)[0].isdigit() == ordered:
                content_indent = len(line) - len(m.group(3) or "") if m.group(3) else base + len(m.group(2)) + 1
                items.append([m.group(3) or ""])
                i += 1
                while i < len(lines):
                    nxt = lines[i]
                    if _is_blank(nxt):
                        # a blank line continues the item only if indented content follows
                        if (
                            i + 1 < len(lines)
                            and len(lines[i + 1]) - len(lines[i + 1].lstrip(" ")) > base
                            and not _is_blank(lines[i + 1])
                        ):
                            loose = True
                            items[-1].append("")
                            i += 1
                            continue
                        break
                    indent = len(nxt) - len(nxt.lstrip(" "))
                    if indent > base:
                        items[-1].append(nxt[min(indent, content_indent) :])
                    elif _starts_block(nxt) or _TABLE_DELIM.match(nxt):
                        break
                    else:  # lazy continuation of the item's paragraph
                        items[-1].append(nxt.strip())
                    i += 1
                if i < len(lines) and _is_blank(lines[i]) and i + 1 < len(lines):
                    m2 = _LIST_ITEM.match(lines[i + 1])
                    if m2 and len(m2.group(1)) == base and m2.group(2)[0].isdigit() == ordered:
                        loose = True
                        i += 1
            else:
                break
        rendered = []
        for item in items:
            body = self.blocks(item)
            if not loose and body.startswith("<p>") and body.count("<p>") == 1:
                body = Markup(body.replace("<p>", "", 1).replace("</p>", "", 1))
            rendered.append(el("li", body))
        start = None
        if ordered:
            digits = re.match(r"\d+", first.group(2))
            assert digits is not None  # an ordered item's marker starts with its number
            number = int(digits.group())
            start = number if number != 1 else None
        out.append(el("ol" if ordered else "ul", join(rendered, "\n"), start=start))
        return i

    def _table(self, lines: list[str], i: int, out: list[Markup]) -> int:
        header = _split_row(lines[i])
        aligns = []
        for cell in _split_row(lines[i + 1]):
            left, right = cell.startswith(":"), cell.endswith(":")
            aligns.append("center" if left and right else "right" if right else "left" if left else None)
        i += 2
        rows = []
        while i < len(lines) and not _is_blank(lines[i]) and "|" in lines[i]:
            rows.append(_split_row(lines[i]))
            i += 1

        def cells(tag: str, values: list[str]) -> Markup:
            values = (values + [""] * len(header))[: len(header)]
            return el(
                "tr",
                [
                    el(tag, self.inline(v), class_=f"align-{a}" if a else None)
                    for v, a in zip(values, aligns + [None] * len(header))
                ],
            )

        out.append(el("table", el("thead", cells("th", header)), el("tbody", [cells("td", r) for r in rows])))
        return i

    # ---- inlines ------------------------------------------------------------------

    def inline(self, text: str) -> Markup:
        out: list[Markup] = []
        buf: list[str] = []

        def flush() -> None:
            if buf:
                out.append(escape("".join(buf)))
                buf.clear()

        i, n = 0, len(text)
        while i < n:
            c = text[i]
            if c == "\\" and i + 1 < n and text[i + 1] in _PUNCT:
                buf.append(text[i + 1])
                i += 2
                continue
            if c == "\n":
                flush()
                out.append(Markup("\n"))
                i += 1
                continue
            if c == "`":
                run = len(text[i:]) - len(text[i:].lstrip("`"))
                close = self._find_backticks(text, i + run, run)
                if close is None:
                    buf.append("`" * run)
                    i += run
                    continue
                code = text[i + run : close].replace("\n", " ")
                if code.startswith(" ") and code.endswith(" ") and code.strip():
                    code = code[1:-1]
                flush()
                out.append(el("code", code))
                i = close + run
                continue
            if c == "[":
                link = self._link(text, i)
                if link is not None:
                    flush()
                    out.append(link[0])
                    i = link[1]
                    continue
            if c == "<":
                if m := _ANCHOR.match(text, i):
                    flush()
                    out.append(el("a", id=self.id_prefix + m.group(1).lower(), class_="anchor"))
                    i = m.end()
                    continue
                if m := _AUTOLINK.match(text, i):
                    flush()
                    out.append(self._a(m.group(1), escape(m.group(1))))
                    i = m.end()
                    continue
            if c in "*_":
                emph = self._emphasis(text, i)
                if emph is not None:
                    flush()
                    out.append(emph[0])
                    i = emph[1]
                    continue
            buf.append(c)
            i += 1
        flush()
        return join(out)

    @staticmethod
    def _find_backticks(text: str, start: int, run: int) -> int | None:
        j = start
        while (j := text.find("`" * run, j)) != -1:
            end = j + run
            if (j == 0 or text[j - 1] != "`") and (end >= len(text) or text[end] != "`"):
                return j
            j = end
            while j < len(text) and text[j] == "`":
                j += 1
        return None

    def _link(self, text: str, i: int) -> tuple[Markup, int] | None:
        """[label](target "title") starting at text[i] == '['; None if it is not a link."""
        depth, j = 0, i
        while j < len(text):
            c = text[j]
            if c == "\\":
                j += 2
                continue
            if c == "`":
                run = len(text[j:]) - len(text[j:].lstrip("`"))
                close = self._find_backticks(text, j + run, run)
                j = (close + run) if close is not None else j + run
                continue
            if c == "[":
                depth += 1
            elif c == "]":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        else:
            return None
        m = re.compile(r"\(\s*<?([^\s()<>]*)>?(?:\s+\"[^\"]*\")?\s*\)").match(text, j + 1)
        if m is None:
            return None
        label = self.inline(text[i + 1 : j])
        return self._a(m.group(1), label), m.end()

    def _a(self, target: str, label: Markup) -> Markup:
        href = safe_href(target)
        if href is None:
            return el("span", label, class_="unsafe-link", title="link removed: unsafe target")
        if href.startswith("#"):
            href = "#" + self.id_prefix + href[1:].lower()
        if is_external(href):
            return el("a", label, href=href, rel="noopener noreferrer", target="_blank")
        return el("a", label, href=href)

    def _emphasis(self, text: str, i: int) -> tuple[Markup, int] | None:
        """*em*, **strong**, _em_ or __strong__ at text[i]; underscores only at word boundaries."""
        c = text[i]
        run = min(len(text[i:]) - len(text[i:].lstrip(c)), 3)
        if run == 3:
            run = 2
        opener_end = i + run
        if opener_end >= len(text) or text[opener_end].isspace():
            return None
        if c == "_" and i > 0 and _WORD.match(text[i - 1]):
            return None
        delim = c * run
        j = opener_end + 1
        while (j := text.find(delim, j)) != -1:
            before_ok = not text[j - 1].isspace()
            after = j + run
            single_ok = run == 2 or (after >= len(text) or text[after] != c) and text[j - 1] != c
            word_ok = c != "_" or after >= len(text) or not _WORD.match(text[after])
            if before_ok and single_ok and word_ok:
                inner = self.inline(text[opener_end:j])
                return el("strong" if run == 2 else "em", inner), after
            j += run if run == 2 else 1
            while run == 1 and j < len(text) and text[j] == c:
                j += 1
        return None
