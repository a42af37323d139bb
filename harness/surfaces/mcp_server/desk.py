"""The MCP server's operations on its runs folder, apart from the protocol: start, status, wait, decide, follow up.

Each run is its own `research run` / `research resume` / `research ask` process, started by
`research serve`'s `Launcher`, so a run outlives the client and the server. A new run's
arguments are checked by serve's `run_flags` (the checks `research run` makes, and the
`--corpus-root`s), its budget by `agent_door.bounded_budget`; a plan decision goes through
`approvals.record_decision` as every other door's does. What a run's status says is read
from its folder (`serve.runs.row`, `RunReader`), and waiting tails its `trace.jsonl`
(`serve.events.TraceTail`). Every refusal is an `ArgumentError` naming the argument.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Literal

from harness.contract.language import check_language
from harness.contract.layout import FINAL_REPORT
from harness.contract.statuses import AWAITING_PLAN_APPROVAL, BUDGET_DIMENSIONS, COMPLETED
from harness.errors import ArtifactInvalid, UsageError, WorkspaceError
from harness.orchestrator.approvals import record_decision
from harness.runtime.budget import DEFAULT_RUN_LIMITS
from harness.surfaces.agent_door import ArgumentError, bounded_budget, budget_left
from harness.surfaces.serve import runs
from harness.surfaces.serve.events import TraceTail
from harness.surfaces.serve.launcher import Launcher, LaunchError, Queued
from harness.surfaces.serve.request import FLAGS, CorpusRoots, RequestError, field_of, run_flags
from harness.surfaces.serve.states import TERMINAL
from harness.workspace.reader import RunReader

PlanDecision = Literal["approve", "reject", "edit"]
PLAN_DECISIONS: tuple[PlanDecision, ...] = ("approve", "reject", "edit")
POLL_S = 0.25
MAX_WAIT_S = 600.0  # one tool call never holds a client longer; research_status can be called again

Progress = Callable[[int, str], Awaitable[None]]


def _argument_error(exc: UsageError, fallback: str) -> ArgumentError:
    """A `research run`-style message (naming a flag) as the same message naming the tool's argument."""
    message = str(exc)
    field = exc.field if isinstance(exc, RequestError) and exc.field else field_of(message)
    if field is None and message.startswith("language "):  # check_language names what it checked
        return ArgumentError("language", message[len("language ") :])
    if field is None:
        return ArgumentError(fallback, message)
    flag = FLAGS.get(field, "")
    if flag and message.startswith(flag):
        return ArgumentError(field, message[len(flag) :].lstrip(":").strip())
    return ArgumentError(field, message)


def _stage(reader_events: list[dict[str, Any]]) -> str | None:
    """What the run did last: the newest delegation (role and question), from the trace."""
    for event in reversed(reader_events):
        if event.get("event") == "delegation":
            qid = event.get("question_id")
            return f"{event.get('agent')}{' ' + qid if qid else ''}"
    return None


def describe_event(event: dict[str, Any]) -> str:
    """One trace event as one progress line."""
    kind = event.get("event")
    if kind == "status":
        return f"status: {event.get('status')}" + (f" ({event['reason']})" if event.get("reason") else "")
    if kind == "delegation":
        qid = event.get("question_id")
        return f"{event.get('agent')}{' ' + qid if qid else ''}: {event.get('status') or 'done'}"
    if kind == "write":
        return f"wrote {event.get('path')}"
    return str(kind)


