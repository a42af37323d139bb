"""The answer check: does the report answer each research question of the plan, from what it cites?

One rule for every engine (invariant 10). For each research question it reads only the evidence the
draft cites for that question (the usable claims of that question the draft cites, and their cards'
verbatim quotes) and decides `answered`, `partly` or `not_answered`, with a one-line reason:

1. **The subject is there.** Every name the question gives (a code name, a proper name) is in a cited quote,
   its source's title or the heading above it (`Finding.context`); and at least half of its other topic words
   (four are enough) are there too, for a question without names, or with three such words or more besides
   its names. No finding, or no subject: `not_answered`.
2. **The kind of answer asked for is there**, each requirement in at least one cited quote that is itself
   about the subject (holds a name, or most of the topic words) and, for a step, a definition, a circumstance,
   a reason or a statement, holds the question's focus too: half its topic words, whatever names it holds (for
   "How do I bump the version?", a step about bumping the version, not any step under the product's name):
   - "what is / what does ... mean / do": a definition: the subject (a topic word when the question has any:
     for "What are hooks in MkDocs?", hooks), then what it is or does ("is", "means", "refers to", "returns",
     "lets"...), not only a state of it ("is available", "are enabled");
   - "how do I / how to": a step, command or setting, naming a code name, command or setting the question does
     not give (or a click): an instruction to the reader ("use", "call", "run", "you can set", "you'll need",
     "can be enabled with"...), a command, option or setting named as such ("the `add` command", "the `--check`
     flag"), a sentence opening with a command, or a command line alone; a code name in a sentence about
     something else is no step, nor is "you can also disable it" without saying how;
   - a comparison: each side on each criterion (a criterion's words, or the words it is commonly discussed
     with, `lexical.RELATED`); for a plan that researches one side per question, its criteria on its side;
   - "when should / when do / when can I": a recommendation or the reader's circumstance ("should", "prefer",
     "is needed", "if you", "use X when ..."), not the tool's own behaviour ("is forced to false if ...");
   - "when is / when does X ...": a circumstance ("if", "when", "once", "before"...) or a date or version;
   - "when was / which release / how many / how large / who": a date or version, a number, a name, each one the
     question does not already hold (a month is capitalized; "may" is a modal, not May);
   - "why": a reason ("because", "so that", "to avoid"...);
   - anything else: a statement.
   All met: `answered`; some: `partly`; none: `not_answered`.

A quote that is only a heading or a page title (its source's title, or a whole short line of its source
without a full stop that opens with a capital or is a name alone) is never a finding: it answers nothing. Nor
does a sentence that is a question (rhetorical, or a FAQ's own), a pointer elsewhere ("See ... for more"),
the asker's voice ("I don't want ...") or the page's plan ("In this section we ..."): the kinds are read on
the rest of the quote.

3. **The answer is close in meaning** (`evidence/answer_meaning.py`, where a sentence encoder is handed in): an
   `answered` stays so only when a quote cited for it, after its heading, is near the question; else `partly`.

What the word rules cannot judge: they read words, not meaning. A quote with the subject's words and a command of
the wrong program passes, and so does a true statement on the subject that is not what was asked ("What does
non-package mode change?" met by "In non-package mode, the name and version fields are required"); an answer
in other words than the question's (a synonym, another language) fails. It is a floor under the report, not a reader; an LLM Reviewer's judgement, where one is given,
is recorded beside it (`reviews/review-N.json` `answers`), never in its place.
"""

from __future__ import annotations

import re
from typing import Any

from harness.contract.claims import USABLE
from harness.contract.layout import FINAL_REPORT, METRICS
from harness.contract.quotes import normalize_ws
from harness.contract.statuses import NOT_ANSWERED, PARTLY
from harness.errors import Problem
from harness.evidence.answer_meaning import installed_similarity, judge_meaning
from harness.evidence.answer_rule import (
    CODE_TOKEN,
    HEADING_WORDS,
    SENTENCE_END,
    Ask,
    Finding,
    QuestionVerdict,
    ask_of,
    judge,
)
from harness.evidence.draft import parse_draft
from harness.workspace.reader import RunReader

