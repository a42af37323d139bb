"""Building HTML that is escaped by default, and Markdown rendered to it.

Every piece of text the viewer shows comes from sources or models, so nothing is
trusted: `el()` escapes every plain string child and every attribute value, and only
`Markup` (HTML this package built itself) passes through unchanged. Link targets go
through `safe_href`, which keeps workspace-relative paths, fragments and http(s)/mailto
URLs and drops everything else (``javascript:``, ``data:``, ...).

`render_markdown` (a report, for the viewer, `research serve` and the exports) and
`render_inline` (a claim's statement or a card's summary) are markdown-it-py's CommonMark with
pipe tables, raw HTML off (it shows as text) and images off (a link to the picture stays, as a
link). The one piece of HTML kept is the exact empty anchor the final report puts before each
evidence entry, ``<a id="c1"></a>``: an inline rule of its own (never the raw-HTML rule) turns it
into an anchor whose id gets `id_prefix`, and fragment links ``#c1`` get the same prefix, so a
report cannot clobber the page's own ids. Every link target goes through `safe_href`; one it
refuses becomes a ``<span class="unsafe-link">`` around the link's text.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

_VOID = frozenset({"br", "hr", "meta", "input", "col", "img"})
_ATTR_NAME = re.compile(r"[a-z][a-z0-9-]*")
_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*):")
_SAFE_SCHEMES = ("http", "https", "mailto")


class Markup(str):
    """A string of HTML this package built; everything else gets escaped."""


Child = str | int | float | Markup | None | Iterable


def escape(value: object) -> Markup:
    """`value` as text, with &, <, >, " and ' escaped; Markup passes through."""
    if isinstance(value, Markup):
        return value
    return Markup(html.escape(str(value), quote=True))


def join(parts: Iterable[Child], sep: str = "") -> Markup:
    return Markup(escape(sep).join(_render_child(p) for p in parts))


def _render_child(child: Child) -> Markup:
    if child is None or child is False:
        return Markup("")
    if isinstance(child, (str, int, float)):
        return escape(child)
    return join(child)


def el(tag: str, *children: Child, **attrs: object) -> Markup:
    """<tag attrs>children</tag>; attribute names use '_' for '-' and a trailing '_' for keywords (class_)."""
    parts = [tag]
    for key, value in attrs.items():
        if value is None or value is False:
            continue
        name = key.rstrip("_").replace("_", "-")
        if not _ATTR_NAME.fullmatch(name) or name.startswith("on"):
            raise ValueError(f"refusing attribute name {key!r}")
        if name in ("href", "src") and not isinstance(value, Markup):
            value = safe_href(str(value))
            if value is None:
                continue
        parts.append(name if value is True else f'{name}="{escape(value)}"')
    opening = "<" + " ".join(parts) + ">"
    if tag in _VOID:
        return Markup(opening)
    return Markup(opening + join(children) + f"</{tag}>")


def safe_href(url: str) -> str | None:
    """`url` if it is safe to link to from the viewer, else None."""
    url = url.strip()
    if not url or any(ord(c) < 32 for c in url):
        return None
    m = _SCHEME.match(url)
    if m:
        return url if m.group(1).lower() in _SAFE_SCHEMES else None
    if url.replace("\\", "/").startswith("//"):
        return None  # protocol-relative, a backslash read as a slash as browsers do: would leave the run
    return url


def is_external(url: str) -> bool:
    return bool(_SCHEME.match(url))


# ---- Markdown -----------------------------------------------------------------------------

_ANCHOR = re.compile(r'<a id="([A-Za-z][A-Za-z0-9_-]{0,63})"></a>')
_LANG = re.compile(r"[\w+-]{1,30}")
_PREFIX = "id_prefix"  # the env key of the prefix given to the report's anchors and fragment links
_LINKS = "links"  # the env key of the open links' closing tags (an unsafe target opens a span, not an a)


def render_markdown(text: str, id_prefix: str = "md-") -> Markup:
    """`text` (Markdown) as escaped HTML."""
    return Markup(_MD.render(text, {_PREFIX: id_prefix, _LINKS: []}).rstrip("\n"))


def render_inline(text: str, id_prefix: str = "md-") -> Markup:
    """One line of `text` with its inline Markdown (code, emphasis, links) as escaped HTML, no block around it: a
    claim's statement or a card's summary, which quote documentation written in Markdown."""
    return Markup(_MD.renderInline(" ".join(text.split()), {_PREFIX: id_prefix, _LINKS: []}))


def _report_anchor(state: StateInline, silent: bool) -> bool:
    """The inline rule for ``<a id="c1"></a>``, exactly that form (any other HTML stays text)."""
    m = _ANCHOR.match(state.src, state.pos) if state.src.startswith("<a ", state.pos) else None
    if m is None:
        return False
    if not silent:
        state.push("report_anchor", "a", 0).meta = {"id": m.group(1)}
    state.pos = m.end()
    return True


def _render_anchor(self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    return el("a", id=env[_PREFIX] + tokens[idx].meta["id"].lower(), class_="anchor")


def _render_link_open(self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    href = safe_href(str(tokens[idx].attrGet("href") or ""))
    if href is None:
        env[_LINKS].append("</span>")
        return '<span class="unsafe-link" title="link removed: unsafe target">'
    env[_LINKS].append("</a>")
    if href.startswith("#"):
        href = "#" + env[_PREFIX] + href[1:].lower()
    attrs: dict[str, Any] = {"href": href}
    if is_external(href):
        attrs |= {"rel": "noopener noreferrer", "target": "_blank"}
    return el("a", **attrs).removesuffix("</a>")


def _render_link_close(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    return env[_LINKS].pop() if env[_LINKS] else ""


def _render_cell(self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    """A table cell: its column's alignment as a class (the viewer's CSP allows no style attribute)."""
    token = tokens[idx]
    align = str(token.attrGet("style") or "").removeprefix("text-align:")
    return el(token.tag, class_=f"align-{align}" if align else None).removesuffix(f"</{token.tag}>")


def _render_fence(self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    token = tokens[idx]
    lang = token.info.strip().split(" ")[0]
    return el("pre", el("code", token.content, class_=f"language-{lang}" if _LANG.fullmatch(lang) else None)) + "\n"


def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "xhtmlOut": False}).enable("table").disable("image")
    md.validateLink = lambda url: True  # type: ignore[method-assign]  # every target is judged by safe_href instead
    md.inline.ruler.before("autolink", "report_anchor", _report_anchor)
    for name, rule in (
        ("report_anchor", _render_anchor),
        ("link_open", _render_link_open),
        ("link_close", _render_link_close),
        ("th_open", _render_cell),
        ("td_open", _render_cell),
        ("fence", _render_fence),
    ):
        md.add_render_rule(name, rule)
    return md


_MD = _markdown()
