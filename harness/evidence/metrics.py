"""Per-run metrics, computed from the workspace files alone (so any workspace can be re-measured).

Definitions (also in docs/metrics.md):
- citation_coverage: factual sentences of the report that cite a claim / factual sentences.
- citation_correctness: (sentence, cited claim) pairs whose claim exists and is reportable, whose
  cards' quotes are verbatim in their sources, and which the claim supports (harness/review/support.py:
  a third of the sentence's content words, and all its numbers, in the claim's statement,
  limitations and quotes), and which an LLM Reviewer, when one reviewed the draft, did not flag as
  citation_not_supporting / all such pairs. `judge` says which: "lexical" or "lexical+llm (model)".
- primary_source_ratio: primary sources / sources reached through the report's citations.
- conflict_disclosure_rate: conflicted claims that are either cited with the disagreement stated or
  named in a non-factual sentence (e.g. Limitations) / conflicted claims in claims.json.
- subtask_success_rate: delegations that ended `completed` / all delegations.
- duplicate_source_rate: source hits that another research branch had already registered / all hits.
- unsupported_claim_rate: rejected or unsupported claims / claims.
- plan_coverage: research questions with a cited usable claim or a stated reason / research questions.
- answer_coverage: research questions the answer check (harness/evidence/answers.py) finds `answered`
  / research questions; `answers` holds each question's verdict and reason (and a model Reviewer's
  judgement beside it, when one gave it).
- injection_flags: registered sources in which instruction-like sentences were flagged, how many
  sentences, and how many per reason (harness/sources/injection/).
- cost: dollars per run and per verified claim (statable claims: verified or verified_with_limit), and tokens
  per verified claim; the dollars are null ("price unknown") when any model call's price was unknown.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from harness.contract.claims import CONFLICTED, NOT_REPORTABLE, STATABLE, USABLE
from harness.contract.injection import REASONS
from harness.contract.language import judges_overlap, run_language
from harness.contract.specs import ROLES
from harness.contract.statuses import ANSWERED, COMPLETED
from harness.evidence.answers import answer_records
from harness.evidence.checks import draft_defects
from harness.evidence.draft import Sentence, parse_draft
from harness.evidence.support import evidence_text, supports
from harness.workspace.reader import RunReader


def _ratio(num: int, den: int) -> dict[str, Any]:
    return {"value": round(num / den, 4) if den else None, "numerator": num, "denominator": den}


def _llm_judgement(reader: RunReader, draft_rel: str | None) -> tuple[set[tuple[int | None, str]], str]:
    """(line, claim) citations an LLM Reviewer judged unsupported in the review of this draft, and the judge's name.

    With a model reviewing, its semantic `citation_not_supporting` defects count against
    citation correctness on top of the lexical rule; it never turns a lexical failure into a pass.
    """
    if not draft_rel:
        return set(), "lexical"
    for rel in reversed(reader.reviews()):
        review = reader.read_json(rel) or {}
        if review.get("draft") != draft_rel:
            continue
        by = review.get("reviewed_by") or {}
        if by.get("engine") != "llm":
            return set(), "lexical"
        flagged = {
            ((d.get("location") or {}).get("line"), cid)
            for d in review.get("defects", [])
            if d.get("origin") == "llm" and d.get("code") == "citation_not_supporting"
            for cid in (d.get("refs") or {}).get("claims", [])
        }
        return flagged, f"lexical+llm ({by.get('model')})"
    return set(), "lexical"


def injection_flags(reader: RunReader) -> dict[str, Any]:
    """Flagged sources and sentences among the run's registered sources, with the count per reason."""
    sources = sentences = 0
    by_reason = dict.fromkeys(REASONS, 0)
    for sid in reader.source_ids():
        flags = (reader.source(sid) or {}).get("flags") or []
        sources += bool(flags)
        sentences += len(flags)
        for flag in flags:
            reason = flag.get("reason")
            if reason in by_reason:
                by_reason[reason] += 1
    return {
        "sources": sources,
        "sentences": sentences,
        "registered_sources": len(reader.source_ids()),
        "by_reason": by_reason,
    }


