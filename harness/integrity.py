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

import json
import re
from pathlib import Path
from typing import Any, Callable

from .citations import CLAIM_ID, parse_citations
from .errors import Problem
from .textnorm import plan_content_sha256, quote_matches, sha256_bytes


class FileReader:
    """Reads workspace files by relative path; optional caching for whole-workspace checks."""

    def __init__(self, root: Path, cache: bool = False):
        self.root = root
        self._cache: dict[str, bytes | None] | None = {} if cache else None

    def read_bytes(self, rel: str) -> bytes | None:
        if self._cache is not None and rel in self._cache:
            return self._cache[rel]
        path = self.root / rel
        try:
            data = path.read_bytes() if path.is_file() else None
        except OSError:
            data = None
        if self._cache is not None:
            self._cache[rel] = data
        return data

    def read_text(self, rel: str) -> str | None:
        data = self.read_bytes(rel)
        if data is None:
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return None

    def read_json(self, rel: str) -> Any | None:
        text = self.read_text(rel)
        if text is None:
            return None
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            return None

    def exists(self, rel: str) -> bool:
        return self.read_bytes(rel) is not None


def _plan_question_ids(reader: FileReader) -> set[str] | None:
    plan = reader.read_json("plan.json")
    if not isinstance(plan, dict) or not isinstance(plan.get("questions"), list):
        return None
    return {q.get("id") for q in plan["questions"] if isinstance(q, dict)}


def check_plan(rel: str, plan: dict[str, Any], reader: FileReader) -> list[Problem]:
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
        problems.append(Problem(rel, "/approval/plan_sha256", "approval-binding",
                                "the plan changed after it was approved (approval hash does not match the plan's content)"))
    return problems


def _stem(rel: str) -> str:
    return rel.rsplit("/", 1)[-1].removesuffix(".json")


def _named_after_file(rel: str, doc: dict[str, Any], field: str) -> list[Problem]:
    """A source record or card carries its own id, which must be its file name."""
    if doc.get(field) == _stem(rel):
        return []
    return [Problem(rel, f"/{field}", "file-name", f"{field} {doc.get(field)} does not match the file name {_stem(rel)}")]


def check_source(rel: str, record: dict[str, Any], reader: FileReader) -> list[Problem]:
    stem = _stem(rel)
    problems = _named_after_file(rel, record, "source_id")
    text_rel = f"sources/{stem}.txt"
    data = reader.read_bytes(text_rel)
    if data is None:
        problems.append(Problem(rel, "/sha256", "snapshot-exists", f"the text snapshot {text_rel} is missing"))
        return problems
    if sha256_bytes(data) != record.get("sha256"):
        problems.append(Problem(rel, "/sha256", "snapshot-hash", f"{text_rel} does not match the recorded sha256 (the snapshot was changed)"))
    else:
        text = data.decode("utf-8", errors="replace")
        if len(text) != record.get("size"):
            problems.append(Problem(rel, "/size", "snapshot-size", f"size {record.get('size')} but {text_rel} has {len(text)} characters"))
    return problems


def check_card(rel: str, card: dict[str, Any], reader: FileReader) -> list[Problem]:
    problems = _named_after_file(rel, card, "card_id")
    source_id = card.get("source_id")
    record = reader.read_json(f"sources/{source_id}.json")
    if not isinstance(record, dict):
        problems.append(Problem(rel, "/source_id", "source-exists", f"source {source_id} is not registered (no sources/{source_id}.json)"))
    else:
        text_bytes = reader.read_bytes(f"sources/{source_id}.txt")
        if text_bytes is None:
            problems.append(Problem(rel, "/source_id", "snapshot-exists", f"source {source_id} has no text snapshot"))
        else:
            if sha256_bytes(text_bytes) != record.get("sha256"):
                problems.append(Problem(rel, "/source_id", "snapshot-hash", f"the snapshot of {source_id} does not match its recorded sha256"))
            span = card.get("span") or {}
            text = text_bytes.decode("utf-8", errors="replace")
            if not quote_matches(text, card.get("quote", ""), span.get("start", -1), span.get("end", -1)):
                problems.append(Problem(rel, "/quote", "quote-in-source",
                                        f"the quote does not occur in sources/{source_id}.txt at span {span.get('start')}..{span.get('end')}"))
    qids = _plan_question_ids(reader)
    if qids is None:
        problems.append(Problem(rel, "/question_id", "question-exists", "there is no valid plan.json to check the question id against"))
    elif card.get("question_id") not in qids:
        problems.append(Problem(rel, "/question_id", "question-exists", f"question {card.get('question_id')} is not in plan.json"))
    return problems


def check_claims(rel: str, doc: dict[str, Any], reader: FileReader) -> list[Problem]:
    problems = []
    qids = _plan_question_ids(reader)
    seen: set[str] = set()
    for i, claim in enumerate(doc.get("claims", [])):
        cid = claim.get("claim_id")
        if cid in seen:
            problems.append(Problem(rel, f"/claims/{i}/claim_id", "unique-id", f"claim id {cid} is used twice"))
        seen.add(cid)
        if qids is None:
            problems.append(Problem(rel, f"/claims/{i}/question_id", "question-exists", "there is no valid plan.json to check the question id against"))
        elif claim.get("question_id") not in qids:
            problems.append(Problem(rel, f"/claims/{i}/question_id", "question-exists", f"question {claim.get('question_id')} is not in plan.json"))
        for field in ("supporting_cards", "contradicting_cards"):
            for j, card_id in enumerate(claim.get(field, [])):
                if not reader.exists(f"source-cards/{card_id}.json"):
                    problems.append(Problem(rel, f"/claims/{i}/{field}/{j}", "card-exists", f"card {card_id} does not exist in source-cards/"))
    return problems