_NAME_ONLY = re.compile(r"^(?:class |def |module |coroutine )?[A-Za-z_][\w.]*(?:\(\))?$")


def heading_only(quote: str, title: str = "", snapshot: str | None = None) -> bool:
    """A quote that is only a heading or a page title, so it states nothing and answers nothing: the source's title
    (or part of it), or a whole short line of the source without a full stop that reads as a heading (it opens with
    a capital: "Running a Subset of Tests") or is a name alone ("asyncio.TaskGroup", "class TaskGroup"). A command
    line ("cargo test one_hundred") is a finding."""
    q = normalize_ws(quote).strip()
    if not q:
        return True
    bare = q.rstrip(".:").strip().lower()
    if title and bare and bare in normalize_ws(title).lower():
        return True
    if SENTENCE_END.search(q) or len(q.split()) > HEADING_WORDS or snapshot is None:
        return False
    if not (_NAME_ONLY.match(q) or (q[:1].isupper() and not CODE_TOKEN.search(q))):
        return False
    return any(normalize_ws(line).strip().lstrip("#").strip() == q for line in snapshot.splitlines())


def _heading_like(line: str) -> bool:
    line = line.strip()
    return bool(line) and len(line.split()) <= HEADING_WORDS and not re.search(r"[.!?;:,]\s*$", line)


def heading_above(snapshot: str, start: int) -> str:
    """What the section holding offset `start` of `snapshot` is about: the first line of the quote's own paragraph
    when that is a signature line above the quote, else the nearest one-line paragraph above it that
    reads as a heading (short, no full stop at its end)."""
    blocks = re.split(r"\n[ \t]*\n", snapshot[:start])
    own = blocks[-1].splitlines()
    if blocks[-1] and not blocks[-1].endswith("\n"):
        own = own[:-1]  # the start of the quote's own line
    if own and _heading_like(own[0]) and CODE_TOKEN.search(own[0]):
        return own[0].strip()  # a signature line (a wrapped sentence's first line is no heading)
    for block in reversed(blocks[:-1]):
        lines = [ln for ln in block.splitlines() if ln.strip()]
        if len(lines) == 1 and _heading_like(lines[0]):
            return lines[0].strip()
    return ""


def claim_findings(reader: RunReader, claim: dict) -> list[Finding]:
    """The quotes of `claim`'s cards that are findings (not a heading or title alone), each with its context."""
    out = []
    for card_id in claim.get("supporting_cards", []) + claim.get("contradicting_cards", []):
        card = reader.card(card_id)
        if not card:
            continue
        source = reader.source(card["source_id"]) or {}
        title, snapshot = source.get("title", ""), reader.snapshot(card["source_id"]) or ""
        if not heading_only(card["quote"], title, snapshot):
            above = heading_above(snapshot, int((card.get("span") or {}).get("start", 0)))
            out.append(Finding(card["quote"], f"{title} {above}".strip()))
    return out


def cited_claims(reader: RunReader, text: str) -> list[str]:
    """The usable claims a draft cites, in order of first citation."""
    claims = reader.claims() or {}
    ids = [k for s in parse_draft(text) for k in s.claim_ids]
    return [k for k in dict.fromkeys(ids) if k in claims and claims[k]["status"] in USABLE]


def judge_question(ask: Ask, findings: list[Finding], claims: tuple[str, ...] = ()) -> QuestionVerdict:
    """The answer check's verdict on one question, for every engine: the word rules (`answer_rule.judge`), then
    the judge of meaning (`answer_meaning`), which may lower an `answered` to `partly`."""
    return judge_meaning(judge(ask, findings, claims), ask, findings, installed_similarity())


