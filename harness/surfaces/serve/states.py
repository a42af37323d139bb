"""Which run statuses the app offers which action for, read once from the run schema.

The statuses themselves are the enum of `schemas/run.schema.json` (the contract), so a
status added there (e.g. an outage's resumable `interrupted`) shows up here without a
second list. What this module adds is the app's reading of them: which statuses wait at a
human gate, and which can be resumed from the page.
"""

from __future__ import annotations

from harness.contract.schemas import schema
from harness.workspace.store import TERMINAL_STATUSES

STATUSES: tuple[str, ...] = tuple(schema("run.schema.json")["properties"]["status"]["enum"])
TERMINAL: frozenset[str] = frozenset(TERMINAL_STATUSES)
GATES: dict[str, str] = {"awaiting_plan_approval": "plan", "awaiting_final_approval": "final"}
# Stopped with everything kept, to go on with `research resume` (a raised budget; an outage once it has passed).
RESUMABLE: frozenset[str] = frozenset({"budget_exhausted", "interrupted"} & set(STATUSES))
# Statuses of a run whose process is (or should be) working on it: one cut off in them can be resumed too.
ACTIVE: frozenset[str] = frozenset(set(STATUSES) - TERMINAL - set(GATES) - RESUMABLE)
