"""Claim statuses: which claims a report may use, and how.

The statuses are the enum of `claims.schema.json` (the schema is the contract;
`tests/contract/test_statuses.py` holds the `Literal` equal to it); this module names the
sets the guards act on, so every check reads them from one place.

- usable: `verified` (state it), `verified_with_limit` (state it with its limitation),
  `conflicted` (only with both sides disclosed);
- statable: the usable claims that may be stated as fact, with their limitation if any
  (`verified`, `verified_with_limit`: what a comparison table's cell may hold);
- not reportable: `rejected`, `unsupported` — never in a report (invariant 5).

A claim may also carry a `series`: the same figure for different periods (`evidence/vintage.py` decides the period),
each entry `current` (the claim's own, which leads) or `superseded` (an older figure, shown as such, never as current
and never as a conflict). The vintages are the enum of the schema's `series` entries.
"""

from __future__ import annotations

from typing import Final, Literal, get_args

ClaimStatus = Literal["verified", "verified_with_limit", "conflicted", "rejected", "unsupported"]
VERIFIED: Final = "verified"
VERIFIED_WITH_LIMIT: Final = "verified_with_limit"
CONFLICTED: Final = "conflicted"
REJECTED: Final = "rejected"
UNSUPPORTED: Final = "unsupported"

CLAIM_STATUSES: Final[tuple[ClaimStatus, ...]] = get_args(ClaimStatus)
USABLE: Final[tuple[ClaimStatus, ...]] = (VERIFIED, VERIFIED_WITH_LIMIT, CONFLICTED)
STATABLE: Final[tuple[ClaimStatus, ...]] = (VERIFIED, VERIFIED_WITH_LIMIT)
NOT_REPORTABLE: Final[tuple[ClaimStatus, ...]] = (REJECTED, UNSUPPORTED)

Vintage = Literal["current", "superseded"]
CURRENT: Final = "current"
SUPERSEDED: Final = "superseded"
VINTAGES: Final[tuple[Vintage, ...]] = get_args(Vintage)


def superseded_cards(claim: dict) -> list[str]:
    """The cards of a claim's older figures (its series' superseded entries, not its own), which the report shows
    beside it."""
    own = claim.get("supporting_cards") or []
    return [
        e["card_id"] for e in claim.get("series") or [] if e.get("vintage") == SUPERSEDED and e["card_id"] not in own
    ]


def shown_cards(claim: dict) -> list[str]:
    """Every card a report shows for a claim: supporting, contradicting, then superseded, each once."""
    return list(dict.fromkeys(claim["supporting_cards"] + claim["contradicting_cards"] + superseded_cards(claim)))


if set(USABLE) | set(NOT_REPORTABLE) != set(CLAIM_STATUSES) or set(USABLE) & set(NOT_REPORTABLE):
    raise RuntimeError("contract/claims.py: USABLE and NOT_REPORTABLE must partition the claim statuses")
