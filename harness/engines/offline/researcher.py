"""Offline Researcher: BM25 retrieval per question, then verbatim sentence extraction into evidence cards.

For each plan question the Researcher searches with the question's search terms, then
reads each hit's passage sentence by sentence. A sentence becomes an evidence card when
it is prose (not code), its passage or document is about the question's subject, and it
mentions the subject or the criteria the question asks about. The quote is copied from
the stored snapshot with its offsets, so it verifies verbatim. Confidence comes from the
sentence's coverage of the question's words and the passage's retrieval rank.
Sentences inside text flagged as instruction-like are never quoted. No relevant
sentence → the branch is blocked; only secondary sources → blocked with that reason.
"""

from __future__ import annotations

import re

from harness.contract.layout import PLAN, card_path, new_card_id, snapshot_path, source_record_path
from harness.evidence.lexical import content_words
from harness.runtime.interface import AgentResult, Brief
from harness.sources.injection import flagged_spans
from harness.sources.sentences import split_sentences

SEARCH_K = 8
MAX_CARDS = 6
MAX_PER_SOURCE = 2
MIN_SCORE = 0.5
MIN_CHARS, MAX_CHARS = 30, 500
_CODE_START = re.compile(
    r"^(?:async\s+with|with\s+\w+\(|def\s|class\s|import\s|from\s+\S+\s+import|>>>|\$|@|[\w.]+\s*=|#)"
)


def is_prose(sentence: str) -> bool:
    """A sentence a report can quote: words, not code."""
    stripped = sentence.strip()
    if "\n    " in sentence or "\n\t" in sentence or _CODE_START.match(stripped):
        return False
    if not re.match(r"[A-Za-z`\"“]", stripped) or re.search(r"#\d", stripped):
        return False  # list markers, changelog entries, issue numbers
    if sentence.rstrip().endswith(":"):
        return False
    tokens = sentence.split()
    words = [t for t in tokens if re.fullmatch(r"[A-Za-z][A-Za-z'’-]*[,.;:!?)]*|\(?[A-Za-z][A-Za-z'’-]*", t)]
    return len(tokens) >= 6 and len(words) >= 0.6 * len(tokens)


def _subject_term(term: str) -> str:
    """The specific part of a dotted name (asyncio.TaskGroup → TaskGroup): the package alone is too broad."""
    term = term.strip().strip("`").removesuffix("()")
    return term.rsplit(".", 1)[-1] if re.fullmatch(r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+", term) else term


def _confidence(rank: int, score: float) -> str:
    if score >= 1.0 and rank < 3:
        return "high"
    if score >= 0.75:
        return "medium"
    return "low"


class OfflineResearcher:
    def __init__(self, spec=None):
        self.spec = spec

    def run(self, brief: Brief, ctx) -> AgentResult:
        plan = ctx.read_json(PLAN)
        question = next(q for q in plan["questions"] if q["id"] == brief.question_id)
        terms = question.get("search_terms") or []
        topic_words = content_words(question["text"])
        # The subject is what the question is about (its first search term, e.g. "asyncio.TaskGroup");
        # the criteria are the other words it asks about ("error handling", "cancellation").
        subject = content_words(_subject_term(terms[0])) if terms else topic_words
        criteria = (topic_words | content_words(" ".join(question.get("criteria", [])))) - content_words(
            terms[0] if terms else ""
        )
        criteria = (criteria - subject) or set(subject)  # a plain question asks about its subject itself
        queries = list(dict.fromkeys([*terms, " ".join(sorted(topic_words))] if terms else [question["text"]]))

        cache: dict[str, tuple[str, dict]] = {}

        def source(sid: str) -> tuple[str, dict]:
            if sid not in cache:  # read through the guarded context, once per source
                cache[sid] = (ctx.read_text(snapshot_path(sid)), ctx.read_json(source_record_path(sid)))
            return cache[sid]

        candidates = []
        seen_spans = set()
        for query in queries:
            for rank, hit in enumerate(ctx.search(query, SEARCH_K)):
                text, record = source(hit.source_id)
                about = content_words(hit.text) | content_words(hit.title) | content_words(hit.path.replace("/", " "))
                if not subject & about:
                    continue  # the passage is not about the question's subject
                flagged = flagged_spans(record, text)
                for s, e in split_sentences(text, hit.start, hit.end):
                    if (hit.source_id, s) in seen_spans or not (MIN_CHARS <= e - s <= MAX_CHARS):
                        continue
                    if any(s < fe and fs < e for fs, fe in flagged) or not is_prose(text[s:e]):
                        continue
                    words = content_words(text[s:e])
                    in_doc = subject & (content_words(hit.title) | content_words(hit.path.replace("/", " ")))
                    score = (len(criteria & words) / len(criteria) if criteria else 0.0) + (
                        0.5 if subject & words else 0.25 if in_doc else 0.0
                    )
                    if score < MIN_SCORE:
                        continue
                    seen_spans.add((hit.source_id, s))
                    candidates.append((-score, rank, hit.source_id, s, e, hit.kind, hit.title, hit.flagged))
        candidates.sort()
        per_source: dict[str, int] = {}
        kinds: set[str] = set()
        written = 0
        for neg_score, rank, sid, s, e, kind, title, flagged in candidates:
            if written >= MAX_CARDS or per_source.get(sid, 0) >= MAX_PER_SOURCE:
                continue
            per_source[sid] = per_source.get(sid, 0) + 1
            ctx.check_deadline()
            text = source(sid)[0]
            limitations = []
            if kind == "secondary":
                limitations.append("secondary source")
            if flagged:
                limitations.append("the source contains instruction-like text (flagged for review)")
            card_id = new_card_id(brief.question_id, sid, per_source[sid])
            matched = sorted((subject | criteria) & content_words(text[s:e]))
            ctx.write(
                card_path(card_id),
                {
                    "card_id": card_id,
                    "source_id": sid,
                    "question_id": brief.question_id,
                    "quote": text[s:e],
                    "span": {"start": s, "end": e},
                    "evidence_summary": f'"{title}" speaks to {", ".join(matched[:5]) or "the question"} for {brief.question_id}.',
                    "confidence": _confidence(rank, -neg_score),
                    "limitations": limitations,
                    "extracted_by": {"role": ctx.role, "engine": ctx.engine, "model": ctx.model},
                    "run_id": ctx.run_id,
                },
            )
            written += 1
            kinds.add(kind)
        if not written:
            return AgentResult(
                "blocked",
                "no relevant passage",
                blocked_reason=f"no_evidence: no passage matched {', '.join(repr(q) for q in queries[:4])}",
            )
        if kinds == {"secondary"}:
            return AgentResult(
                "blocked",
                f"{written} card(s), secondary sources only",
                blocked_reason="no_primary_source: only secondary sources address this question",
            )
        return AgentResult("completed", f"{written} card(s) from {len(per_source)} source(s)")
