"""The one builder of an evidence card (source-cards/*.json), whichever engine found the evidence.

The harness, never the agent, names the card (`layout.new_card_id`) and copies the quote and
its span from the stored snapshot; the agent supplies what only it can judge (`CardDraft`): the
summary, the confidence and the limitations.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal, get_args

from harness.contract.quotes import Located

# How strongly a card's quote answers its question (card.schema.json's `confidence` enum; a test holds them equal).
Confidence = Literal["high", "medium", "low"]
HIGH: Final = "high"
MEDIUM: Final = "medium"
LOW: Final = "low"
CONFIDENCES: Final[tuple[Confidence, ...]] = get_args(Confidence)


@dataclass(frozen=True)
class CardDraft:
    """What a card is built from that an engine supplies: the source and the quote it found there, and its own
    judgement of it. The harness adds the rest (`build_card`): the card's id and question, the snapshot's own text
    and span for the quote, who extracted it and in which run."""

    source_id: str
    quote: str  # as the engine quoted it; the card keeps the snapshot's text where it was located
    summary: str
    confidence: Confidence
    limitations: tuple[str, ...] = ()
    hop: int | None = None  # which retrieval hop found the quote, when the engine searched in hops
    in_answer: bool = False  # the engine chose this quote as part of the question's answer (not a confidence)


def build_card(
    draft: CardDraft,
    located: Located,
    *,
    card_id: str,
    question_id: str,
    extracted_by: dict[str, Any],
    run_id: str,
) -> dict[str, Any]:
    """The card as card.schema.json describes it, its quote and span `located` in the snapshot; `hop` only when
    the engine searched in hops; `in_answer` only when true (absent reads as false, as in older workspaces)."""
    card: dict[str, Any] = {
        "card_id": card_id,
        "source_id": draft.source_id,
        "question_id": question_id,
        "quote": located.text,
        "span": {"start": located.start, "end": located.end},
        "evidence_summary": draft.summary,
        "confidence": draft.confidence,
        "limitations": list(draft.limitations),
    }
    if draft.hop is not None:
        card["hop"] = draft.hop
    if draft.in_answer:
        card["in_answer"] = True
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
