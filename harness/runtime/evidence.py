"""The `record_evidence` service: the harness finds the quote, copies the source's own text and span, and names
the card, for every engine. A quote that cannot stand alone (a question, a heading, narration, an opening reference
it does not resolve: `evidence/standalone.py`) is refused with how to succeed.

Choosing a card's number and writing the card is one step under a lock per run folder and
question, so parallel calls (a model that sends several `record_evidence` calls in one
message) never take the same number: no card is overwritten, none is lost.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path

from harness.contract.cards import CardDraft, Confidence, build_card
from harness.contract.layout import (
    card_number,
    card_path,
    id_of,
    new_card_id,
    question_cards,
    snapshot_path,
    source_record_path,
)
from harness.contract.quotes import Located, closest_passage, locate_quote, normalize_ws
from harness.contract.statuses import ANSWERED
from harness.contract.works import work_limitations
from harness.errors import HarnessError, PermissionRefused
from harness.evidence.answer_rule import ask_of
from harness.evidence.answers import claim_findings, judge_question
from harness.evidence.standalone import not_standalone, refusal
from harness.runtime.step import ServiceSetup

CLOSEST_CHARS = 300  # how much of the closest passage a refused quote's error shows


class QuoteNotFound(HarnessError):
    """A quote handed to `record_evidence` is not in the source's stored text (the error says what is closest)."""


class QuoteNotStandalone(HarnessError):
    """A quote handed to `record_evidence` that cannot be a card's whole evidence (the error says how to succeed)."""


def cards_answer(setup: ServiceSetup) -> bool:
    """Whether the cards this step recorded answer its question by the answer check's rule (`evidence/answers.py`,
    the rule the review later applies to the draft's cited quotes): `answered`, not `partly`. Cards of an earlier
    round do not count: a branch researched again must find its own answer."""
    cards = [id_of(rel) for rel in setup.files.outputs if rel.startswith("source-cards/")]
    question = setup.question() if cards else None
    if question is None or question.get("kind") != "research":
        return False
    reader = setup.workspace.reader()
    findings = claim_findings(reader, {"supporting_cards": cards})
    return judge_question(ask_of(question, setup.plan().get("criteria")), findings).verdict == ANSWERED


class EvidenceRecorder:
    def __init__(self, setup: ServiceSetup):
        self.setup = setup

    def record(
        self,
        source_id: str,
        quote: str,
        summary: str,
        confidence: Confidence,
        limitations: list[str] | None = None,
        hint: int | None = None,
        hop: int | None = None,
        in_answer: bool = False,
    ) -> tuple[str, Located, bool]:
        """Write an evidence card for this step's question: the harness finds the quote in the source's stored
        text, stores that text and its true span, and names the card. `hint` (a start offset the agent believes)
        only breaks ties. Returns (card id, where the quote is, whether the card is new: the same quote recorded
        twice is one card). A quote not in the source raises QuoteNotFound naming the closest passage, one that
        cannot stand alone QuoteNotStandalone saying why and what to quote instead; either counts as a refusal of
        that source's evidence."""
        setup, files = self.setup, self.setup.files
        qid = setup.brief.question_id
        if not qid:
            raise PermissionRefused(f"{setup.role}: record_evidence needs a brief that names a plan question")
        target = f"evidence from {source_id}"
        try:
            text = files.read_text(snapshot_path(source_id))
        except HarnessError as exc:
            files.refused(target, exc)
            raise HarnessError(
                f"{source_id} is not a registered source (source ids come from search results)"
            ) from None
        located = locate_quote(text, quote, hint)
        if located is None:
            not_found = QuoteNotFound(_not_found(source_id, text, quote))
            files.refused(target, not_found)
            raise not_found
        reason = not_standalone(text, located.start, located.end, _title(setup, source_id))
        if reason is not None:
            not_alone = QuoteNotStandalone(f"{source_id}: {refusal(reason, located.text)}")
            files.refused(target, not_alone)
            raise not_alone
        with _card_lock(setup.workspace.root, qid):  # choosing the id and writing the card is one step
            draft = CardDraft(source_id, quote, summary, confidence, tuple(limitations or ()), hop, in_answer)
            card_id, new = self._write_card(qid, draft, located)
        if new and located.how != "exact":
            setup.notes.append(f"{card_id}: quote located by {located.how} at {located.start}..{located.end}")
        return card_id, located, new

    def _write_card(self, qid: str, draft: CardDraft, located: Located) -> tuple[str, bool]:
        """Under the question's card lock: the card already holding this span, or a new one numbered after the
        highest on disk."""
        setup, source_id = self.setup, draft.source_id
        cards = setup.workspace.reader()  # the question's cards, read by the harness (a Researcher may not read them)
        existing = cards.list(question_cards(qid))
        for rel in existing:
            card = cards.read_json(rel) or {}
            if card.get("source_id") == source_id and card.get("span") == {"start": located.start, "end": located.end}:
                # the same evidence again (e.g. a branch run anew after its budget was raised): one card, and it
                # counts as this step's evidence
                setup.files.counted_existing(rel)
                return id_of(rel), False
        taken = [n for rel in existing if (n := card_number(id_of(rel), qid, source_id)) is not None]
        work = (cards.read_json(source_record_path(source_id)) or {}).get("work")
        limitations = list(draft.limitations)
        limitations += [text for text in work_limitations(work) if text not in limitations]
        card_id = new_card_id(qid, source_id, max(taken, default=0) + 1)
        card = build_card(
            replace(draft, limitations=tuple(limitations)),
            located,
            card_id=card_id,
            question_id=qid,
            extracted_by=dict(setup.identity),
            run_id=setup.run_id,
        )
        setup.files.write(card_path(card_id), card)
        return card_id, True


_CARD_LOCKS: dict[tuple[str, str], threading.Lock] = {}
_CARD_LOCKS_GUARD = threading.Lock()


def _card_lock(root: Path, question_id: str) -> threading.Lock:
    """One lock per run folder and question, shared by every step and thread of the process: two parallel
    `record_evidence` calls must never both take "the highest card number + 1"."""
    with _CARD_LOCKS_GUARD:
        return _CARD_LOCKS.setdefault((str(root), question_id.lower()), threading.Lock())


def _title(setup: ServiceSetup, source_id: str) -> str:
    """The source's title as its record holds it, read by the harness ('' when there is none)."""
    try:
        record = setup.workspace.reader().read_json(source_record_path(source_id))
    except (HarnessError, OSError, ValueError):
        return ""
    return str(record.get("title") or "") if isinstance(record, dict) else ""


def _not_found(source_id: str, text: str, quote: str) -> str:
    where = closest_passage(text, quote)
    head = f"quote not found in {source_id} ({len(text)} characters): its words do not occur there in this order"
    if where is None:
        return head
    start, end, score = where
    shown = normalize_ws(text[start:end])[:CLOSEST_CHARS]
    return (
        f'{head}. The closest passage is at {start}..{end} ({score:.0f}% alike): "{shown}". '
        "Quote the source's words exactly (you may drop Markdown marks), or read it with read_source."
    )
