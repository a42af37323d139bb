"""Cross-file checks: the links between artifacts that no single schema can see.

The same functions run when an artifact is written (on the content about to land)
and in `research validate` (on every file of a workspace, hand-edited or not):

- a card's source exists, its quote occurs verbatim (whitespace-normalized) in the
  stored snapshot at its span, and its question is in the plan;
- a source's snapshot hash and size match its record;
- claims reference existing cards and plan questions;
- draft and final-report citations reference existing claims;
- a review's draft hash matches the draft;
- a plan approval binds to the plan's content hash, a final approval to the draft's bytes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from harness.contract.citations import CARD_LINK, CLAIM_ID, format_citation, parse_citations
from harness.contract.claims import NOT_REPORTABLE
from harness.contract.formats import plan_content_sha256, sha256_bytes
from harness.contract.layout import card_path, id_of, snapshot_path
from harness.errors import Problem
from harness.workspace.reader import RunReader


def _plan_question_ids(reader: RunReader) -> set[str] | None:
    plan = reader.plan()
    if plan is None or not isinstance(plan.get("questions"), list):
        return None
    return {q["id"] for q in reader.questions() if isinstance(q.get("id"), str)}


def check_plan(rel: str, plan: dict[str, Any], reader: RunReader) -> list[Problem]:
    problems = []
    seen: set[str] = set()
    for i, q in enumerate(plan.get("questions", [])):
        if q.get("id") in seen:
            problems.append(Problem(rel, f"/questions/{i}/id", "unique-id", f"question id {q.get('id')} is used twice"))
        seen.add(q.get("id"))
    if not any(q.get("kind") == "research" for q in plan.get("questions", [])):
        problems.append(Problem(rel, "/questions", "research-question", "the plan has no research question"))
    approval = plan.get("approval")
    if isinstance(approval, dict) and approval.get("plan_sha256") != plan_content_sha256(plan):
        problems.append(
            Problem(
                rel,
                "/approval/plan_sha256",
                "approval-binding",
                "the plan changed after it was approved (approval hash does not match the plan's content)",
            )
        )
    return problems


def _named_after_file(rel: str, doc: dict[str, Any], field: str) -> list[Problem]:
    """A source record or card carries its own id, which must be its file name."""
    if doc.get(field) == id_of(rel):
        return []
    return [
        Problem(rel, f"/{field}", "file-name", f"{field} {doc.get(field)} does not match the file name {id_of(rel)}")
    ]


def check_source(rel: str, record: dict[str, Any], reader: RunReader) -> list[Problem]:
    problems = _named_after_file(rel, record, "source_id")
    text_rel = snapshot_path(id_of(rel))
    data = reader.read_bytes(text_rel)
    if data is None:
        problems.append(Problem(rel, "/sha256", "snapshot-exists", f"the text snapshot {text_rel} is missing"))
        return problems
    if sha256_bytes(data) != record.get("sha256"):
        problems.append(
            Problem(
                rel,
                "/sha256",
                "snapshot-hash",
                f"{text_rel} does not match the recorded sha256 (the snapshot was changed)",
            )
        )
    else:
        text = data.decode("utf-8", errors="replace")
        if len(text) != record.get("size"):
            problems.append(
                Problem(
                    rel,
                    "/size",
                    "snapshot-size",
                    f"size {record.get('size')} but {text_rel} has {len(text)} characters",
                )
            )
    return problems


_QUOTE_PROBLEMS = {  # quote_check's rule -> (pointer, message)
    "source-exists": ("/source_id", "source {sid} is not registered (no sources/{sid}.json)"),
    "snapshot-exists": ("/source_id", "source {sid} has no text snapshot"),
    "snapshot-hash": ("/source_id", "the snapshot of {sid} does not match its recorded sha256"),
    "quote-in-source": ("/quote", "the quote does not occur in sources/{sid}.txt at span {start}..{end}"),
}


def check_card(rel: str, card: dict[str, Any], reader: RunReader) -> list[Problem]:
    problems = _named_after_file(rel, card, "card_id")
    rule = reader.quote_check(card)
    if rule is not None:
        pointer, message = _QUOTE_PROBLEMS[rule]
        span = card.get("span") or {}
        problems.append(
            Problem(
                rel,
                pointer,
                rule,
                message.format(sid=card.get("source_id"), start=span.get("start"), end=span.get("end")),
            )
        )
    qids = _plan_question_ids(reader)
    if qids is None:
        problems.append(
            Problem(
                rel, "/question_id", "question-exists", "there is no valid plan.json to check the question id against"
            )
        )
    elif card.get("question_id") not in qids:
        problems.append(
            Problem(rel, "/question_id", "question-exists", f"question {card.get('question_id')} is not in plan.json")
        )
    return problems


def check_claims(rel: str, doc: dict[str, Any], reader: RunReader) -> list[Problem]:
    problems = []
    qids = _plan_question_ids(reader)
    seen: set[str] = set()
    for i, claim in enumerate(doc.get("claims", [])):
        cid = claim.get("claim_id")
        if cid in seen:
            problems.append(Problem(rel, f"/claims/{i}/claim_id", "unique-id", f"claim id {cid} is used twice"))
        seen.add(cid)
        if qids is None:
            problems.append(
                Problem(
                    rel,
                    f"/claims/{i}/question_id",
                    "question-exists",
                    "there is no valid plan.json to check the question id against",
                )
            )
        elif claim.get("question_id") not in qids:
            problems.append(
                Problem(
                    rel,
                    f"/claims/{i}/question_id",
                    "question-exists",
                    f"question {claim.get('question_id')} is not in plan.json",
                )
            )
        series = [e.get("card_id") for e in claim.get("series", [])]  # an older figure's card, shown as superseded
        for field, ids in (
            *((f, claim.get(f, [])) for f in ("supporting_cards", "contradicting_cards")),
            ("series", series),
        ):
            for j, card_id in enumerate(ids):
                if not reader.exists(card_path(card_id)):
                    problems.append(
                        Problem(
                            rel,
                            f"/claims/{i}/{field}/{j}",
                            "card-exists",
                            f"card {card_id} does not exist in source-cards/",
                        )
                    )
    return problems


def check_citations(rel: str, text: str, reader: RunReader) -> list[Problem]:
    """Every citation in a draft (or the final report) must name an existing claim."""
    problems: list[Problem] = []
    citations = parse_citations(text)
    if not citations:
        return problems
    claims = reader.claims()
    known = None if claims is None else set(claims)
    for cit in citations:
        for key in cit.keys:
            if not CLAIM_ID.fullmatch(key):
                problems.append(
                    Problem(
                        rel,
                        f"line {cit.line}",
                        "citation-syntax",
                        f"{format_citation([key])} is not a claim id (cite claims as {format_citation(['C1'])})",
                    )
                )
            elif known is None:
                problems.append(
                    Problem(
                        rel,
                        f"line {cit.line}",
                        "citation-resolves",
                        f"{format_citation([key])} cannot resolve: there is no valid claims.json",
                    )
                )
            elif key not in known:
                problems.append(
                    Problem(
                        rel,
                        f"line {cit.line}",
                        "citation-resolves",
                        f"{format_citation([key])} cites a claim that is not in claims.json",
                    )
                )
    return problems


def check_review(rel: str, review: dict[str, Any], reader: RunReader) -> list[Problem]:
    draft = review.get("draft", "")
    data = reader.read_bytes(draft)
    if data is None:
        return [Problem(rel, "/draft", "draft-exists", f"the reviewed draft {draft} does not exist")]
    if sha256_bytes(data) != review.get("draft_sha256"):
        return [
            Problem(
                rel, "/draft_sha256", "review-binding", f"{draft} changed after this review (sha256 does not match)"
            )
        ]
    return []


def check_run(rel: str, run: dict[str, Any], reader: RunReader) -> list[Problem]:
    problems = []
    plan = reader.plan()
    if plan is not None and isinstance(plan.get("approval"), dict) and plan["approval"].get("decision") == "approved":
        sha = plan_content_sha256(plan)
        if not any(
            isinstance(d, dict)
            and d.get("gate") == "plan"
            and d.get("decision") in ("approved", "edited")
            and d.get("sha256") == sha
            for d in run.get("decisions", [])
        ):
            problems.append(
                Problem(
                    rel,
                    "/decisions",
                    "approval-recorded",
                    "plan.json says approved, but run.json records no human decision for this plan",
                )
            )
    approval = run.get("final_approval")
    if isinstance(approval, dict):
        data = reader.read_bytes(approval.get("draft", ""))
        if data is None:
            problems.append(
                Problem(
                    rel,
                    "/final_approval/draft",
                    "draft-exists",
                    f"the approved draft {approval.get('draft')} does not exist",
                )
            )
        elif sha256_bytes(data) != approval.get("sha256"):
            problems.append(
                Problem(
                    rel,
                    "/final_approval/sha256",
                    "approval-binding",
                    f"{approval.get('draft')} changed after it was signed off",
                )
            )
    return problems


def check_final_report(rel: str, text: str, reader: RunReader) -> list[Problem]:
    """Every citation link of the final report resolves to a claim's card, and no unusable claim is cited."""
    problems = []
    claims = reader.claims() or {}
    for n, line in enumerate(text.splitlines(), start=1):
        if parse_citations(line):
            problems.append(
                Problem(
                    rel, f"line {n}", "citation-rendered", "an unrendered [@...] citation is left in the final report"
                )
            )
        for m in CARD_LINK.finditer(line):
            claim_id, link = m.group(1), m.group(2)
            claim = claims.get(claim_id)
            card_id = id_of(link)
            if claim is None:
                problems.append(Problem(rel, f"line {n}", "citation-resolves", f"{claim_id} is not in claims.json"))
            elif claim.get("status") in NOT_REPORTABLE:
                problems.append(
                    Problem(
                        rel,
                        f"line {n}",
                        "claim-reportable",
                        f"{claim_id} is {claim.get('status')} and must not be in the final report",
                    )
                )
            elif card_id not in claim.get("supporting_cards", []) + claim.get("contradicting_cards", []):
                problems.append(Problem(rel, f"line {n}", "citation-resolves", f"{link} is not a card of {claim_id}"))
            if not reader.exists(link):
                problems.append(Problem(rel, f"line {n}", "card-exists", f"{link} does not exist"))
    return problems


# Which cross-file check applies to which artifact kind.
CHECKS: dict[str, Callable[[str, Any, RunReader], list[Problem]]] = {
    "plan": check_plan,
    "source": check_source,
    "card": check_card,
    "claims": check_claims,
    "draft": check_citations,
    "final_report": check_final_report,
    "review": check_review,
    "run": check_run,
}


def check(kind: str, rel: str, content: Any, reader: RunReader) -> list[Problem]:
    fn = CHECKS.get(kind)
    return fn(rel, content, reader) if fn else []
