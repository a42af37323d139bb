"""Whitespace normalization and hashing: how quotes are compared to source snapshots."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

_WS = re.compile(r"\s+")


def normalize_ws(text: str) -> str:
    """Collapse every run of whitespace to one space and strip the ends."""
    return _WS.sub(" ", text).strip()


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_text(text: str) -> str:
    return sha256_bytes(text.encode("utf-8"))


def dump_json(obj: Any) -> str:
    """The one JSON layout every artifact is written in (stable, human-readable)."""
    return json.dumps(obj, indent=2, ensure_ascii=False) + "\n"


def canonical_json(obj: Any) -> str:
    """Key-sorted compact JSON, for hashes that must not depend on layout."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def plan_content_sha256(plan: dict[str, Any]) -> str:
    """Hash of a plan without its approval record: what an approval binds to."""
    return sha256_text(canonical_json({k: v for k, v in plan.items() if k != "approval"}))


def quote_matches(text: str, quote: str, start: int, end: int) -> bool:
    """True when `quote` equals `text[start:end]` up to whitespace."""
    if not (0 <= start < end <= len(text)):
        return False
    return normalize_ws(text[start:end]) == normalize_ws(quote)


def find_quote(text: str, quote: str) -> tuple[int, int] | None:
    """Locate `quote` in `text` allowing any whitespace between its words; return the span."""
    words = normalize_ws(quote).split(" ")
    if not words or words == [""]:
        return None
    pattern = r"\s+".join(re.escape(w) for w in words)
    m = re.search(pattern, text)
    return (m.start(), m.end()) if m else None