@dataclass
class _Citations:
    """What the report's citations reach: (sentence, claim) pairs, the correct ones, and the sources and
    research questions the usable cited claims lead to."""

    pairs: int = 0
    correct: int = 0
    sources: set[str] = field(default_factory=set)
    questions: set[str] = field(default_factory=set)


def _check_citations(
    reader: RunReader, sentences: list[Sentence], claims: Mapping[str, Any], judged: set[tuple[int | None, str]]
) -> _Citations:
    """Each (sentence, cited claim) pair checked: the claim usable, its cards' quotes verbatim, the claim
    supporting the sentence, and no LLM Reviewer flagging the pair (citation correctness)."""
    cited = _Citations()
    for s in sentences:
        for cid in s.claim_ids:
            cited.pairs += 1
            claim = claims.get(cid)
            if claim is None or claim["status"] not in USABLE:
                continue
            cited.questions.add(claim["question_id"])
            quotes: list[str] = []
            ok = True
            for card_id in claim["supporting_cards"] + claim["contradicting_cards"]:
                card = reader.card(card_id)
                if card is None or reader.quote_check(card) is not None:
                    ok = False
                    continue
                cited.sources.add(card["source_id"])
                quotes.append(card["quote"])
            evidence = evidence_text(claim, quotes)
            if (
                ok
                and supports(s.plain, evidence, words=judges_overlap(run_language(reader.run())))
                and (s.line, cid) not in judged
            ):
                cited.correct += 1
    return cited


def _disclosed_conflicts(
    reader: RunReader,
    draft_rel: str | None,
    text: str | None,
    branches: Mapping[str, Mapping[str, Any]] | None,
    sentences: list[Sentence],
    claims: Mapping[str, Any],
) -> tuple[int, int]:
    """(disclosed, all) conflicted claims: one is disclosed when cited without the Reviewer finding the
    disagreement hidden, or named, uncited, in a non-factual sentence (Limitations)."""
    hidden = set()
    if draft_rel and text:
        for d in draft_defects(reader, draft_rel, branches):
            if d["code"] == "conflict_hidden":
                hidden.update(d["refs"].get("claims", []))
    notes = _notes(sentences)
    cited_ids = {cid for s in sentences for cid in s.claim_ids}
    conflicted = [c for c in claims.values() if c["status"] == CONFLICTED]
    disclosed = sum(
        1
        for c in conflicted
        if (c["claim_id"] in cited_ids and c["claim_id"] not in hidden)
        or (c["claim_id"] not in cited_ids and re.search(rf"\b{c['claim_id']}\b", notes))
    )
    return disclosed, len(conflicted)


def _notes(sentences: list[Sentence]) -> str:
    """The report's non-factual sentences, joined: where a question's or a claim's id may be named with a reason."""
    return " ".join(s.plain for s in sentences if not s.factual)


