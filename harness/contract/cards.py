"""The one builder of an evidence card (source-cards/*.json), whichever engine found the evidence.

The harness, never the agent, names the card (`layout.new_card_id`) and copies the quote and
its span from the stored snapshot; the agent supplies what only it can judge: the summary,
the confidence and the limitations.
"""

from __future__ import annotations

from typing import Any, Final, Literal, get_args


def build_card(
    *,
    card_id: str,
    source_id: str,
    question_id: str,
    quote: str,
    start: int,
    end: int,
    summary: str,
    confidence: str,
    limitations: list[str] | None,
    extracted_by: dict[str, Any],
    run_id: str,
    hop: int | None = None,
) -> dict[str, Any]:
    """The card as card.schema.json describes it; `hop` only when the engine searched in hops."""
    card: dict[str, Any] = {
        "card_id": card_id,
        "source_id": source_id,
        "question_id": question_id,
        "quote": quote,
        "span": {"start": start, "end": end},
        "evidence_summary": summary,
        "confidence": confidence,
        "limitations": list(limitations or []),
    }
    if hop is not None:
        card["hop"] = hop
    card["extracted_by"] = extracted_by
    card["run_id"] = run_id
    return card


# Why a quote cannot be a card's whole evidence (the rule: `evidence/standalone.py`): it must state something a
# reader can take on its own, which these do not.
QUESTION: Final = "question"  # a question asks; the sentence that answers it is the evidence
HEADING: Final = "heading"  # a heading or title names a section or document; it states nothing
NARRATION: Final = "narration"  # the document talking about itself ("In the next section…", "Let's…", "Yup, …")
UNRESOLVED_REFERENCE: Final = "unresolved_reference"  # opens with "This"/"It"/"These"… and not what it points at
NotStandalone = Literal["question", "heading", "narration", "unresolved_reference"]
NOT_STANDALONE: Final[tuple[NotStandalone, ...]] = get_args(NotStandalone)
