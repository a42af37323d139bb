"""Claim statuses: which claims a report may use, and how.

The statuses are the enum of `claims.schema.json` (the schema is the contract); this module
names the two sets the guards act on, so every check reads them from one place.

- usable: `verified` (state it), `verified_with_limit` (state it with its limitation),
  `conflicted` (only with both sides disclosed);
- not reportable: `rejected`, `unsupported` — never in a report (invariant 5).
"""

from __future__ import annotations

from harness.contract.schemas import schema

CLAIM_STATUSES: tuple[str, ...] = tuple(
    schema("claims.schema.json")["properties"]["claims"]["items"]["properties"]["status"]["enum"]
)
USABLE = ("verified", "verified_with_limit", "conflicted")
NOT_REPORTABLE = ("rejected", "unsupported")

if set(USABLE) | set(NOT_REPORTABLE) != set(CLAIM_STATUSES) or set(USABLE) & set(NOT_REPORTABLE):
    raise RuntimeError("contract/claims.py: USABLE and NOT_REPORTABLE must partition claims.schema.json's status enum")
