"""The parent graph's state: paths, ids, hashes and counters only — never document text."""

from __future__ import annotations

from typing import Annotated, TypedDict

from harness.contract.statuses import BranchStatus, RunStatus, Verdict


class BranchResult(TypedDict, total=False):
    """How one research branch (one plan question, one round) ended."""

    status: BranchStatus
    reason: str | None
    cards: list[str]  # ids of the evidence cards it wrote
    round: int
    budget_exhausted: bool  # the run's own budget cut it (a step's own limit ends it as completed or blocked)
    searched: list[str]  # source ids its searches returned (for duplicate counting at fan-in)


def merge_branches(old: dict[str, BranchResult] | None, new: dict[str, BranchResult] | None) -> dict[str, BranchResult]:
    """Reducer for parallel research branches: each branch reports under its own question id."""
    return {**(old or {}), **(new or {})}


class RunState(TypedDict, total=False):
    plan_sha: str  # content hash of the approved plan
    plan_feedback: str | None  # feedback from a rejected plan, for the Planner
    plan_rounds: int  # plan revisions so far
    todo: list[str]  # research question ids to (re)research this round
    round: int  # revise rounds done after the first draft
    branches: Annotated[dict[str, BranchResult], merge_branches]  # question id -> how its branch ended
    draft_no: int
    draft: str  # workspace path of the current draft
    draft_sha: str
    review: str  # workspace path of the current review
    verdict: Verdict
    review_routes: list[str]  # in a revise round: who the review's error defects go to (the graph routes on it)
    review_errors: int  # in a revise round: how many error defects the review has
    outcome: RunStatus  # the status the run ends with when a node stops it
    reason: str | None
    stopped_at: str  # the step the run's budget cut: where a resume with a larger budget goes on


class ResearchTask(TypedDict, total=False):
    """What `Send` hands one research branch."""

    qid: str
    round: int
    review: str | None  # in a revise round: the review whose defects sent the branch back
