"""The review guard: whatever engine reviews, the deterministic defects stay in the review.

An LLM Reviewer may add defects (semantic ones the checks cannot see); it can never
drop a deterministic one or pass a draft that still has an error. The answer check's
verdicts (`evidence/answers.py`) go in the review's `answers` too; a model's own judgement
on a question is kept beside them (origin llm), never in their place. The guard is applied
to the review content before the write goes through the workspace API.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from harness.contract.statuses import VERDICTS, strictest
from harness.evidence.checks import verdict_for


def _key(d: dict[str, Any]) -> tuple:
    refs = d.get("refs") or {}
    return (d.get("code"), (d.get("location") or {}).get("line"), tuple(sorted((k, tuple(v)) for k, v in refs.items())))


def _answers(checked: list[dict[str, Any]], claimed: Any) -> list[dict[str, Any]]:
    """The check's verdicts, then each judgement the model gave (marked llm whatever it said it was)."""
    mine = [{**a, "origin": "deterministic"} for a in checked]
    theirs = [{**a, "origin": "llm"} for a in claimed if isinstance(a, dict)] if isinstance(claimed, list) else []
    return mine + theirs


def merge_deterministic(
    review_rel: str, found: list[dict[str, Any]], draft: str, draft_sha: str, answers: Sequence[dict[str, Any]] = ()
) -> Callable[[str, Any], Any]:
    """The transform for `review_rel`: deterministic defects merged in, verdict no laxer than they
    allow, the answer check's verdicts (`answers`: question_id, verdict, reason) beside any the model
    gave, and the review bound to the draft the brief named (not one the reviewer picked)."""

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
        return {
            **content,
            "draft": draft,
            "draft_sha256": draft_sha,
            "defects": merged,
            "verdict": verdict,
            "answers": _answers(list(answers), content.get("answers")),
        }

    return transform