def compute_metrics(
    reader: RunReader,
    draft_rel: str | None,
    branches: Mapping[str, Mapping[str, Any]] | None = None,
    wall_seconds: float = 0.0,
) -> dict[str, Any]:
    """The metrics of the run `reader` reads (a caching reader: every card and source is read once)."""
    run = reader.run()
    claims = reader.claims() or {}
    research = [q for q in reader.questions() if q.get("kind") == "research"]
    text = reader.read_text(draft_rel) if draft_rel else None
    sentences = parse_draft(text) if text else []
    factual = [s for s in sentences if s.factual]

    judged, judge = _llm_judgement(reader, draft_rel)
    cited = _check_citations(reader, sentences, claims, judged)
    kinds = [(reader.source(sid) or {}).get("kind") for sid in sorted(cited.sources)]
    disclosed, conflicted = _disclosed_conflicts(reader, draft_rel, text, branches, sentences, claims)
    notes = _notes(sentences)
    covered = sum(1 for q in research if q["id"] in cited.questions or re.search(rf"\b{re.escape(q['id'])}\b", notes))

    answers = answer_records(reader, draft_rel)

    delegations = [e for e in reader.events() if e.get("event") == "delegation"]
    roles = role_costs(delegations)
    stats = run.get("stats") or {}
    return {
        "run_id": run.get("run_id"),
        "report": draft_rel,
        "ratios": {
            "citation_coverage": _ratio(sum(1 for s in factual if s.citations), len(factual)),
            "citation_correctness": _ratio(cited.correct, cited.pairs),
            "primary_source_ratio": _ratio(sum(1 for k in kinds if k == "primary"), len(kinds)),
            "conflict_disclosure_rate": _ratio(disclosed, conflicted),
            "subtask_success_rate": _ratio(
                sum(1 for e in delegations if e.get("stop_reason") == COMPLETED), len(delegations)
            ),
            "duplicate_source_rate": _ratio(stats.get("duplicate_sources", 0), stats.get("source_hits", 0)),
            "unsupported_claim_rate": _ratio(
                sum(1 for c in claims.values() if c["status"] in NOT_REPORTABLE), len(claims)
            ),
            "plan_coverage": _ratio(covered, len(research)),
            "answer_coverage": _ratio(sum(1 for a in answers if a["verdict"] == ANSWERED), len(research)),
        },
        "answers": answers,
        "judge": judge,
        "injection_flags": injection_flags(reader),
        "roles": roles,
        "cost": run_cost(roles, sum(1 for c in claims.values() if c["status"] in STATABLE)),
        "wall_seconds": round(wall_seconds, 3),
    }


def _usd(events: list[dict[str, Any]]) -> float | None:
    """The dollars of these delegations, or None (price unknown) when any of their model calls was unpriced. A
    delegation traced before dollars were recorded made its calls unpriced, unless it made none."""
    if any(e.get("unpriced_calls") or ("usd" not in e and e.get("llm_calls")) for e in events):
        return None
    return round(sum(e.get("usd", 0) for e in events), 6)


def role_costs(delegations: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Calls, tokens (thinking and cached shown apart), dollars (None: price unknown; 0 on the offline engine,
    which makes no model call), time and delegations per role, from the trace's delegation events."""
    roles: dict[str, dict[str, Any]] = {}
    for role in ROLES:
        mine = [e for e in delegations if e.get("agent") == role]
        roles[role] = {
            "llm_calls": sum(e.get("llm_calls", 0) for e in mine),
            "tokens": sum(e.get("tokens", 0) for e in mine),
            "thinking_tokens": sum(e.get("thinking_tokens", 0) for e in mine),
            "cached_tokens": sum(e.get("cached_tokens", 0) for e in mine),
            "usd": _usd(mine),
            "wall_seconds": round(sum((e.get("detail") or {}).get("seconds", 0) for e in mine), 3),
            "delegations": len(mine),
        }
    return roles


def run_cost(roles: dict[str, dict[str, Any]], verified_claims: int) -> dict[str, Any]:
    """The run's dollars and tokens, in all and per verified claim (null when there is none, or the dollars are
    unknown)."""
    usd = None if any(r["usd"] is None for r in roles.values()) else round(sum(r["usd"] for r in roles.values()), 6)
    tokens = sum(r["tokens"] for r in roles.values())
    return {
        "usd": usd,
        "tokens": tokens,
        "cached_tokens": sum(r["cached_tokens"] for r in roles.values()),
        "verified_claims": verified_claims,
        "usd_per_verified_claim": round(usd / verified_claims, 6) if usd is not None and verified_claims else None,
        "tokens_per_verified_claim": round(tokens / verified_claims, 1) if verified_claims else None,
        "price_unknown": sorted(role for role, r in roles.items() if r["usd"] is None),
    }
