"""Human decisions, each bound to the sha256 of exactly what was decided on.

A plan approval binds to the plan's content hash (recorded inside plan.json and in
run.json's decisions); a final sign-off binds to the final draft's bytes. An approval of
a stale version is refused, and `research validate` re-checks both bindings.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any

from harness.contract.formats import now_iso, plan_content_sha256
from harness.contract.layout import PLAN, by_number
from harness.contract.policy import HARNESS, HUMAN
from harness.contract.search import WEB, run_offers
from harness.contract.statuses import AWAITING_PLAN_APPROVAL, PASS
from harness.errors import ArtifactInvalid, Problem, UsageError
from harness.workspace.store import Workspace


def _decision(ws: Workspace, entry: dict[str, Any]) -> None:
    ws.update_manifest(lambda m: m["decisions"].append(entry))
    ws.trace(
        "decision",
        agent="human" if not entry["by"].startswith("auto") else "harness",
        decision=f"{entry['gate']}_{entry['decision']}",
        detail={k: entry[k] for k in ("by", "sha256", "feedback") if entry.get(k)},
    )


def plan_is_approved(ws: Workspace) -> bool:
    """Approved, bound to this content, and recorded as a decision in run.json (not just claimed in plan.json)."""
    plan = ws.read_json(PLAN, HARNESS)
    approval = plan.get("approval") or {}
    sha = plan_content_sha256(plan)
    if approval.get("decision") != "approved" or approval.get("plan_sha256") != sha:
        return False
    return any(
        d["gate"] == "plan" and d["decision"] in ("approved", "edited") and d["sha256"] == sha
        for d in ws.manifest["decisions"]
    )


def plan_rejection(ws: Workspace) -> dict[str, Any] | None:
    """The rejection recorded on this very plan (plan.json and run.json's decisions agree), if any: a plan
    rejected from another process (`research approve --plan --reject`) goes back to the Planner on resume."""
    plan = ws.read_json(PLAN, HARNESS)
    approval = plan.get("approval") or {}
    sha = plan_content_sha256(plan)
    if approval.get("decision") != "rejected" or approval.get("plan_sha256") != sha:
        return None
    recorded = any(
        d["gate"] == "plan" and d["decision"] == "rejected" and d["sha256"] == sha for d in ws.manifest["decisions"]
    )
    return approval if recorded else None


def strip_approval(rel: str, content: Any) -> Any:
    """Write transform for agents: a plan written by a model never carries an approval record."""
    if rel != PLAN:
        return content
    if isinstance(content, (str, bytes)):
        try:
            content = json.loads(content)
        except ValueError:
            return content  # the schema check reports it to the agent
    if isinstance(content, dict) and content.get("approval") is not None:
        content = {**content, "approval": None}
    return content


def edit_plan(ws: Workspace, new_text: str, by: str) -> str:
    """Replace plan.json with a human's edit (validated like any write); return the unified diff."""
    old = ws.read_text(PLAN, HARNESS)
    try:
        new_plan = json.loads(new_text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"plan.json (edited): not valid JSON: {exc.msg} at line {exc.lineno}") from None
    if isinstance(new_plan, dict):
        new_plan["approval"] = None
        _offered_only(ws, new_plan)
    ws.write(PLAN, new_plan, HUMAN)
    new = ws.read_text(PLAN, HARNESS)
    return "".join(
        difflib.unified_diff(old.splitlines(True), new.splitlines(True), "plan.json (before)", "plan.json (edited)")
    )


def _offered_only(ws: Workspace, plan: dict[str, Any]) -> None:
    """An edit may allow a question only the sources the run offers (`contract/search.run_offers`): not the web to a
    run whose web is off, nor a literature provider it does not search: no tool would ever search them."""
    offered = run_offers(ws.manifest.get("config") or {})
    questions = found if isinstance(found := plan.get("questions"), list) else []
    for n, q in enumerate(questions):
        if not isinstance(q, dict):
            continue
        for source in q.get("allowed_sources") or []:
            if source in offered or not isinstance(source, str) or source.startswith("mcp:"):
                continue
            where, allow = f"/questions/{n}/allowed_sources", f"allow {', '.join(offered)} only"
            if source == WEB:
                raise ArtifactInvalid([Problem(PLAN, where, "web-off", f"the web is off for this run; {allow}")])
            raise ArtifactInvalid(
                [Problem(PLAN, where, "not-searched", f"this run does not search {source} (--search); {allow}")]
            )


def decide_plan(ws: Workspace, decision: str, by: str, feedback: str | None = None, diff: str | None = None) -> str:
    """Record approve (or approve-after-edit) or reject on the current plan; return the plan hash decided on."""
    if decision not in ("approved", "edited", "rejected"):
        raise ValueError(decision)
    plan = ws.read_json(PLAN, HARNESS)
    sha = plan_content_sha256(plan)
    plan["approval"] = {
        "decision": "rejected" if decision == "rejected" else "approved",
        "by": by,
        "at": now_iso(),
        "plan_sha256": sha,
        "feedback": feedback,
        "edited": decision == "edited",
    }
    ws.write(PLAN, plan, HARNESS)
    _decision(
        ws,
        {
            "gate": "plan",
            "decision": decision,
            "by": by,
            "at": plan["approval"]["at"],
            "sha256": sha,
            "path": PLAN,
            "feedback": feedback,
            "diff": diff,
        },
    )
    return sha


def final_candidate(ws: Workspace) -> tuple[str, str] | None:
    """The draft awaiting sign-off: the newest draft whose review passed, with its current sha256."""
    manifest = ws.manifest
    for rel in reversed(by_number(p for p in manifest["artifacts"] if p.startswith("reviews/"))):
        review = ws.read_json(rel, HARNESS)
        if review.get("verdict") == PASS:
            sha = ws.sha256(review["draft"])  # None: the draft's file is gone, so there is nothing to sign off
            return None if sha is None else (review["draft"], sha)
    return None


def approve_final(ws: Workspace, version: str, by: str) -> str:
    """Sign off the final draft; refuse a version that is not the current draft's sha256."""
    candidate = final_candidate(ws)
    if candidate is None:
        raise UsageError(f"{ws.root}: no draft has passed review, so there is nothing to sign off")
    draft, sha = candidate
    if not version or not sha.startswith(version.lower()) or len(version) < 12:
        raise UsageError(
            f"--version {version}: stale or unknown version; {draft} is now {sha} (pass at least 12 hex digits)"
        )
    at = now_iso()
    ws.update_manifest(lambda m: m.__setitem__("final_approval", {"draft": draft, "sha256": sha, "by": by, "at": at}))
    _decision(
        ws,
        {
            "gate": "final",
            "decision": "approved",
            "by": by,
            "at": at,
            "sha256": sha,
            "path": draft,
            "feedback": None,
            "diff": None,
        },
    )
    return draft


def final_is_approved(ws: Workspace, draft: str) -> bool:
    approval = ws.manifest.get("final_approval") or {}
    return approval.get("draft") == draft and approval.get("sha256") == ws.sha256(draft)


def record_decision(
    run_dir: Path | str,
    *,
    plan: bool = False,
    plan_text: str | None = None,
    reject: str | None = None,
    final_version: str | None = None,
    by: str,
) -> str:
    """A human decision on a paused run, from another process (`research approve`, `harness.approve`).

    `plan=True` approves the pending plan (`plan_text`: an edited plan.json to approve instead;
    `reject`: reject it with this feedback); `final_version` signs off the passing draft whose
    sha256 starts with it. Returns one line saying what was recorded; refuses (UsageError) a
    run not waiting for that decision. `research resume` then continues the run.
    """
    if plan == (final_version is not None):
        raise UsageError("choose exactly one of --plan or --final")
    ws = Workspace.open(run_dir)
    ws.acquire_run_lock()
    try:
        if not plan:
            return f"{approve_final(ws, final_version or '', by)} signed off"
        if ws.status != AWAITING_PLAN_APPROVAL:
            raise UsageError(f"--plan: the run is {ws.status}, not awaiting plan approval")
        if reject is not None:
            decide_plan(ws, "rejected", by, feedback=reject or None)
            return "plan rejected"
        if plan_text is not None:
            diff = edit_plan(ws, plan_text, by)
            return f"plan edited and approved (sha256 {decide_plan(ws, 'edited', by, diff=diff)})"
        return f"plan approved (sha256 {decide_plan(ws, 'approved', by)})"
    finally:
        ws.release_run_lock()