def answer_verdicts(reader: RunReader, text: str) -> list[QuestionVerdict]:
    """The verdict on each research question of the plan, from the claims `text` (a draft) cites for it."""
    plan = reader.plan() or {}
    claims = reader.claims() or {}
    cited = cited_claims(reader, text)
    out = []
    for q in plan.get("questions", []):
        if q.get("kind") != "research":
            continue
        mine = tuple(k for k in cited if claims[k]["question_id"] == q["id"])
        findings = [f for k in mine for f in claim_findings(reader, claims[k])]
        out.append(judge_question(ask_of(q, plan.get("criteria")), findings, mine))
    return out


def reviewer_judgements(reader: RunReader, draft_rel: str | None) -> dict[str, dict]:
    """question id -> a model Reviewer's own judgement (verdict, reason) in the latest review of `draft_rel`."""
    for rel in reversed(reader.reviews()):
        review = reader.read_json(rel) or {}
        if review.get("draft") == draft_rel:
            return {
                a["question_id"]: {"verdict": a["verdict"], "reason": a["reason"]}
                for a in review.get("answers") or []
                if isinstance(a, dict) and a.get("origin") == "llm" and "question_id" in a
            }
    return {}


def answer_records(reader: RunReader, draft_rel: str | None) -> list[dict[str, Any]]:
    """metrics.json's `answers`: each research question, its verdict, why, the claims judged, and beside it the
    model Reviewer's judgement when one gave it (else null)."""
    text = reader.read_text(draft_rel) if draft_rel else None
    questions = {q["id"]: q.get("text", "") for q in reader.questions()}
    judged = reviewer_judgements(reader, draft_rel)
    return [
        {
            "question_id": v.question_id,
            "question": questions.get(v.question_id, ""),
            "verdict": v.verdict,
            "reason": v.reason,
            "claims": list(v.claims),
            "reviewer": judged.get(v.question_id),
        }
        for v in answer_verdicts(reader, text or "")
    ]


GAP_NOTE = {NOT_ANSWERED: "Not answered from the sources", PARTLY: "Only partly answered from the sources"}


def gap_notes(records: list[dict[str, Any]]) -> str | None:
    """The Limitations bullets for the questions the report leaves open, in plain words; None when it answers all."""
    lines = [
        f"- {GAP_NOTE[r['verdict']]}: {r['question_id']} ({normalize_ws(r['question'])}): {r['reason']}."
        for r in records
        if r["verdict"] in GAP_NOTE
    ]
    return "\n".join(lines) or None


def answer_problems(reader: RunReader) -> list[Problem]:
    """Invariant 10, re-checked on any workspace: metrics.json's verdicts are what the check decides on its report
    today, and the final report states every question it leaves open (and no other) under Limitations."""
    metrics = reader.read_json(METRICS)
    if not isinstance(metrics, dict) or not metrics.get("report"):
        return []
    stored = metrics.get("answers")
    if not isinstance(stored, list):
        return [Problem(METRICS, "/answers", "answer-verdicts", "metrics.json carries no answer verdicts")]
    problems = []
    today = {r["question_id"]: r for r in answer_records(reader, metrics["report"])}
    # a verdict without a question id is the schema's to report (sorting it beside the ids would fail)
    kept = {qid: a for a in stored if isinstance(a, dict) and isinstance(qid := a.get("question_id"), str)}
    for qid in sorted(set(today) | set(kept)):
        now, then = today.get(qid), kept.get(qid)
        if now is None or then is None or now["verdict"] != then.get("verdict"):
            problems.append(
                Problem(
                    METRICS,
                    "/answers",
                    "answer-verdict",
                    f"{qid}: metrics.json says {then and then.get('verdict')}, the answer check says "
                    f"{now and now['verdict']}",
                )
            )
    report = reader.read_text(FINAL_REPORT)
    if report is not None:
        for qid, r in today.items():
            stated = re.search(rf"answered from the sources: {re.escape(qid)}\b", report) is not None
            if stated != (r["verdict"] in GAP_NOTE):
                problems.append(
                    Problem(
                        FINAL_REPORT,
                        "",
                        "answer-stated",
                        f"{qid} is {r['verdict']}, but the report "
                        + ("says it is not answered" if stated else "does not say so under Limitations"),
                    )
                )
    return problems
