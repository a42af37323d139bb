"""The parent's nodes: each reads the workspace, delegates one step, and returns small state updates.

Read top to bottom, this is the whole pipeline: plan → approve → research (one branch
per question, in parallel) → fan-in → analyze → write → review → revise or finalize.
Which node runs next is decided in `graph.py`, from what these return; a node only says
that the run must stop (`outcome`) and why.
"""

from __future__ import annotations

import json
from typing import Any

from langgraph.types import interrupt

from harness.contract.formats import plan_content_sha256
from harness.contract.layout import (
    CARDS,
    CLAIMS,
    FINAL_REPORT,
    METRICS,
    PLAN,
    SOURCE_RECORDS,
    draft_path,
    id_of,
    question_cards,
    review_path,
)
from harness.contract.policy import HARNESS
from harness.contract.search import offered_sources
from harness.contract.statuses import (
    ANALYZING,
    AWAITING_FINAL_APPROVAL,
    AWAITING_PLAN_APPROVAL,
    BLOCKED,
    BRANCH_BROKEN,
    BRANCH_STATUSES,
    BRANCH_WITHOUT_EVIDENCE,
    BUDGET_EXHAUSTED,
    COMPLETED,
    FAILED,
    INTERRUPTED,
    NEEDS_HUMAN,
    OUTCOME_BROKEN,
    OUTCOME_CUT,
    PLANNING,
    REJECTED,
    RESEARCHING,
    REVIEWING,
    REVISE,
    WRITING,
    BranchStatus,
    RunStatus,
)
from harness.evidence.answers import answer_records, answer_verdicts
from harness.evidence.checks import describe_defect, draft_defects, verdict_for
from harness.evidence.metrics import compute_metrics
from harness.evidence.report import render_report
from harness.orchestrator import approvals, followup
from harness.orchestrator.briefs import (
    analyst_material,
    planner_material,
    researcher_material,
    reviewer_material,
    writer_material,
)
from harness.orchestrator.config import literature_providers
from harness.orchestrator.delegate import Outcome, delegate
from harness.orchestrator.live_run import LiveRun
from harness.orchestrator.review_guard import merge_deterministic
from harness.orchestrator.state import BranchResult, ResearchTask, RunState
from harness.runtime.interface import Brief

_NODE_OF = {"planner": "plan", "analyst": "analyze", "writer": "write", "reviewer": "review"}


def _official_sites(cfg) -> dict[str, Any]:
    """The web domains research.yaml counts as primary (`sources.primary_domains`), for the Planner to carry into the
    plan's `primary_domains` (where the approval binds them); nothing when the web is off or none is configured."""
    official = [d.lower().strip(".") for d in cfg.sources.get("primary_domains") or ()] if cfg.web else []
    return {"primary_domains": official} if official else {}


def _unless_blocked(outcome: Outcome) -> str:
    """How the run ends when a step wrote nothing: needs_human when the role said it cannot do it (BLOCKED, or a
    prompt that no longer fits its model's context window: a person, or a larger model, can), else failed."""
    return NEEDS_HUMAN if outcome.status == BLOCKED else FAILED


def _branch_marker(qid: str, rnd: int) -> str:
    """The private file listing a research branch's cards when it started (see `_clean_interrupted_branch`)."""
    return f"branches/{qid}-r{rnd}.json"


