"""The parent graph's state: paths, ids, hashes and counters only — never document text."""

from __future__ import annotations

from typing import Annotated, Any, TypedDict


def merge_branches(old: dict[str, dict] | None, new: dict[str, dict] | None) -> dict[str, dict]:
    """Reducer for parallel research branches: each branch reports under its own question id."""
    return {**(old or {}), **(new or {})}


class RunState(TypedDict, total=False):
    plan_sha: str  # content hash of the approved plan
    plan_feedback: str | None  # feedback from a rejected plan, for the Planner
    plan_rounds: int  # plan revisions so far
    todo: list[str]  # research question ids to (re)research this round
    round: int  # revise rounds done after the first draft
    branches: Annotated[dict[str, dict[str, Any]], merge_branches]  # question id -> outcome, card and source ids
    draft_no: int
    draft: str  # workspace path of the current draft
    draft_sha: str
    review: str  # workspace path of the current review
    verdict: str
    next: str  # where the revise loop goes: research, analyze, write
    outcome: str  # terminal status when the run stops early
    reason: str | None