class ResearchDesk:
    """Runs in one runs folder, for one MCP server: each run in its own process, each answer read from its folder."""

    def __init__(self, runs_dir: Path, corpus_roots: CorpusRoots, cwd: Path, user: str):
        self.runs_dir = runs_dir.resolve()
        self.corpus_roots = corpus_roots
        self.cwd = cwd
        self.user = user
        self.launcher = Launcher(self.runs_dir, cwd)

    def close(self) -> None:
        self.launcher.close()  # the runs' processes go on

    # ---- reading ---------------------------------------------------------------------------

    def run_dir(self, run_id: Any) -> Path:
        """The folder of `run_id` in the runs folder; refuses anything that is not a run id (no path gets through)."""
        if not isinstance(run_id, str) or not runs.RUN_ID.fullmatch(run_id):
            raise ArgumentError(
                "run_id", f"{run_id!r} is not a run id (as start_research returns, e.g. 20261204T101500.123456Z-1a2b3c)"
            )
        found = runs.run_dir_of(self.runs_dir, run_id)
        if found is None:
            raise ArgumentError("run_id", f"{run_id}: no such run in {self.runs_dir}")
        return found

    def status(self, run_id: str) -> dict[str, Any]:
        run_dir = self.run_dir(run_id)
        live = self.launcher.live(run_dir)
        head = runs.row(run_dir, live)
        reader = RunReader(run_dir)
        run = reader.run()
        out: dict[str, Any] = {
            "run_id": run_dir.name,
            "question": head["question"],
            "status": head["status"],
            "status_reason": head["status_reason"],
            "stage": _stage(reader.events()),
            "live": live,
            "gate": head["gate"],
            "budget": budget_left(run),
            "branches": run.get("branches") or {},
            "error": self.launcher.error(run_dir.name),
            "parent": (run.get("parent") or {}).get("run_id"),
        }
        if head["gate"] == "plan":
            plan = reader.plan() or {}
            out["plan"] = {
                "revision": plan.get("revision"),
                "questions": [{k: q.get(k) for k in ("id", "kind", "critical", "text")} for q in reader.questions()],
            }
        out["next"] = self._next(out, reader.exists(FINAL_REPORT))
        return out

    @staticmethod
    def _next(status: dict[str, Any], has_report: bool) -> str:
        """What the calling agent can do now, in one sentence."""
        if status["live"]:
            return "The run is working: call research_status with wait_seconds to wait for it."
        if status["gate"] == "plan":
            return "The plan waits for a decision: read plan.questions, then call decide_plan (approve, reject with feedback, or edit)."
        if status["gate"] == "final":
            return "The final draft waits for a person's sign-off: `research approve RUN_DIR --final --version SHA`."
        if status["status"] == COMPLETED and has_report:
            return "Done: call get_report, then get_evidence for any claim you rely on."
        if status["status"] in TERMINAL:
            return f"The run ended {status['status']} without a report you can use."
        if status["status"] == AWAITING_PLAN_APPROVAL:
            return "The plan decision is recorded but nothing continued the run: a person can go on with `research resume RUN_DIR`."
        return "The run stopped with everything kept; a person can go on with `research resume RUN_DIR` (with --budget-* to raise a spent limit)."

    async def wait(self, run_id: str, seconds: float, progress: Progress) -> dict[str, Any]:
        """Wait until no process works on the run (it paused at a gate, stopped or ended) or `seconds` pass; each new
        trace line goes to `progress` meanwhile. Returns the status."""
        run_dir = self.run_dir(run_id)
        if isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds < 0:
            raise ArgumentError(
                "wait_seconds", f"expected a number of seconds from 0 to {MAX_WAIT_S:g}, got {seconds!r}"
            )
        seconds = min(float(seconds), MAX_WAIT_S)
        tail = TraceTail(run_dir)
        tail.read()  # what happened before the wait is in the status already
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        while True:
            for line_no, event in tail.read():
                await progress(line_no, describe_event(event))
            if not self.launcher.live(run_dir) or loop.time() >= deadline:
                break
            await asyncio.sleep(POLL_S)
        for line_no, event in tail.read():
            await progress(line_no, describe_event(event))
        return self.status(run_id)

    # ---- changing --------------------------------------------------------------------------

    async def start(
        self,
        question: str,
        corpus: str | None = None,
        web: bool | None = None,
        search: str | None = None,
        language: str | None = None,
        budget: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Start `research run` in its own process with every budget set; return once its run folder exists."""
        limits = bounded_budget(budget)
        body = {"question": question, "corpus": corpus, "web": web, "search": search, "budget": limits}
        try:
            if language is not None:
                check_language(language, "language")
            flags = run_flags(
                {k: v for k, v in body.items() if v is not None}, self.corpus_roots, self.cwd, self.runs_dir
            )
        except UsageError as exc:
            raise _argument_error(exc, "question") from None
        if language is not None:
            flags[-2:-2] = ["--language", language]  # run_flags puts `-- QUESTION` last
        try:
            run_id = await self.launcher.start(flags)
        except LaunchError as exc:
            raise _argument_error(UsageError(str(exc)), "question") from None
        if isinstance(run_id, Queued):  # every slot is taken: it starts when one frees, in order (as serve answers)
            return {"queued": run_id.ticket, "position": run_id.position, "budget": limits}
        return {"run_id": run_id, "budget": limits, **self._started(run_id)}

    def _started(self, run_id: str) -> dict[str, Any]:
        status = self.status(run_id)
        return {"status": status["status"], "next": status["next"]}

    def _idle(self, run_dir: Path) -> None:
        if self.launcher.live(run_dir):
            raise ArgumentError(
                "run_id", f"run {run_dir.name}: a process is working on it; wait with research_status until it pauses"
            )

    def decide_plan(
        self, run_id: str, decision: str, feedback: str | None = None, plan: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Record a plan decision with `approvals.record_decision`, then continue the run in a `research resume`."""
        run_dir = self.run_dir(run_id)
        if decision not in PLAN_DECISIONS:
            raise ArgumentError("decision", f"expected one of {', '.join(PLAN_DECISIONS)}, got {decision!r}")
        if feedback is not None and decision != "reject":
            raise ArgumentError("feedback", "only a rejection takes feedback (the Planner refines the plan with it)")
        if plan is not None and decision != "edit":
            raise ArgumentError("plan", "only an edit takes a plan (the edited plan.json, which is approved as sent)")
        if decision == "reject" and not (feedback or "").strip():
            raise ArgumentError("feedback", "a rejection needs feedback: say what the plan should change")
        if decision == "edit" and not isinstance(plan, dict):
            raise ArgumentError("plan", "an edit needs the edited plan.json as an object")
        self._idle(run_dir)
        head = runs.row(run_dir, False)
        if head["gate"] != "plan":
            already = head["status"] == AWAITING_PLAN_APPROVAL
            raise ArgumentError(
                "run_id",
                f"run {run_dir.name}: "
                + ("the plan is already decided" if already else f"is {head['status']}, not awaiting plan approval"),
            )
        try:
            if decision == "edit":
                recorded = record_decision(
                    run_dir, plan=True, plan_text=json.dumps(plan, ensure_ascii=False), by=self.user
                )
            elif decision == "reject":
                recorded = record_decision(run_dir, plan=True, reject=(feedback or "").strip(), by=self.user)
            else:
                recorded = record_decision(run_dir, plan=True, by=self.user)
        except ArtifactInvalid as exc:  # the edited plan fails its schema or checks: nothing was written
            raise ArgumentError("plan", str(exc)) from None
        except WorkspaceError as exc:  # a process took the run lock meanwhile
            raise ArgumentError("run_id", str(exc)) from None
        except UsageError as exc:
            raise ArgumentError("plan" if decision == "edit" else "decision", str(exc)) from None
        self.launcher.resume(run_dir, [])
        return {"run_id": run_dir.name, "recorded": recorded, **self._started(run_dir.name)}

    async def followup(self, run_id: str, question: str) -> dict[str, Any]:
        """Start `research ask` on a completed run: a new run that begins with its sources and cards."""
        run_dir = self.run_dir(run_id)
        if not isinstance(question, str) or not question.strip():
            raise ArgumentError("question", "the follow-up question must not be empty")
        self._idle(run_dir)
        head = runs.row(run_dir, False)
        if head["status"] != COMPLETED:
            raise ArgumentError(
                "run_id", f"run {run_dir.name} is {head['status']}: only a completed run can be followed up"
            )
        limits = head["budget"]["limits"]
        # dollars have no default (`agent_door.bounded_budget`): the counted limits are what bound a run
        unbounded = [dim for dim in BUDGET_DIMENSIONS if dim in DEFAULT_RUN_LIMITS and limits.get(dim) is None]
        if unbounded:  # a follow-up carries its parent's limits
            raise ArgumentError(
                "run_id", f"run {run_dir.name} has no {unbounded[0]} limit, which its follow-up would carry"
            )
        try:
            child = await self.launcher.start([], command=("ask", str(run_dir), question.strip()))
        except LaunchError as exc:
            raise ArgumentError("question", str(exc)) from None
        if isinstance(child, Queued):  # every slot is taken: it starts when one frees, in order (as serve answers)
            return {"queued": child.ticket, "position": child.position, "parent": run_dir.name}
        return {"run_id": child, "parent": run_dir.name, **self._started(child)}