def claim_ids(reader: FileReader) -> set[str] | None:
    doc = reader.read_json("claims.json")
    if not isinstance(doc, dict) or not isinstance(doc.get("claims"), list):
        return None
    return {c.get("claim_id") for c in doc["claims"] if isinstance(c, dict)}


def check_citations(rel: str, text: str, reader: FileReader) -> list[Problem]:
    """Every citation in a draft (or the final report) must name an existing claim."""
    problems = []
    citations = parse_citations(text)
    if not citations:
        return problems
    known = claim_ids(reader)
    for cit in citations:
        for key in cit.keys:
            if not CLAIM_ID.fullmatch(key):
                problems.append(Problem(rel, f"line {cit.line}", "citation-syntax", f"[@{key}] is not a claim id (cite claims as [@C1])"))
            elif known is None:
                problems.append(Problem(rel, f"line {cit.line}", "citation-resolves", f"[@{key}] cannot resolve: there is no valid claims.json"))
            elif key not in known:
                problems.append(Problem(rel, f"line {cit.line}", "citation-resolves", f"[@{key}] cites a claim that is not in claims.json"))
    return problems


def check_review(rel: str, review: dict[str, Any], reader: FileReader) -> list[Problem]:
    draft = review.get("draft", "")
    data = reader.read_bytes(draft)
    if data is None:
        return [Problem(rel, "/draft", "draft-exists", f"the reviewed draft {draft} does not exist")]
    if sha256_bytes(data) != review.get("draft_sha256"):
        return [Problem(rel, "/draft_sha256", "review-binding", f"{draft} changed after this review (sha256 does not match)")]
    return []


def check_run(rel: str, run: dict[str, Any], reader: FileReader) -> list[Problem]:
    problems = []
    plan = reader.read_json("plan.json")
    if isinstance(plan, dict) and isinstance(plan.get("approval"), dict) and plan["approval"].get("decision") == "approved":
        sha = plan_content_sha256(plan)
        if not any(isinstance(d, dict) and d.get("gate") == "plan" and d.get("decision") in ("approved", "edited")
                   and d.get("sha256") == sha for d in run.get("decisions", [])):
            problems.append(Problem(rel, "/decisions", "approval-recorded",
                                    "plan.json says approved, but run.json records no human decision for this plan"))
    approval = run.get("final_approval")
    if isinstance(approval, dict):
        data = reader.read_bytes(approval.get("draft", ""))
        if data is None:
            problems.append(Problem(rel, "/final_approval/draft", "draft-exists", f"the approved draft {approval.get('draft')} does not exist"))
        elif sha256_bytes(data) != approval.get("sha256"):
            problems.append(Problem(rel, "/final_approval/sha256", "approval-binding", f"{approval.get('draft')} changed after it was signed off"))
    return problems


def check_final_report(rel: str, text: str, reader: FileReader) -> list[Problem]:
    """Every citation link of the final report resolves to a claim's card, and no unusable claim is cited."""
    from .report import CARD_LINK, NOT_REPORTABLE  # the renderer defines the link syntax

    problems = []
    doc = reader.read_json("claims.json")
    claims = {c.get("claim_id"): c for c in (doc or {}).get("claims", []) if isinstance(c, dict)}
    for n, line in enumerate(text.splitlines(), start=1):
        if parse_citations(line):
            problems.append(Problem(rel, f"line {n}", "citation-rendered", "an unrendered [@...] citation is left in the final report"))
        for m in CARD_LINK.finditer(line):
            claim_id, card_path = m.group(1), m.group(2)
            claim = claims.get(claim_id)
            card_id = card_path.rsplit("/", 1)[-1].removesuffix(".json")
            if claim is None:
                problems.append(Problem(rel, f"line {n}", "citation-resolves", f"{claim_id} is not in claims.json"))
            elif claim.get("status") in NOT_REPORTABLE:
                problems.append(Problem(rel, f"line {n}", "claim-reportable", f"{claim_id} is {claim.get('status')} and must not be in the final report"))
            elif card_id not in claim.get("supporting_cards", []) + claim.get("contradicting_cards", []):
                problems.append(Problem(rel, f"line {n}", "citation-resolves", f"{card_path} is not a card of {claim_id}"))
            if not reader.exists(card_path):
                problems.append(Problem(rel, f"line {n}", "card-exists", f"{card_path} does not exist"))
    return problems


# Which cross-file check applies to which artifact kind.
CHECKS: dict[str, Callable[[str, Any, FileReader], list[Problem]]] = {
    "plan": check_plan,
    "source": check_source,
    "card": check_card,
    "claims": check_claims,
    "draft": check_citations,
    "final_report": check_final_report,
    "review": check_review,
    "run": check_run,
}


def check(kind: str, rel: str, content: Any, reader: FileReader) -> list[Problem]:
    fn = CHECKS.get(kind)
    return fn(rel, content, reader) if fn else []


def draft_number(rel: str) -> int | None:
    m = re.fullmatch(r"drafts/draft-([1-9][0-9]*)\.md", rel)
    return int(m.group(1)) if m else None
