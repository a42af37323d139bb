"""The byte-level formats every artifact shares: sha256 hashes, the JSON layout, timestamps, and the plan hash."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from typing import Any


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_text(text: str) -> str:
    return sha256_bytes(text.encode("utf-8"))


def dump_json(obj: Any) -> str:
    """The one JSON layout every artifact is written in (stable, human-readable); run.json uses `dump_manifest`."""
    return json.dumps(obj, indent=2, ensure_ascii=False) + "\n"


def canonical_json(obj: Any) -> str:
    """Key-sorted compact JSON, for hashes that must not depend on layout."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def plan_content_sha256(plan: dict[str, Any]) -> str:
    """Hash of a plan without its approval record: what an approval binds to."""
    return sha256_text(canonical_json({k: v for k, v in plan.items() if k != "approval"}))


def now_iso() -> str:
    """Current UTC time in the one format the schemas accept, e.g. 2026-11-30T01:02:03.123456Z."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def today() -> str:
    """Today's UTC date, e.g. 2026-12-01 (what the roles are told, so "latest" and "current" mean something)."""
    return datetime.now(UTC).strftime("%Y-%m-%d")