class Pipeline:
    def __init__(self, run: LiveRun):
        self.run = run
        self.ws = run.workspace

    # ---- helpers -----------------------------------------------------------------

    def _status(self, status: RunStatus, reason: str | None = None) -> None:
        """Set the run's status (a no-op when unchanged and without a reason) and tell the progress display."""
        if self.ws.status != status or reason:
            self.ws.set_status(status, reason)
        self.run.emit("status", status=status, reason=reason)

    def _plan(self) -> dict[str, Any]:
        return self.ws.read_json(PLAN, HARNESS)

    @staticmethod
    def _stop_on_failure(outcome: Outcome, step: str) -> dict[str, Any] | None:
        """The state update that ends the run when a step ran out of the run's budget or was cut by a provider
        outage (both resumable at that step), failed or timed out; else None."""
        if outcome.status in OUTCOME_CUT:
            return {"outcome": outcome.status, "reason": f"{step}: {outcome.reason}", "stopped_at": _NODE_OF[step]}
        if outcome.status in OUTCOME_BROKEN:
            return {
                "outcome": FAILED if outcome.status == FAILED else NEEDS_HUMAN,
                "reason": f"{step}: {outcome.reason}",
            }
        return None

    # ---- plan ------------------------------------------------------------------------

    def plan(self, state: RunState) -> dict[str, Any]:
        self._status(PLANNING)
        feedback = state.get("plan_feedback")
        brief = Brief(
            "planner",
            task=f"Write the research plan for this question: {self.run.config.question}",
            inputs=(PLAN,) if feedback else (),
            outputs=(PLAN,),
            feedback=feedback,
            facts={
                "question": self.run.config.question,
                "web": "on" if self.run.config.web else "off",
                "sources": ", ".join(offered_sources(self.run.config.web, literature_providers(self.run.config))),
                **_official_sites(self.run.config),
                **followup.planner_facts(self.ws.manifest.get("parent")),
            },
            material=planner_material(
                self.run.tools.index.corpus if self.run.tools and self.run.tools.index else None,
                self.run.config.web,
                self.run.mcp.tools() if self.run.mcp else (),
                literature_providers(self.run.config),
            ),
        )
        outcome = delegate(
            self.run,
            brief,
            delegation_id=f"planner-{state.get('plan_rounds', 0) + 1}",
            transforms=[approvals.strip_approval],
        )
        stop = self._stop_on_failure(outcome, "planner")
        if stop or not self.ws.exists(PLAN):
            return stop or {
                "outcome": _unless_blocked(outcome),
                "reason": f"planner wrote no plan ({outcome.reason or outcome.summary})",
            }
        return {"plan_feedback": None, "plan_rounds": state.get("plan_rounds", 0) + 1, "outcome": None}

    def approve_plan(self, state: RunState) -> dict[str, Any]:
        if state.get("outcome"):
            return {}
        if approvals.plan_is_approved(self.ws):  # e.g. approved with `research approve` from another process
            return self._plan_approved()
        rejection = approvals.plan_rejection(self.ws)
        if rejection is not None:  # rejected with `research approve --plan --reject` (or `research serve`)
            return self._plan_rejected(rejection.get("feedback"))
        if self.run.config.yes:
            approvals.decide_plan(self.ws, "approved", "auto (--yes)")
            return self._plan_approved()
        self._status(AWAITING_PLAN_APPROVAL)
        plan = self._plan()
        answer = interrupt({"gate": "plan", "path": PLAN, "plan_sha256": plan_content_sha256(plan)})
        decision = answer.get("decision")
        by = answer.get("by") or "human"
        if decision in ("approve", "edit"):
            if decision == "edit" and answer.get("plan_text") is not None:
                diff = approvals.edit_plan(self.ws, answer["plan_text"], by)
                approvals.decide_plan(self.ws, "edited", by, diff=diff)
            else:
                approvals.decide_plan(self.ws, "approved", by)
            return self._plan_approved()
        feedback = (answer.get("feedback") or "").strip() or None
        approvals.decide_plan(self.ws, "rejected", by, feedback=feedback)
        return self._plan_rejected(feedback)

    def _plan_rejected(self, feedback: str | None) -> dict[str, Any]:
        if feedback:  # the Planner refines it, while the graph's plan-round bound allows (else `stop` says why)
            return {"plan_feedback": feedback}
        return {"outcome": REJECTED, "reason": "the plan was rejected"}

    def _plan_approved(self) -> dict[str, Any]:
        plan = self._plan()
        todo = [q["id"] for q in plan["questions"] if q["kind"] == "research"]
        if parent := self.ws.manifest.get("parent"):  # a follow-up researches only what its parent's cards leave open
            carried = followup.carry_cards(self.ws, parent, set(todo), self.run.config.roles["researcher"].spec.policy)
            todo = [qid for qid in todo if qid not in carried]
        return {"plan_sha": plan_content_sha256(plan), "todo": todo, "round": 0, "draft_no": 0, "branches": {}}

    # ---- research: one branch per question, in parallel (the graph sends one per question) ----------

    def start_research(self) -> None:
        self._status(RESEARCHING)

    def research(self, task: ResearchTask) -> dict[str, Any]:
        qid, rnd = task["qid"], task["round"]
        self._clean_interrupted_branch(qid, rnd)
        plan = self._plan()
        question = next(q for q in plan["questions"] if q["id"] == qid)
        brief = Brief(
            "researcher",
            task=f"Research {qid}: {question['text']}",
            inputs=(PLAN,),
            outputs=(question_cards(qid),),
            question_id=qid,
            facts={
                "search_terms": ", ".join(question.get("search_terms", [])) or "(none)",
                "allowed_sources": ", ".join(question.get("allowed_sources") or ["corpus"]),
            },
            material=researcher_material(
                self.ws.reader(), qid, self._defects_for(task.get("review"), "researcher", qid)
            ),
        )
        outcome = delegate(self.run, brief, delegation_id=f"researcher-{qid}-r{rnd}")
        cards = sorted(id_of(p) for p in outcome.outputs if p.startswith("source-cards/"))
        # A branch keeps its delegation's outcome; any other (the run's budget cut it: flagged below) is failed.
        status: BranchStatus = outcome.status if outcome.status in BRANCH_STATUSES else FAILED
        reason = outcome.reason
        if status == COMPLETED and not cards:  # "done" with nothing written is no evidence
            status, reason = BLOCKED, f"no_evidence: the researcher wrote no evidence cards ({outcome.summary[:120]})"
        earlier = sorted(id_of(p) for p in self.ws.list(question_cards(qid), HARNESS) if id_of(p) not in cards)
        if rnd and status == BLOCKED and earlier:
            # Researched again (the answer check sent it back) and found nothing new: the evidence of the
            # earlier round stands, and so does the branch.
            status, reason, cards = COMPLETED, f"researched again, nothing new: {reason}", sorted(earlier + cards)
        self.ws.remove_private(_branch_marker(qid, rnd))
        result = BranchResult(
            status=status,
            reason=reason,
            cards=cards,
            round=rnd,
            budget_exhausted=outcome.status == BUDGET_EXHAUSTED,
            interrupted=outcome.status == INTERRUPTED,
            searched=sorted(self.run.tools.searched(qid)) if self.run.tools else [],
        )
        return {"branches": {qid: result}}

    def _clean_interrupted_branch(self, qid: str, rnd: int) -> None:
        """If an earlier attempt of this branch was killed, drop the cards it left, so a re-run duplicates nothing."""
        marker = _branch_marker(qid, rnd)
        existing = self.ws.list(question_cards(qid), HARNESS)
        baseline = self.ws.read_private(marker)
        if baseline is not None:
            for rel in set(existing) - set(json.loads(baseline)):
                self.ws.remove(rel, self.run.config.roles["researcher"].spec.policy)
        else:  # written atomically, so a kill while writing it never leaves an unreadable marker
            self.ws.write_private(marker, json.dumps(existing).encode("utf-8"))

    def fan_in(self, state: RunState) -> dict[str, Any]:
        branches = state.get("branches", {})
        plan = self._plan()
        # A source reached by several branches is registered once; each extra branch hit is a duplicate.
        hits = sum(len(b.get("searched", [])) for b in branches.values())
        distinct = len(set().union(*(set(b.get("searched", [])) for b in branches.values()))) if branches else 0

        def record(m: dict[str, Any]) -> None:
            for qid, b in branches.items():
                m["branches"][qid] = {
                    "status": b["status"],
                    "reason": b.get("reason"),
                    "cards": len(b.get("cards", [])),
                }
            m["stats"]["source_hits"] = hits
            m["stats"]["duplicate_sources"] = hits - distinct

        self.ws.update_manifest(record)
        self.ws.trace(
            "decision",
            agent="harness",
            decision="fan_in",
            detail={
                "branches": {q: b["status"] for q, b in branches.items()},
                "source_hits": hits,
                "duplicates": hits - distinct,
            },
        )
        rnd = state.get("round", 0)
        # Only the run's own budget stops the run (a branch that ran out of its own ended with what it had);
        # the branches it cut are the ones a resume with a larger budget runs again.
        # A provider outage cuts branches the same way; a resume runs them again once the provider is back.
        spent = sorted(q for q, b in branches.items() if b.get("budget_exhausted") and b.get("round") == rnd)
        down = sorted(q for q, b in branches.items() if b.get("interrupted") and b.get("round") == rnd)
        if cut := sorted(spent + down):
            reasons = "; ".join(f"{q}: {branches[q].get('reason')}" for q in cut)
            return {
                "outcome": BUDGET_EXHAUSTED if spent else INTERRUPTED,
                "reason": f"research stopped: {reasons}",
                "stopped_at": "research",
                "todo": cut,
            }
        critical = {q["id"] for q in plan["questions"] if q.get("critical")}
        failed = [q for q, b in branches.items() if b["status"] in BRANCH_BROKEN and b.get("round") == rnd]
        if failed_critical := [q for q in failed if q in critical]:
            reasons = "; ".join(f"{q}: {branches[q].get('reason')}" for q in failed_critical)
            return {"outcome": NEEDS_HUMAN, "reason": f"critical research branch failed ({reasons})"}
        return {"todo": []}

    # ---- analyze, write, review ------------------------------------------------------------

    def analyze(self, state: RunState) -> dict[str, Any]:
        self._status(ANALYZING)
        brief = Brief(
            "analyst",
            task="Build the claim table from the evidence cards.",
            inputs=(PLAN, CARDS, SOURCE_RECORDS),
            outputs=(CLAIMS,),
            feedback=self._feedback_for("analyst", state),
            material=analyst_material(self.ws.reader(cache=True)),
        )
        outcome = delegate(self.run, brief, delegation_id=f"analyst-r{state.get('round', 0)}")
        stop = self._stop_on_failure(outcome, "analyst")
        if stop or not self.ws.exists(CLAIMS):
            return stop or {
                "outcome": _unless_blocked(outcome),
                "reason": f"analyst wrote no claims.json ({outcome.reason or outcome.summary})",
            }
        return {}

    def write(self, state: RunState) -> dict[str, Any]:
        self._status(WRITING)
        n = state.get("draft_no", 0) + 1
        draft = draft_path(n)
        blocked = {q: {"status": b["status"], "reason": b.get("reason")} for q, b in state.get("branches", {}).items()}
        inputs = (PLAN, CLAIMS) + ((state["review"], state["draft"]) if state.get("review") else ())
        brief = Brief(
            "writer",
            task=f"Write the report draft {draft} from the claim table.",
            inputs=inputs,
            outputs=(draft,),
            feedback=self._feedback_for("writer", state),
            facts={"branches": blocked, "draft": draft},
            material=writer_material(self.ws.reader(cache=True)),
        )
        outcome = delegate(self.run, brief, delegation_id=f"writer-{n}")
        stop = self._stop_on_failure(outcome, "writer")
        if stop or draft not in outcome.outputs:
            return stop or {
                "outcome": NEEDS_HUMAN,
                "reason": f"writer produced no valid {draft} ({outcome.reason or outcome.summary or 'no reason given'})",
            }
        return {"draft_no": n, "draft": draft, "draft_sha": outcome.outputs[draft]}

    def review(self, state: RunState) -> dict[str, Any]:
        self._status(REVIEWING)
        draft = state["draft"]
        review = review_path(state["draft_no"])
        branches = state.get("branches", {})
        reader = self.ws.reader(cache=True)
        found = draft_defects(reader, draft, branches, may_research=self._may_research(state))
        answers = [
            {"question_id": v.question_id, "verdict": v.verdict, "reason": v.reason}
            for v in answer_verdicts(reader, self.ws.read_text(draft, HARNESS))
        ]
        brief = Brief(
            "reviewer",
            task=f"Review {draft}.",
            inputs=(draft, CLAIMS, PLAN),
            outputs=(review,),
            facts={
                "draft": draft,
                "draft_sha256": state["draft_sha"],
                "deterministic_defects": found,
                "branches": {q: {"status": b["status"], "reason": b.get("reason")} for q, b in branches.items()},
            },
            material=reviewer_material(draft, self.ws.read_text(draft, HARNESS)),
        )
        guard = merge_deterministic(review, found, draft, state["draft_sha"], answers)
        outcome = delegate(self.run, brief, delegation_id=f"reviewer-{state['draft_no']}", transforms=[guard])
        if outcome.status in OUTCOME_CUT and (stop := self._stop_on_failure(outcome, "reviewer")) is not None:
            return stop
        if review not in outcome.outputs:  # the reviewer failed: its verdict is the checks' verdict
            self.ws.write(
                review,
                guard(
                    review,
                    {
                        "draft": draft,
                        "draft_sha256": state["draft_sha"],
                        "verdict": verdict_for(found),
                        "defects": [],
                        "reviewed_by": {"role": "harness", "engine": "offline", "model": None},
                    },
                ),
                self.run.config.roles["reviewer"].spec.policy,
            )
        verdict = self.ws.read_json(review, HARNESS)["verdict"]
        return {"review": review, "verdict": verdict}

    def _may_research(self, state: RunState) -> set[str]:
        """The research questions an unanswered verdict may still send back to research: each once (its
        branch has run only in the first round), only while the revise budget has a round left, and not one
        whose branch found no evidence at all (blocked, failed, timed out: the report already says why)."""
        if state.get("round", 0) >= self.run.config.max_revisions:
            return set()
        branches = state.get("branches", {})
        return {
            q["id"]
            for q in self._plan()["questions"]
            if q["kind"] == "research"
            and (branches.get(q["id"]) or {}).get("round", 0) == 0
            and (branches.get(q["id"]) or {}).get("status") not in BRANCH_WITHOUT_EVIDENCE
        }

    def _defects_for(self, review: str | None, role: str, question: str | None = None) -> list[dict[str, Any]]:
        """The error defects of `review` routed to `role` (and, for a Researcher, naming its question)."""
        if not review:
            return []
        return [
            d
            for d in self.ws.read_json(review, HARNESS)["defects"]
            if d["route"] == role
            and d["severity"] == "error"
            and (question is None or question in (d.get("refs") or {}).get("questions", []))
        ]

    def _feedback_for(self, role: str, state: RunState) -> str | None:
        """The review's defects for `role`, each with its line and the offending text."""
        defects = self._defects_for(state.get("review"), role)
        if not defects:
            return None
        return "\n".join(describe_defect(d) for d in defects)

    # ---- the revise loop ------------------------------------------------------------------

    def revise(self, state: RunState) -> dict[str, Any]:
        """Start a revise round: what the review's error defects ask for (the graph routes on it)."""
        self.ws.update_manifest(lambda m: m["stats"].__setitem__("revisions", state.get("round", 0) + 1))
        defects = [d for d in self.ws.read_json(state["review"], HARNESS)["defects"] if d["severity"] == "error"]
        plan_ids = {q["id"] for q in self._plan()["questions"] if q["kind"] == "research"}
        todo = sorted(
            {q for d in defects if d["route"] == "researcher" for q in d["refs"].get("questions", []) if q in plan_ids}
        )
        return {
            "round": state.get("round", 0) + 1,
            "todo": todo,
            "review_routes": sorted({d["route"] for d in defects}),
            "review_errors": len(defects),
        }

    def decided(self, decision: str, detail: dict[str, Any]) -> None:
        """Trace a routing decision the graph made."""
        self.ws.trace("decision", agent="harness", decision=decision, detail=detail)

    def finalize_gate(self, state: RunState) -> dict[str, Any]:
        if not self.run.config.require_final_approval or approvals.final_is_approved(self.ws, state["draft"]):
            return {}
        self._status(AWAITING_FINAL_APPROVAL)
        answer = interrupt({"gate": "final", "draft": state["draft"], "sha256": self.ws.sha256(state["draft"])})
        if answer.get("decision") == "approve":
            approvals.approve_final(self.ws, answer.get("version", ""), answer.get("by") or "human")
            return {}
        return {
            "outcome": REJECTED,
            "reason": f"the final draft was not signed off: {answer.get('feedback') or 'rejected'}",
        }

    def finalize(self, state: RunState) -> dict[str, Any]:
        draft = state["draft"]
        claims = {c["claim_id"]: c for c in self.ws.read_json(CLAIMS, HARNESS)["claims"]}
        cards = {id_of(p): self.ws.read_json(p, HARNESS) for p in self.ws.list(CARDS, HARNESS)}
        sources = {id_of(p): self.ws.read_json(p, HARNESS) for p in self.ws.list(SOURCE_RECORDS, HARNESS)}
        answers = answer_records(self.ws.reader(cache=True), draft)
        text = render_report(
            self.ws.read_text(draft, HARNESS),
            draft,
            state["draft_sha"],
            claims,
            cards,
            sources,
            answers=answers,
            citation_style=self.run.config.citation_style,
        )
        self.ws.write(FINAL_REPORT, text, HARNESS)
        self._write_metrics(draft, state)
        self.ws.update_manifest(lambda m: m.__setitem__("final_report", FINAL_REPORT))
        self._status(COMPLETED)
        return {"outcome": COMPLETED}

    def _write_metrics(self, draft: str | None, state: RunState) -> None:
        self.ws.update_manifest(lambda m: m.__setitem__("budget", self.run.budget.snapshot()))
        metrics = compute_metrics(
            self.ws.reader(cache=True),
            draft,
            state.get("branches"),
            self.run.budget.snapshot()["spent"]["wall_seconds"],
        )
        self.ws.write(METRICS, metrics, HARNESS)

    def stop(self, state: RunState) -> dict[str, Any]:
        """End the run with its outcome; without one, the graph stopped a loop at its bound or a review
        needs a human, and this says which."""
        outcome = state.get("outcome") or NEEDS_HUMAN
        reason = state.get("reason")
        if not state.get("outcome") and state.get("plan_feedback"):
            outcome, reason = REJECTED, f"the plan was rejected after {state.get('plan_rounds', 0)} revisions"
        elif not state.get("outcome") and state.get("verdict") == REVISE:
            reason = (
                f"{state['review']} still has error defects after {state.get('round', 0)} revision(s) "
                f"(max_revisions={self.run.config.max_revisions})"
            )
        elif not state.get("outcome") and state.get("verdict") == NEEDS_HUMAN:
            reason = f"{state['review']} has defects only a human can resolve"
        self._write_metrics(state.get("draft"), state)
        self._status(outcome, reason)
        if outcome in OUTCOME_CUT and state.get("stopped_at"):
            # Everything written so far is kept; `research resume RUN --budget-...` raises the run's limits
            # and answers the budget gate, `research resume RUN` (the provider back) the outage gate, and the
            # run goes on at the step the budget or the outage cut.
            gate = "budget" if outcome == BUDGET_EXHAUSTED else "outage"
            answer = interrupt({"gate": gate, "step": state["stopped_at"], "reason": reason})
            self.ws.trace("decision", agent="human", decision=f"{gate}_continue", detail=answer)
            return {"outcome": None, "reason": None}
        return {"outcome": outcome, "reason": reason}
