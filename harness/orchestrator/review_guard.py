"""The review guard: whatever engine reviews, the deterministic defects stay in the review.

An LLM Reviewer may add defects (semantic ones the checks cannot see); it can never
drop a deterministic one or pass a draft that still has an error. The guard is applied
to the review content before the write goes through the workspace API.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from harness.contract.statuses import VERDICTS, strictest
from harness.evidence.checks import verdict_for


def _key(d: dict[str, Any]) -> tuple:
    refs = d.get("refs") or {}
    return (d.get("code"), (d.get("location") or {}).get("line"), tuple(sorted((k, tuple(v)) for k, v in refs.items())))


def merge_deterministic(
    review_rel: str, found: list[dict[str, Any]], draft: str, draft_sha: str
) -> Callable[[str, Any], Any]:
    """The transform for `review_rel`: deterministic defects merged in, verdict no laxer than they
    allow, and the review bound to the draft the brief named (not one the reviewer picked)."""

    def transform(rel: str, content: Any) -> Any:
        if rel != review_rel:
            return content
        if isinstance(content, (str, bytes)):
            try:
                content = json.loads(content)
            except ValueError:
                return content  # let the schema check report it to the agent
        if not isinstance(content, dict) or not isinstance(content.get("defects"), list):
            return content
        present = {_key(d) for d in content["defects"] if isinstance(d, dict)}
        merged = [d for d in content["defects"]] + [d for d in found if _key(d) not in present]
        computed = verdict_for([d for d in merged if isinstance(d, dict) and "severity" in d and "route" in d])
        claimed = content.get("verdict")
        verdict = strictest(claimed, computed) if claimed in VERDICTS else computed
        return {**content, "draft": draft, "draft_sha256": draft_sha, "defects": merged, "verdict": verdict}

    return transform
