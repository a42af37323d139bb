"""Helpers every section of the viewer page shares: badges, tables, links, times."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

from harness.contract.layout import card_path, snapshot_path
from harness.surfaces.viewer.markup import Markup, el

ASSETS = Path(__file__).parent.parent  # viewer.css and viewer.js

# ---- small helpers ---------------------------------------------------------------------


def _asset(name: str) -> str:
    return (ASSETS / name).read_text(encoding="utf-8")


def _csp_hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def embed_json(data: Any) -> str:
    """JSON safe inside a <script> element: no '<', '>' or '&' survive, so '</script>' cannot occur."""
    text = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def _cls(value: Any) -> str:
    return re.sub(r"[^a-z0-9_-]", "", str(value).lower()) or "none"


def badge(text: Any, kind: Any = None) -> Markup:
    return el("span", str(text).replace("_", " "), class_=f"badge b-{_cls(kind if kind is not None else text)}")


def _short(sha: Any) -> Markup:
    return el("code", str(sha)[:12] + "…", title=sha) if isinstance(sha, str) and sha else Markup("")


def _ts(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def _seconds(value: float | None) -> str:
    if value is None:
        return ""
    return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.1f} s" if value < 120 else f"{value / 60:.1f} min"


_SHA = re.compile(r"\b([0-9a-f]{12})[0-9a-f]{52}\b")


def _plain(value: Any) -> str:
    """A short text for any JSON value (trace details, refs); sha256 digests are shortened."""
    if value is None:
        return ""
    if isinstance(value, dict):
        return " · ".join(f"{k}: {_plain(v)}" for k, v in value.items() if v not in (None, "", [], {}))
    if isinstance(value, list):
        return ", ".join(_plain(v) for v in value)
    return _SHA.sub(r"\1…", str(value))


def _list(items: Iterable[Any], cls: str | None = None) -> Markup:
    items = [i for i in items if i not in (None, "")]
    return el("ul", [el("li", i) for i in items], class_=cls) if items else Markup("")


def _table(headers: list[str], rows: list[Markup], cls: str = "compact", id_: str | None = None) -> Markup:
    if not rows:
        return el("p", "none", class_="empty")
    return el(
        "div",
        el("table", el("thead", el("tr", [el("th", h) for h in headers])), el("tbody", rows), class_=cls, id=id_),
        class_="table-wrap",
    )


def _card_link(card_id: str, label: str | None = None) -> Markup:
    return el("a", label or card_id, href=card_path(card_id), class_="card-link")


def _source_link(source_id: str) -> Markup:
    return el("a", source_id, href=snapshot_path(source_id), class_="source-link")


def _claim_link(claim_id: str) -> Markup:
    return el("a", claim_id, href=f"#v-claim-{claim_id}", class_="claim-link")


def _section(id_: str, title: str, *body: Any, extra: Any = None) -> Markup:
    return el("section", el("h2", title, extra), *body, id=id_)
