"""The Reviewer's deterministic checks: always run on every draft, whatever engine reviews it.

`citation_not_supporting` here is the lexical screen of `evidence/support.py`; an LLM
Reviewer may add semantic ones. Each defect has a code, a severity, a location (line in the
draft), refs, a message and a route (who should fix it: researcher, analyst, writer or
human). An LLM review may add defects to these; it can never remove one
(`orchestrator/review_guard.py`).

`heading_as_finding` and `question_not_answered` are the answer check's (`evidence/answers.py`): a research question the
draft leaves partly or wholly unanswered is an error routed to the Researcher while that question
may still go back to research (`may_research`, decided by the parent: once per question, within
the revise budget); after that a warning, and the final report states it under Limitations.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any

from harness.contract.citations import CLAIM_ID, format_citation
from harness.contract.claims import CONFLICTED, NOT_REPORTABLE, USABLE, VERIFIED_WITH_LIMIT
from harness.contract.language import judges_overlap, run_language
from harness.contract.layout import SOURCE_ID
from harness.contract.statuses import (
    ANSWER_GAPS,
    BRANCH_WITHOUT_EVIDENCE,
    NEEDS_HUMAN,
    NOT_ANSWERED,
    PASS,
    REVISE,
    Verdict,
)
from harness.evidence.answer_meaning import FAR
from harness.evidence.answer_rule import LACK, ON_SIDE, UNNAMED
from harness.evidence.answers import answer_verdicts, claim_findings
from harness.evidence.draft import Sentence, parse_draft
from harness.evidence.lexical import content_words, coverage, numbers
from harness.evidence.support import evidence_text, supports
from harness.sources.injection import find_injections, flagged_spans, repeats_flagged
from harness.workspace.reader import RunReader

_DISAGREE = re.compile(
    r"\b(?:disagree\w*|conflict\w*|contradict\w*|inconsistent|whereas|differ\w*|while another|another source|other source|one source)\b",
    re.I,
)
_HEDGE = re.compile(
    r"\b(?:secondary|limit\w*|according to|reportedly|may|might|only|unconfirmed|not confirmed|caveat|low[- ]confidence|one source|uncertain\w*|unverified)\b",
    re.I,
)
_RECOMMEND = re.compile(r"\b(?:recommend\w*|should use|prefer\w*|choose|better choice|use .+ instead)\b", re.I)
_SOURCE_ID = re.compile(rf"\b{SOURCE_ID}\b")


def defect(
    code: str,
    line: int,
    message: str,
    route: str,
    *,
    excerpt: str = "",
    severity: str = "error",
    claims=(),
    cards=(),
    sources=(),
    questions=(),
) -> dict[str, Any]:
    refs = {
        k: list(v)
        for k, v in (("claims", claims), ("cards", cards), ("sources", sources), ("questions", questions))
        if v
    }
    location = {"line": line} | ({"excerpt": excerpt[:160]} if excerpt else {})
    return {
        "code": code,
        "severity": severity,
        "location": location,
        "refs": refs,
        "message": message,
        "route": route,
        "origin": "deterministic",
    }


def describe_defect(d: dict[str, Any]) -> str:
    """One defect as a model is told it (the Writer's and Analyst's feedback, the `check_draft` tool):
    its line, code and message, and the offending text when it has one."""
    location = d.get("location") or {}
    excerpt = location.get("excerpt")
    return f"- line {location.get('line')}: {d['code']}: {d['message']}" + (
        f' Offending text: "{excerpt}"' if excerpt else ""
    )


def verdict_for(defects: list[dict[str, Any]]) -> Verdict:
    """The verdict `defects` allow: needs_human for an error only a human may fix, revise for any other error."""
    errors = [d for d in defects if d["severity"] == "error"]
    if any(d["route"] == "human" for d in errors):
        return NEEDS_HUMAN
    return REVISE if errors else PASS


class _Evidence:
    """Claims, cards and sources of a workspace, read once (through a caching reader)."""

    def __init__(self, reader: RunReader):
        self.reader = reader
        self.questions = reader.questions()
        self.claims = {cid: c for cid, c in (reader.claims() or {}).items() if cid is not None}
        self.card = reader.card
        self.source = reader.source
        self.language = run_language(reader.run())

    def flagged_sources(self) -> list[dict]:
        return [rec for sid in self.reader.source_ids() if (rec := self.source(sid)) and rec.get("flags")]


def _window(sentences: list[Sentence], i: int) -> str:
    """The sentence, its neighbours in the same section: where a caveat or the other side may be stated."""
    sec = sentences[i].section
    parts = [sentences[j].plain for j in (i - 1, i, i + 1) if 0 <= j < len(sentences) and sentences[j].section == sec]
    return " ".join(parts)


def draft_defects(
    reader: RunReader,
    draft_rel: str,
    branches: Mapping[str, Mapping[str, Any]] | None = None,
    *,
    text: str | None = None,
    may_research: Collection[str] = (),
) -> list[dict[str, Any]]:
    """All deterministic defects of the draft at `draft_rel` (or of `text`, a draft not yet written), read
    through `reader` (a caching one is best). `may_research`: the research questions that may still go back
    to research (an unanswered one is then an error for the Researcher, else a warning)."""
    text = (reader.read_text(draft_rel) or "") if text is None else text
    sentences = parse_draft(text)
    ev = _Evidence(reader)
    defects: list[dict[str, Any]] = []
    cited_questions: set[str] = set()
    checked_cards: set[str] = set()
    for i, s in enumerate(sentences):
        if s.factual and not s.citations:
            defects.append(
                defect(
                    "missing_citation",
                    s.line,
                    "This sentence states a fact but cites no claim.",
                    "writer",
                    excerpt=s.plain,
                )
            )
        for key in s.claim_ids:
            defects += _check_cited_claim(ev, key, sentences, i, cited_questions, checked_cards)
        if s.factual:
            defects += _check_heading(ev, s)
        defects += _check_support(ev, s)
        defects += [
            defect(
                "unknown_source", s.line, f"{sid} is not a registered source.", "writer", excerpt=s.plain, sources=[sid]
            )
            for sid in _SOURCE_ID.findall(s.text)
            if ev.source(sid) is None
        ]
    defects += _check_scope(ev, sentences, cited_questions, branches or {})
    cited = sorted({k for s in sentences for k in s.claim_ids if k in ev.claims})
    defects += _check_injection_echo(ev, text, sentences, cited)
    defects += _check_answers(reader, text, may_research)
    return defects


def _check_heading(ev: _Evidence, s: Sentence) -> list[dict]:
    """A factual sentence resting on a claim whose every quote is only a heading or a page title
    (`answers.heading_only`): a title states nothing, so it is never a finding."""
    out = []
    for key in s.claim_ids:
        claim = ev.claims.get(key)
        if claim is None or claim["status"] not in USABLE or not claim.get("supporting_cards"):
            continue
        if not claim_findings(ev.reader, {**claim, "contradicting_cards": []}):
            out.append(
                defect(
                    "heading_as_finding",
                    s.line,
                    f"{key} quotes only a heading or a page title, which states nothing; cite a claim that states the fact.",
                    "writer",
                    excerpt=s.plain,
                    claims=[key],
                )
            )
    return out


_NOT_ANSWERED_TEXT, _PARTLY_TEXT = "is not answered", "is only partly answered"


def answer_gap(d: dict[str, Any]) -> tuple[str, int] | None:
    """(question id, 2 when not answered, 1 when partly) for a `question_not_answered` defect; else None."""
    questions = (d.get("refs") or {}).get("questions") or []
    if d.get("code") != "question_not_answered" or not questions:
        return None
    return questions[0], 2 if f" {_NOT_ANSWERED_TEXT} " in d.get("message", "") else 1


def gap_wants_new_source(d: dict[str, Any]) -> bool:
    """Is the gap of a `question_not_answered` defect one that a source the draft does not cite yet may fill: a thing
    the question names that no cited quote names (its subject, a name, a side of a comparison), or no cited quote
    close in meaning to it? A missing kind of answer alone (a statement, a definition, a date, a number) is not: any
    source has one, so a new source would bring a word match, not the answer."""
    reason = d.get("message", "")
    lacking = reason.split(f" {LACK} ", 1)[1] if f" {LACK} " in reason else ""
    return UNNAMED in reason or FAR in reason or ON_SIDE in lacking


def _check_answers(reader: RunReader, text: str, may_research: Collection[str]) -> list[dict]:
    """A research question the cited evidence leaves partly or wholly unanswered (`evidence/answers.py`)."""
    out = []
    for v in answer_verdicts(reader, text):
        if v.verdict not in ANSWER_GAPS:
            continue
        again = v.question_id in may_research
        what = _NOT_ANSWERED_TEXT if v.verdict == NOT_ANSWERED else _PARTLY_TEXT
        out.append(
            defect(
                "question_not_answered",
                0,
                f"{v.question_id} {what} by the evidence the draft cites: {v.reason}. "
                + (
                    "Cite a claim of claims.json that answers it, if one does; its research goes back once."
                    if again
                    else "The report states it under Limitations."
                ),
                "researcher" if again else "writer",
                severity="error" if again else "warning",
                claims=v.claims,
                questions=[v.question_id],
            )
        )
    return out


def _check_cited_claim(
    ev: _Evidence, key: str, sentences: list[Sentence], i: int, cited_questions: set[str], checked_cards: set[str]
) -> list[dict]:
    """Sentence `i` cites `key`: the claim must exist, rest on sound cards (each checked once per draft) and be
    used as its status allows. Adds the question of a usable claim to `cited_questions`."""
    s = sentences[i]
    if not CLAIM_ID.fullmatch(key) or key not in ev.claims:
        return [
            defect(
                "unknown_claim",
                s.line,
                f"{format_citation([key])} does not name a claim in claims.json.",
                "writer",
                excerpt=s.plain,
                claims=[key],
            )
        ]
    out: list[dict] = []
    claim = ev.claims[key]
    if claim["status"] in USABLE:
        cited_questions.add(claim["question_id"])
    for card_id in claim.get("supporting_cards", []) + claim.get("contradicting_cards", []):
        if card_id not in checked_cards:
            checked_cards.add(card_id)
            out += _check_card(ev, card_id, key, s.line)
    if claim["status"] in NOT_REPORTABLE:
        out.append(
            defect(
                "unsupported_claim",
                s.line,
                f"{key} is {claim['status']} and must not be used as a fact.",
                "writer",
                excerpt=s.plain,
                claims=[key],
                questions=[claim["question_id"]],
            )
        )
    elif claim["status"] == CONFLICTED:
        out += _check_conflict(ev, claim, sentences, i)
    elif claim["status"] == VERIFIED_WITH_LIMIT:
        limits = content_words(" ".join(claim.get("limitations", [])))

        def states_limit(text: str) -> bool:
            return bool(_HEDGE.search(text)) or coverage(limits, content_words(text)) >= 0.5

        # Near the sentence, or once for the section in a sentence that cites this claim too (a limitation
        # shared by several claims of one source is said once: "These findings have a limitation: ...").
        same_section = (t.plain for t in sentences if t.section == s.section and key in t.claim_ids)
        if not states_limit(_window(sentences, i)) and not any(map(states_limit, same_section)):
            out.append(
                defect(
                    "uncertainty_removed",
                    s.line,
                    f"{key} is verified only with a limitation ({'; '.join(claim['limitations'])}) that the text does not state.",
                    "writer",
                    excerpt=s.plain,
                    claims=[key],
                )
            )
    return out


def _check_support(ev: _Evidence, s: Sentence) -> list[dict]:
    """A sentence citing only usable claims must be supported by their evidence (the lexical screen; its word
    overlap is waived for a report in another language than English, `contract.language.judges_overlap`)."""
    usable = [ev.claims[k] for k in s.claim_ids if k in ev.claims and ev.claims[k]["status"] in USABLE]
    if not usable or len(usable) != len(s.claim_ids):
        return []
    quotes = [
        card["quote"]
        for cl in usable
        for c in cl["supporting_cards"] + cl["contradicting_cards"]
        if (card := ev.card(c))
    ]
    evidence = " ".join(evidence_text(cl, []) for cl in usable) + " " + " ".join(quotes)
    if supports(s.plain, evidence, words=judges_overlap(ev.language)):
        return []
    return [
        defect(
            "citation_not_supporting",
            s.line,
            f"The cited claim(s) {', '.join(s.claim_ids)} do not support this sentence (its words or figures are not in their evidence).",
            "writer",
            excerpt=s.plain,
            claims=list(s.claim_ids),
        )
    ]


def _check_card(ev: _Evidence, card_id: str, claim_id: str, line: int) -> list[dict]:
    card = ev.card(card_id)
    if card is None:
        return [
            defect(
                "unknown_source",
                line,
                f"{claim_id} rests on card {card_id}, which does not exist.",
                "analyst",
                claims=[claim_id],
                cards=[card_id],
            )
        ]
    rule = ev.reader.quote_check(card)
    if rule in ("source-exists", "snapshot-exists"):
        return [
            defect(
                "unknown_source",
                line,
                f"Card {card_id} cites {card['source_id']}, which is not a registered source.",
                "researcher",
                claims=[claim_id],
                cards=[card_id],
                sources=[card["source_id"]],
            )
        ]
    if rule is not None:
        return [
            defect(
                "quote_not_in_source",
                line,
                f"The quote of card {card_id} is not in {card['source_id']} at its span.",
                "researcher",
                claims=[claim_id],
                cards=[card_id],
                sources=[card["source_id"]],
            )
        ]
    return _check_retracted(ev, card, claim_id, line)


def _check_retracted(ev: _Evidence, card: dict, claim_id: str, line: int) -> list[dict]:
    """A claim resting on a retracted paper (its source record's `work.retracted`) is a defect: the Analyst must
    rest it on other evidence or reject it."""
    source = ev.source(card["source_id"]) or {}
    if not (source.get("work") or {}).get("retracted"):
        return []
    return [
        defect(
            "retracted_source",
            line,
            f"{claim_id} rests on card {card['card_id']}, which quotes {card['source_id']}, a retracted paper "
            f"({source['work'].get('title', '')!r}): support the claim with other evidence or reject it.",
            "analyst",
            claims=[claim_id],
            cards=[card["card_id"]],
            sources=[card["source_id"]],
        )
    ]


def _check_conflict(ev: _Evidence, claim: dict, sentences: list[Sentence], i: int) -> list[dict]:
    s = sentences[i]
    window = _window(sentences, i)
    out = []
    side_numbers = [
        set().union(*(numbers(card["quote"]) for c in claim[side] if (card := ev.card(c))))
        for side in ("supporting_cards", "contradicting_cards")
    ]
    differing = (side_numbers[0] ^ side_numbers[1]) if all(side_numbers) else set()
    if not _DISAGREE.search(window) or (differing and not differing <= numbers(window)):
        out.append(
            defect(
                "conflict_hidden",
                s.line,
                f"{claim['claim_id']} is conflicted; the text must say the sources disagree and show both sides.",
                "writer",
                excerpt=s.plain,
                claims=[claim["claim_id"]],
            )
        )
    elif _RECOMMEND.search(s.plain):
        out.append(
            defect(
                "conflict_hidden",
                s.line,
                f"{claim['claim_id']} is conflicted and must not back a recommendation.",
                "writer",
                excerpt=s.plain,
                claims=[claim["claim_id"]],
            )
        )
    return out


def _check_scope(
    ev: _Evidence, sentences: list[Sentence], cited: set[str], branches: Mapping[str, Mapping[str, Any]]
) -> list[dict]:
    out = []
    stated = " ".join(s.plain for s in sentences if not s.factual)
    stated_words = content_words(stated)
    for q in ev.questions:
        if q.get("kind") != "research" or q["id"] in cited:
            continue
        if re.search(rf"\b{re.escape(q['id'])}\b", stated) or coverage(content_words(q["text"]), stated_words) >= 0.6:
            continue  # the draft says why this question is not answered
        usable = [c for c in ev.claims.values() if c["question_id"] == q["id"] and c["status"] in USABLE]
        branch = branches.get(q["id"], {})
        route = "writer" if usable or branch.get("status") in BRANCH_WITHOUT_EVIDENCE else "researcher"
        out.append(
            defect(
                "scope_not_covered",
                0,
                f"{q['id']} ({q['text']}) has no claim in the draft and no stated reason.",
                route,
                questions=[q["id"]],
            )
        )
    return out


def _check_injection_echo(ev: _Evidence, text: str, sentences: list[Sentence], cited: list[str]) -> list[dict]:
    """Instruction-like text in any field the final report prints: the draft's prose; each cited claim's
    statement and limitations and each of its cards' quotes (the Evidence section); the titles of
    those cards' sources (the Sources section). A field echoes a source when it repeats a flagged
    sentence of it (six words in a row, the rule of `sources/injection.repeats_flagged`); any field
    is also screened by the detector itself."""
    flagged = [(rec, ev.reader.snapshot(rec["source_id"]) or "") for rec in ev.flagged_sources()]

    def echoes(field: str) -> list[str]:
        return [rec["source_id"] for rec, snap in flagged if repeats_flagged(field, snap, rec["flags"])]

    titles: dict[str, str] = {}  # source id -> title, of the sources the cited claims' cards quote
    out = _echo_in_prose(ev, text, sentences, echoes)
    out += _echo_in_evidence(ev, cited, echoes, titles)
    # The Sources section: titles come from tools, so a title that repeats flagged text means the
    # workspace was edited or written by older code; no agent can fix it.
    for sid, title in titles.items():
        if find_injections(title) or echoes(title):
            out.append(
                defect(
                    "injection_echo",
                    0,
                    f"The title of {sid} repeats instruction-like text; the report would print it in its Sources section.",
                    "human",
                    sources=[sid],
                )
            )
    return out


def _echo_in_prose(ev: _Evidence, text: str, sentences: list[Sentence], echoes) -> list[dict]:
    """The draft's prose, sentence by sentence (headings and the plan's own wording, which a draft
    legitimately repeats, are not counted), then the whole text through the detector."""
    out = []
    asked = " ".join(" ".join(q.get("text", "") for q in ev.questions).lower().split())
    reported: set[str] = set()
    for s in sentences:
        if " ".join(s.plain.lower().split()) in asked:
            continue
        for sid in echoes(s.plain):
            if sid not in reported:
                reported.add(sid)
                out.append(
                    defect(
                        "injection_echo",
                        s.line,
                        f"The draft repeats instruction-like text flagged in {sid}.",
                        "writer",
                        excerpt=s.plain,
                        sources=[sid],
                    )
                )
    for found in find_injections(text):
        out.append(
            defect(
                "injection_echo",
                text.count("\n", 0, int(found["offset"])) + 1,
                f'The draft contains instruction-like text ({found.get("reason")}): "{str(found["excerpt"])[:80]}".',
                "writer",
            )
        )
    return out


def _echo_in_evidence(ev: _Evidence, cited: list[str], echoes, titles: dict[str, str]) -> list[dict]:
    """The Evidence section: each cited claim and the quotes of its cards (a quote inside a flagged span
    counts too). Records in `titles` the sources those cards quote."""
    out = []
    for cid in cited:
        claim = ev.claims[cid]
        stated = " ".join([claim["statement"], *claim.get("limitations", [])])
        if find_injections(stated) or echoes(stated):
            out.append(
                defect(
                    "injection_echo",
                    0,
                    f"{cid}'s statement or limitations carry instruction-like text from a source.",
                    "analyst",
                    claims=[cid],
                )
            )
        for card_id in claim.get("supporting_cards", []) + claim.get("contradicting_cards", []):
            card = ev.card(card_id)
            rec = ev.source(card["source_id"]) if card else None
            if card is None or rec is None:
                continue  # reported as unknown_source by _check_card
            titles[rec["source_id"]] = rec.get("title", "")
            snap = ev.reader.snapshot(rec["source_id"]) or ""
            span = card.get("span") or {}
            inside = any(span.get("start", 0) < e and s < span.get("end", 0) for s, e in flagged_spans(rec, snap))
            if inside or find_injections(card["quote"]) or echoes(card["quote"]):
                out.append(
                    defect(
                        "injection_echo",
                        0,
                        f"Card {card_id} of {cid} quotes instruction-like text.",
                        "researcher",
                        claims=[cid],
                        cards=[card_id],
                        sources=[card["source_id"]],
                    )
                )
    return out
