"""Building HTML that is escaped by default.

Every piece of text the viewer shows comes from sources or models, so nothing is
trusted: `el()` escapes every plain string child and every attribute value, and only
`Markup` (HTML this package built itself) passes through unchanged. Link targets go
through `safe_href`, which keeps workspace-relative paths, fragments and http(s)/mailto
URLs and drops everything else (``javascript:``, ``data:``, ...).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable

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
