"""One delegation: brief in, guarded context, agent run, one trace event out.

Whatever happens inside the agent — success, a blocked branch, a refused write past the
retry bound, a budget or time limit, a crash — the delegation returns an outcome and the
trace records who ran, on which engine and model, with which inputs, tools and budget,
for how long, why it stopped, what it wrote and what went wrong.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from harness.contract.formats import now_iso
from harness.contract.language import is_english, language_rule
from harness.contract.statuses import (
    BLOCKED,
    BUDGET_EXHAUSTED,
    COMPLETED,
    FAILED,
    INTERRUPTED,
    TIMEOUT,
    OutcomeStatus,
)
from harness.errors import BudgetExhausted, HarnessError, ProviderUnavailable, StorageError
from harness.orchestrator.live_run import LiveRun
from harness.orchestrator.role_choice import RoleChoice
from harness.runtime.budget import DelegationBudget, DelegationTimeout
from harness.runtime.context import AgentContext, open_context
from harness.runtime.interface import AgentResult, Brief
from harness.runtime.step import RunServices


@dataclass
class Outcome:
    status: OutcomeStatus
    summary: str = ""
    reason: str | None = None
    outputs: dict[str, str] = field(default_factory=dict)
    started_at: str = ""
    ended_at: str = ""


def delegate(
    run: LiveRun, brief: Brief, *, delegation_id: str, transforms: list[Callable[[str, Any], Any]] | None = None
) -> Outcome:
    role = brief.role
    choice = run.config.roles[role]
    if choice.engine == "llm" and not is_english(run.config.language):
        brief = replace(brief, material="\n\n".join(filter(None, [brief.material, language_rule(run.config.language)])))
    limits = dict(choice.spec.limits)
    ctx = _open_step(run, choice, brief, limits, transforms)
    inputs = [{"path": p, "sha256": run.workspace.sha256(p)} for p in brief.inputs if "*" not in p]
    started = now_iso()
    run.emit("delegation_started", agent=role, delegation_id=delegation_id, question_id=brief.question_id)
    t0 = time.monotonic()
    outcome, errors = _run_agent(run, brief, ctx)
    outcome.outputs = dict(ctx.files.outputs)
    outcome.started_at, outcome.ended_at = started, now_iso()
    _trace_delegation(run, choice, ctx, delegation_id, inputs, limits, outcome, errors, time.monotonic() - t0)
    run.emit(
        "delegation_ended",
        agent=role,
        delegation_id=delegation_id,
        question_id=brief.question_id,
        status=outcome.status,
        outputs=len(ctx.files.outputs),
    )
    return outcome


def _open_step(
    run: LiveRun,
    choice: RoleChoice,
    brief: Brief,
    limits: dict[str, Any],
    transforms: list[Callable[[str, Any], Any]] | None,
) -> AgentContext:
    """The step's context: its own budget (layered on its role's and the run's, with its wall-time deadline) and the
    run's services, each given only to a spec whose tools list it."""
    deadline = time.monotonic() + limits["wall_seconds"] if limits.get("wall_seconds") else None
    budget = DelegationBudget(run.budget, brief.role, limits, deadline)
    return open_context(
        run.workspace,
        choice.spec,
        brief,
        engine=choice.engine,
        model=choice.model,
        run_id=run.run_id,
        budget=budget,
        run=RunServices(corpus=run.tools, web=run.web, mcp=run.mcp),
        transforms=transforms,
    )


def _run_agent(run: LiveRun, brief: Brief, ctx: AgentContext) -> tuple[Outcome, list[str]]:
    """The agent's run, whatever happens inside it, as an outcome (and the traceback line of an agent's own bug):
    only a storage failure propagates, so a resume redoes the step."""
    role = brief.role
    errors: list[str] = []
    try:
        run.budget.check_time()
        result = run.agents[role].run(brief, ctx)
        if not isinstance(result, AgentResult):
            raise HarnessError(f"{role}: run() returned {type(result).__name__}, not AgentResult")
        outcome = Outcome(result.status, result.summary, result.blocked_reason)
    except StorageError:
        raise  # the disk failed, not the agent: stop here so a resume redoes this step
    except BudgetExhausted as exc:
        outcome = _out_of_budget(exc, ctx)
    except ProviderUnavailable as exc:
        outcome = _provider_down(exc, ctx)
    except DelegationTimeout as exc:
        outcome = Outcome(TIMEOUT, reason=str(exc))
    except HarnessError as exc:
        outcome = Outcome(FAILED, reason=str(exc))
    except Exception as exc:  # an agent's own bug must not take the run down; it is traced
        outcome = Outcome(FAILED, reason=f"{type(exc).__name__}: {exc}")
        errors.append("".join(traceback.format_exception_only(type(exc), exc)).strip())
    return outcome, errors


