"""Which run statuses the app offers which action for; the statuses themselves are `contract.statuses`'.

The run statuses are `RunStatus` (held equal to the enum of `schemas/run.schema.json`), so a
status added there (an outage's resumable `interrupted`) shows up here without a second
list. What this module adds is the app's reading of them: which statuses wait at a human
gate, which can be resumed from the page, and which mean a process should be working.
"""

from __future__ import annotations

from harness.contract.statuses import (
    AWAITING_FINAL_APPROVAL,
    AWAITING_PLAN_APPROVAL,
    BUDGET_EXHAUSTED,
    RUN_STATUSES,
    TERMINAL_RUN_STATUSES,
)

STATUSES: tuple[str, ...] = tuple(RUN_STATUSES)
TERMINAL: frozenset[str] = frozenset(TERMINAL_RUN_STATUSES)
GATES: dict[str, str] = {AWAITING_PLAN_APPROVAL: "plan", AWAITING_FINAL_APPROVAL: "final"}
# Stopped with everything kept, to go on with `research resume` (a raised budget; an outage once it has passed).
RESUMABLE: frozenset[str] = frozenset({BUDGET_EXHAUSTED, "interrupted"} & set(STATUSES))
# Statuses of a run whose process is (or should be) working on it: one cut off in them can be resumed too.
ACTIVE: frozenset[str] = frozenset(set(STATUSES) - TERMINAL - set(GATES) - RESUMABLE)
# Not a run status: what the runs list shows for a folder it cannot read as a run (half-copied, hand-broken).
BROKEN = "broken"
# Not a run status either: a start (new run, follow-up or resume) waiting for a free slot (launcher.py).
QUEUED = "queued"
