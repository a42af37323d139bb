"""The names of the injection detector's rules: why a sentence of a source was flagged, a closed set.

A flag in `sources/<id>.json` (`flags[].reason`, `schemas/source.schema.json`) names the rule that
fired, and `metrics.json` counts flags per rule (`injection_flags.by_reason`,
`schemas/metrics.schema.json`); `tests/contract/test_statuses.py` holds this `Literal` equal to both
schemas. The rules themselves live in `harness/sources/injection/`; code names a rule by its
constant here.
"""

from __future__ import annotations

from typing import Final, Literal, get_args

OVERRIDE: Final = "override"
AGENT_ORDER: Final = "agent_order"
ORDER_TO_ANSWERER: Final = "order_to_answerer"
OUTPUT_FORMAT: Final = "output_format"
PROMOTION: Final = "promotion"
UNRELATED_REQUEST: Final = "unrelated_request"

InjectionReason = Literal[
    "override", "agent_order", "order_to_answerer", "output_format", "promotion", "unrelated_request"
]
INJECTION_REASONS: Final[tuple[InjectionReason, ...]] = get_args(InjectionReason)

# What each rule catches, in the words the docs and `research inspect` use.
REASONS: Final[dict[InjectionReason, str]] = {
    OVERRIDE: "tries to override the reader's instructions (ignore previous instructions, new rules, reveal the prompt)",
    AGENT_ORDER: "orders an AI agent to act (write files, call tools, visit pages, send secrets, say something)",
    ORDER_TO_ANSWERER: "an order about the answer or reply being written, not a statement about the document",
    OUTPUT_FORMAT: "asks to change the answer's language, spelling, letters or layout",
    PROMOTION: "slips a link, an address or an advertisement aimed at the reader into the answer",
    UNRELATED_REQUEST: "a task or question that shares no subject with the sentences around it or with its document",
}
