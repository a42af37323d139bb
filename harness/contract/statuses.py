"""The closed sets the harness routes on, each a `Literal` type with named constants, defined once.

A status is checked by the type checker where it is written and by the schema where it is
stored; `tests/contract/test_statuses.py` holds each `Literal` equal to its schema enum, so
the two cannot drift. Code names a status by its constant (`statuses.BLOCKED`), never by a
string written out again, and a set the guards act on (which branch statuses mean "no
evidence", which verdict is stricter) is a named tuple here, not a literal in the guard.

- run statuses: `run.json` `status` (`schemas/run.schema.json`);
- branch statuses: how one research branch ended (`run.json` `branches.*.status`);
- agent statuses: what an engine's `run()` returns (`AgentResult.status`);
- delegation outcomes: how one delegation ended (`Outcome.status`, the trace's `stop_reason`):
  an agent status, or `timeout` / `budget_exhausted` / `interrupted` (a provider outage) when the
  harness cut it off;
- review verdicts, laxest first (`schemas/review.schema.json`);
- answer verdicts: whether the report answers one research question (`evidence/answers.py`; stored in
  `metrics.json` and `reviews/review-N.json`);
- budget dimensions: the keys of every limit and spend (`run.json` `budget`).
"""

from __future__ import annotations

from typing import Final, Literal, get_args

# ---- one name per status word (several sets share a word: a branch and a run both complete) ----

CREATED: Final = "created"
PLANNING: Final = "planning"
AWAITING_PLAN_APPROVAL: Final = "awaiting_plan_approval"
RESEARCHING: Final = "researching"
ANALYZING: Final = "analyzing"
WRITING: Final = "writing"
REVIEWING: Final = "reviewing"
AWAITING_FINAL_APPROVAL: Final = "awaiting_final_approval"
COMPLETED: Final = "completed"
NEEDS_HUMAN: Final = "needs_human"
BUDGET_EXHAUSTED: Final = "budget_exhausted"
INTERRUPTED: Final = "interrupted"
REJECTED: Final = "rejected"
FAILED: Final = "failed"
BLOCKED: Final = "blocked"
TIMEOUT: Final = "timeout"
PASS: Final = "pass"
REVISE: Final = "revise"

# ---- run statuses ---------------------------------------------------------------------------

RunStatus = Literal[
    "created",
    "planning",
    "awaiting_plan_approval",
    "researching",
    "analyzing",
    "writing",
    "reviewing",
    "awaiting_final_approval",
    "completed",
    "needs_human",
    "budget_exhausted",
    "interrupted",
    "rejected",
    "failed",
]
RUN_STATUSES: Final[tuple[RunStatus, ...]] = get_args(RunStatus)
# Statuses a run never leaves. budget_exhausted and interrupted are not: the run waits at a gate (its
# budget's, or a provider outage's), and `research resume RUN` (with --budget-... for a spent budget)
# goes on where the budget or the outage cut it.
TERMINAL_RUN_STATUSES: Final[tuple[RunStatus, ...]] = (COMPLETED, NEEDS_HUMAN, REJECTED, FAILED)
# A run paused at a gate for a human: `research approve` answers it.
AWAITING_APPROVAL: Final[tuple[RunStatus, ...]] = (AWAITING_PLAN_APPROVAL, AWAITING_FINAL_APPROVAL)

# ---- research branches ----------------------------------------------------------------------

# What a plan question is (plan.json `questions[].kind`): research gets a branch; the deliverable says what the
# report delivers, and is shown as that, never as a numbered research question.
QuestionKind = Literal["research", "deliverable"]
RESEARCH: Final[QuestionKind] = "research"
DELIVERABLE: Final[QuestionKind] = "deliverable"
QUESTION_KINDS: Final[tuple[QuestionKind, ...]] = get_args(QuestionKind)

BranchStatus = Literal["completed", "blocked", "failed", "timeout"]
BRANCH_STATUSES: Final[tuple[BranchStatus, ...]] = get_args(BranchStatus)
# The branch ended without evidence: blocked (nothing relevant found), or broken.
BRANCH_WITHOUT_EVIDENCE: Final[tuple[BranchStatus, ...]] = (BLOCKED, FAILED, TIMEOUT)
# The branch broke (not "found nothing"): a critical one sends the run to a human.
BRANCH_BROKEN: Final[tuple[BranchStatus, ...]] = (FAILED, TIMEOUT)

# ---- agents and delegations -----------------------------------------------------------------

AgentStatus = Literal["completed", "blocked", "failed"]
AGENT_STATUSES: Final[tuple[AgentStatus, ...]] = get_args(AgentStatus)

OutcomeStatus = Literal["completed", "blocked", "failed", "timeout", "budget_exhausted", "interrupted"]
OUTCOME_STATUSES: Final[tuple[OutcomeStatus, ...]] = get_args(OutcomeStatus)
# A delegation that ended this way stops the run at that step (budget_exhausted, interrupted: resumably).
OUTCOME_BROKEN: Final[tuple[OutcomeStatus, ...]] = (FAILED, TIMEOUT)
# A delegation the run's budget or a provider outage cut: the run waits at that step, and a resume redoes it.
OUTCOME_CUT: Final[tuple[OutcomeStatus, ...]] = (BUDGET_EXHAUSTED, INTERRUPTED)

# ---- review verdicts ------------------------------------------------------------------------

Verdict = Literal["pass", "revise", "needs_human"]
VERDICTS: Final[tuple[Verdict, ...]] = get_args(Verdict)  # laxest first: the order is the rule


def strictest(*verdicts: Verdict) -> Verdict:
    """The strictest of `verdicts` (pass < revise < needs_human)."""
    return max(verdicts, key=VERDICTS.index)


# ---- answer verdicts ------------------------------------------------------------------------

ANSWERED: Final = "answered"
PARTLY: Final = "partly"
NOT_ANSWERED: Final = "not_answered"
AnswerVerdict = Literal["answered", "partly", "not_answered"]
ANSWER_VERDICTS: Final[tuple[AnswerVerdict, ...]] = get_args(AnswerVerdict)
# A question the report leaves (partly) open: a Reviewer defect, then a plain line under Limitations.
ANSWER_GAPS: Final[tuple[AnswerVerdict, ...]] = (PARTLY, NOT_ANSWERED)

# ---- budget dimensions ----------------------------------------------------------------------

BudgetDimension = Literal["llm_calls", "tokens", "searches", "wall_seconds", "usd"]
LLM_CALLS: Final = "llm_calls"
TOKENS: Final = "tokens"
SEARCHES: Final = "searches"
WALL_SECONDS: Final = "wall_seconds"
USD: Final = "usd"  # dollars, priced per model call from the usage the provider reports
BUDGET_DIMENSIONS: Final[tuple[BudgetDimension, ...]] = get_args(BudgetDimension)
# What a delegation counts call by call; wall time is measured against a deadline instead.
COUNTED_DIMENSIONS: Final[tuple[BudgetDimension, ...]] = (LLM_CALLS, TOKENS, SEARCHES, USD)