def _trace_delegation(
    run: LiveRun,
    choice: RoleChoice,
    ctx: AgentContext,
    delegation_id: str,
    inputs: list[dict[str, str | None]],
    limits: dict[str, Any],
    outcome: Outcome,
    errors: list[str],
    seconds: float,
) -> None:
    """The delegation's one trace event: who ran, on which engine and model, with which inputs, tools and budget,
    for how long, why it stopped, what it wrote, what it spent and what went wrong."""
    brief = ctx.brief
    run.workspace.trace(
        "delegation",
        agent=brief.role,
        engine=choice.engine,
        model=choice.model,
        delegation_id=delegation_id,
        brief=brief.task[:300],
        question_id=brief.question_id,
        inputs=inputs,
        outputs=[{"path": p, "sha256": h} for p, h in sorted(ctx.files.outputs.items())],
        tools=list(choice.spec.tools),
        budget={**{k: v for k, v in limits.items() if k != "write_retries"}},
        started_at=outcome.started_at,
        ended_at=outcome.ended_at,
        stop_reason=outcome.status,
        errors=ctx.files.errors
        + ctx.provider_errors
        + errors
        + (
            [outcome.reason]
            if outcome.status in (FAILED, TIMEOUT, BUDGET_EXHAUSTED, INTERRUPTED) and outcome.reason
            else []
        ),
        retries=ctx.files.retries + ctx.provider_retries,
        tokens=ctx.budget.tokens,
        thinking_tokens=ctx.budget.thinking_tokens,
        cached_tokens=ctx.budget.cached_tokens,
        llm_calls=ctx.budget.llm_calls,
        usd=round(ctx.budget.usd, 6),
        unpriced_calls=ctx.budget.unpriced_calls,
        detail={
            "summary": outcome.summary[:500],
            "blocked_reason": outcome.reason if outcome.status == BLOCKED else None,
            "seconds": round(seconds, 3),
            "refused_writes": len(ctx.files.errors),
            "provider_retries": ctx.provider_retries,
            "notes": ctx.notes,
        },
    )


def _out_of_budget(exc: BudgetExhausted, ctx: AgentContext) -> Outcome:
    """Only the run's own budget stops the run. A step that runs out of its own (or its role's) budget ends
    with what it has: completed when it wrote its outputs, the limit recorded; when it wrote nothing, blocked
    if a service of its writes its outputs (a Researcher with no card: `OutputDuty.blocked_reason`), else
    failed."""
    if exc.scope == "run":
        return Outcome(BUDGET_EXHAUSTED, reason=str(exc))
    missing = ctx.files.missing_outputs()
    if not missing:
        return Outcome(
            COMPLETED,
            summary=f"stopped at its limit with its outputs written ({exc})",
            reason=f"stopped at its limit: {exc}",
        )
    duty = ctx.services.duty
    status: OutcomeStatus = BLOCKED if duty else FAILED
    prefix = f"{duty.blocked_reason}: " if duty else ""
    return Outcome(status, reason=f"{prefix}ran out of its own budget before writing {', '.join(missing)} ({exc})")


def _provider_down(exc: ProviderUnavailable, ctx: AgentContext) -> Outcome:
    """The provider stayed down past the retry bound. A step that already wrote its outputs ends with them
    (completed, the outage recorded); any other is cut, and the run waits at it (`interrupted`) for a resume."""
    if not ctx.files.missing_outputs():
        return Outcome(COMPLETED, summary=f"its outputs were written before the provider failed ({exc})")
    return Outcome(INTERRUPTED, reason=str(exc))
