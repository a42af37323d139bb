"""Scripted role policies that behave like real models, not ideal ones.

A real model quotes one sentence and gives roughly the passage's offsets, drops Markdown marks
or changes quote styles, searches more often than it should, answers in text instead of
calling write_file, reads files one per turn, cites a card id that does not exist, writes a
natural draft (an introduction, a summary paragraph, a comparison table, a recommendation
with a version number) and fixes it from the feedback it gets. `Quirks` says which of these
a role does; `realistic_policies(quirks)` gives the five policies (stateless functions of a
`Turn`, like tests/fakes/scripted.py's), and `random_quirks(seed)` draws a mix for the
imperfect-model benchmark.

The policies use the harness's tools when they are offered (`record_evidence`,
`check_draft`) and fall back to plain file writes when they are not, so the same model can
be run against an older harness for a before/after figure. Nothing here imports the harness.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field, replace

from fakes.scripted import HIT, Call, Policy, Say, Turn, call, file_text

# ---- the quirks ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Quirks:
    # Researcher
    quote: str = "passage"  # passage | sentence (one sentence, the passage's span) | offset (one sentence, start off
    #                         by 1-5) | no_marks (backticks and ** dropped) | curly (curly quotes and dashes)
    searches: int = 2  # searches before recording (more than the budget allows: it is told, and records)
    k: int = 5
    fabricate_first: bool = False  # the first quote is a paraphrase; it corrects it from the closest passage
    cards: int = 1  # cards per question (distinct passages)
    at_once: bool = False  # records all its cards in one reply (parallel tool calls), not one card a reply
    web: bool = False  # the plan allows the web; the Researcher uses web_search and fetch_url
    # Planner
    research_questions: int = 2
    plan_in_text_first: bool = False
    # Analyst
    piecemeal: bool = False  # reads every card file, one per turn, before writing
    unknown_cards_first: bool = False  # its first claim table cites 3 card ids that do not exist
    # Writer
    read_claims: bool = False  # reads claims.json with read_file (its whole table) instead of its brief's copy
    natural: bool = False  # an intro, a summary paragraph, a table and a versioned recommendation; fixes from feedback
    draft_in_text_first: bool = False
    # Reviewer
    stray_other_first: bool = False  # its first review adds an `other` error
    human_route: bool = False  # every review adds an error routed to a human
    research_more_first: bool = False  # its first review sends Q2 back to the researcher


def random_quirks(seed: int) -> Quirks:
    """A seeded mix of the behaviours, each about as likely as a real model's."""
    r = random.Random(seed)
    return Quirks(
        quote=r.choice(["passage", "sentence", "offset", "no_marks", "curly"]),
        searches=r.choice([1, 2, 3, 9, 12]),
        k=r.choice([3, 5, 20]),
        fabricate_first=r.random() < 0.3,
        cards=r.choice([1, 2]),
        research_questions=r.choice([2, 3, 5]),
        plan_in_text_first=r.random() < 0.4,
        piecemeal=r.random() < 0.3,
        unknown_cards_first=r.random() < 0.3,
        natural=r.random() < 0.7,
        draft_in_text_first=r.random() < 0.3,
        stray_other_first=r.random() < 0.2,
        research_more_first=r.random() < 0.15,
    )


# ---- helpers ------------------------------------------------------------------------------------------

_WORD = re.compile(r"[a-z0-9_]+")
_STOP = frozenset("the a an of to in on and or is are be by for with as at it its this that from when one".split())
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`*\"“])")


def words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 2}


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text.strip()) if s.strip()]


def offered(t: Turn, tool: str) -> bool:
    """Is `tool` among the tools the system prompt or earlier results mention? (The spec lists them.)"""
    return f"`{tool}" in t.system or f"{tool}(" in t.system


def last_call(t: Turn) -> bool:
    return any("last model call" in n for n in t.notices)


def nudged(t: Turn) -> bool:
    return any("have not written" in n or "recorded no evidence" in n for n in t.notices)


def brief_section(t: Turn, heading: str) -> list[str]:
    """The lines of a `## heading` section of the brief (the context the harness gives)."""
    m = re.search(rf"^## {re.escape(heading)}.*?$(.*?)(?=^## |\Z)", t.brief, re.M | re.S)
    return [ln for ln in (m.group(1) if m else "").splitlines() if ln.strip()]


def _curly(text: str) -> str:
    out, double = [], True
    for ch in text:
        if ch == '"':
            out.append("“" if double else "”")
            double = not double
        elif ch == "'":
            out.append("’")
        else:
            out.append(ch)
    return "".join(out).replace(" - ", " – ")


def _quote_of(text: str, quirks: Quirks, r: random.Random, variant: int = 0) -> str:
    """The quote a model gives: the passage, or its most telling sentence (one with marks or quotes, if the quirk
    is about them: that is where a real model's copy differs)."""
    parts = sentences(text) or [text]
    marked = {"no_marks": "`*", "curly": "\"'—"}.get(quirks.quote, "")
    pool = sorted([s for s in parts if any(c in s for c in marked)] or parts, key=len, reverse=True)
    one = pool[variant % len(pool)]  # the next card from the same passage quotes its next sentence
    if quirks.quote == "passage":
        return text
    if quirks.quote == "no_marks":
        return one.replace("`", "").replace("**", "").replace("*", "")
    if quirks.quote == "curly":
        return _curly(one)
    return one


# ---- the five roles ------------------------------------------------------------------------------------


# (scope entry, research question, search terms): what the Planner plans for the corpus below
ASYNCIO_TOPICS = [
    ("asyncio.TaskGroup", "How asyncio.TaskGroup handles a failing task", ["TaskGroup remaining tasks cancelled"]),
    (
        "asyncio.gather",
        "How asyncio.gather propagates the first exception",
        ["gather return_exceptions propagated"],
    ),
    ("asyncio.timeout", "What asyncio.timeout does when the block takes too long", ["timeout delay TimeoutError"]),
    (
        "asyncio.shield",
        "How asyncio.shield protects an awaitable from cancellation",
        ["shield cancellation protect"],
    ),
    ("asyncio.wait_for", "How asyncio.wait_for cancels on timeout", ["wait_for timeout cancel"]),
]


def planner(quirks: Quirks, topics: list[tuple[str, str, list[str]]] = ASYNCIO_TOPICS) -> Policy:
    def plan(question: str) -> dict:
        sources = (
            {"allowed_sources": ["web"], "allowed_domains": ["127.0.0.1"]}
            if quirks.web
            else {"allowed_sources": ["corpus"]}
        )
        qs = [
            {
                "id": f"Q{i + 1}",
                "text": text,
                "kind": "research",
                "critical": i == 0,
                "criteria": [],
                **sources,
                "search_terms": terms,
                "tag": None,
            }
            for i, (_t, text, terms) in enumerate(topics[: quirks.research_questions])
        ]
        qs.append(
            {
                "id": f"Q{len(qs) + 1}",
                "text": "Say how the candidates differ when a task fails.",
                "kind": "deliverable",
                "critical": True,
                "tag": None,
            }
        )
        return {
            "schema_version": 1,
            "question": question,
            "revision": 1,
            "scope": {"in_scope": [t for t, _, _ in topics[: quirks.research_questions]], "out_of_scope": []},
            "deliverable": "A comparison with citations.",
            "criteria": [],
            "questions": qs,
            "stop_conditions": ["No primary source for a critical question."],
            "refinement": None,
            "approval": None,
        }

    def policy(t: Turn):
        question = t.brief_line("question") or "the question"
        if t.writes() and t.writes()[-1][1] is not None and not t.writes()[-1][1].error:
            return Say(f"{quirks.research_questions} research questions")
        if quirks.plan_in_text_first and not t.steps and not t.notices:
            return Say("Here is the plan:\n```json\n" + json.dumps(plan(question), indent=2) + "\n```")
        return call("write_file", file_path="/plan.json", content=json.dumps(plan(question)))

    return policy


def researcher(quirks: Quirks) -> Policy:
    def policy(t: Turn):
        qid = t.brief_line("Plan question") or "Q1"
        r = random.Random(f"{qid}-{len(t.steps)}")
        # a call refused as malformed (nothing was run) is made again; a refused search still counts
        searches = [
            r
            for r in t.all_results("search")
            if not (r.error and ("was not run" in r.content or "othing was run" in r.content))
        ]
        recorded = [res for res in t.all_results("record_evidence") if not res.error]
        written = [w for w in t.writes() if w[1] is not None and not w[1].error]
        done = len(recorded) + len(written)
        if done >= quirks.cards or (t.notices and done and not last_call(t)):
            return Say(f"{done} card(s)")
        if quirks.web:
            return _web_step(t, qid, done)
        hits = list({(h[0], h[2]): h for res in t.all_results("search") for h in HIT.findall(res.content)}.values())
        if len(searches) < quirks.searches and not last_call(t) and not nudged(t):
            terms = (t.brief_line("search_terms") or qid).split(",")
            query = terms[len(searches) % len(terms)].strip() + (
                "" if len(searches) < len(terms) else f" {len(searches)}"
            )
            return call("search", query=query, k=quirks.k)
        if not hits:
            return Say("BLOCKED: no_evidence (the searches found nothing)")
        tried = [s[1] for step in t.steps for s in step if s[0] in ("record_evidence", "write_file")]
        again = re.search(r"do not record them again\): (.*?)\.", t.brief)  # a revise round: skip what it has
        have = len([c for c in again.group(1).split(", ") if c.startswith("q")]) if again else 0
        pick = done + have
        source_id, _attrs, start, end, text = hits[pick % len(hits)]
        if quirks.fabricate_first and not tried:
            return call(
                "record_evidence",
                source_id=source_id,
                quote="The documentation says this works well.",
                summary="It works.",
                confidence="medium",
                start=int(start),
            )
        errors = [res for res in t.all_results("record_evidence") if res.error]
        quote = _quote_of(text, quirks, r, variant=pick // len(hits))
        if errors and "closest passage is at" in errors[-1].content:
            m = re.search(r'closest passage is at \d+\.\.\d+ \(\d+% alike\): "(.*?)"\. Quote', errors[-1].content, re.S)
            if m and "documentation says this works" in str(tried[-1].get("quote", "")):
                quote = sentences(m.group(1))[0] if sentences(m.group(1)) else m.group(1)
        hint = int(start) + (r.choice([-5, -3, -1, 1, 2, 4]) if quirks.quote == "offset" else 0)
        if offered(t, "record_evidence") and quirks.at_once:
            batch = [hits[(i + have) % len(hits)] for i in range(done, quirks.cards)]
            return Call(
                [
                    (
                        "record_evidence",
                        {
                            "source_id": sid,
                            "quote": _quote_of(text, quirks, r, variant=(i + have) // len(hits)),
                            "summary": f"What {sid} says for {qid}.",
                            "confidence": "high",
                            "limitations": [],
                            "start": int(at),
                        },
                    )
                    for i, (sid, _a, at, _e, text) in enumerate(batch, start=done)
                ]
            )
        if offered(t, "record_evidence"):
            return call(
                "record_evidence",
                source_id=source_id,
                quote=quote,
                summary=f"What {source_id} says for {qid}.",
                confidence="high",
                limitations=[],
                start=max(0, hint),
            )
        card = {
            "card_id": f"{qid.lower()}-{source_id}-{done + 1}",
            "source_id": source_id,
            "question_id": qid,
            "quote": quote,
            "span": {"start": max(0, hint), "end": int(end)},
            "evidence_summary": f"What {source_id} says for {qid}.",
            "confidence": "high",
            "limitations": [],
            "extracted_by": t.identity,
        }
        return call("write_file", file_path=f"/source-cards/{card['card_id']}.json", content=json.dumps(card))

    return policy


_FETCHED = re.compile(r"<<<SOURCE (src-[0-9a-f]{12}) title=.*?\n(.*?)\nSOURCE>>>", re.S)


def _web_step(t: Turn, qid: str, done: int):
    """The web path: search the web, fetch the first result, record a sentence of the page."""
    if not t.all_results("web_search"):
        return call("web_search", query=(t.brief_line("search_terms") or qid).split(",")[0], k=3)
    if not t.all_results("fetch_url"):
        urls = re.findall(r"url='(http[^']+)'", t.all_results("web_search")[-1].content)
        return call("fetch_url", url=urls[0]) if urls else Say("BLOCKED: no_evidence (no web result)")
    m = _FETCHED.search(t.all_results("fetch_url")[-1].content)
    if not m or done:
        return Say(f"{done} card(s)") if done else Say("BLOCKED: no_evidence (the page had no text)")
    return call(
        "record_evidence",
        source_id=m.group(1),
        quote=sentences(m.group(2))[0],
        summary="What the page says.",
        confidence="medium",
        limitations=["web page"],
    )


_DIGEST = re.compile(r'^- (q\d+-src-[0-9a-f]{12}-\d+) \| (Q\d+) \| (\w+|\?) \| (\w+) \| (.*?) \| "(.*)"$')


def _cards_from(t: Turn) -> list[dict]:
    """The cards the Analyst knows: the brief's digest, or the card files it read."""
    cards = []
    for line in brief_section(t, "Every evidence card"):
        m = _DIGEST.match(line.strip())
        if m:
            cards.append({"card_id": m.group(1), "question_id": m.group(2), "kind": m.group(3), "quote": m.group(6)})
    if cards:
        return cards
    for res in t.all_results("read_file"):
        try:
            card = json.loads(file_text(res.content))
        except ValueError:
            continue
        if isinstance(card, dict) and "card_id" in card:
            cards.append({**card, "kind": "primary"})
    return cards


def analyst(quirks: Quirks) -> Policy:
    def claims(cards: list[dict], bogus: bool) -> str:
        out = []
        for i, card in enumerate(sorted(cards, key=lambda c: c["card_id"]), 1):
            status = "verified" if card.get("kind") != "secondary" else "verified_with_limit"
            parts = [re.sub(r"^#+\s*\S+\s+", "", s) for s in sentences(card["quote"])] or [card["quote"]]
            out.append(
                {
                    "claim_id": f"C{i}",
                    "statement": max(parts, key=len),
                    "question_id": card["question_id"],
                    "supporting_cards": [card["card_id"]],
                    "contradicting_cards": [],
                    "limitations": [] if status == "verified" else ["secondary source only"],
                    "status": status,
                }
            )
        if bogus and out:
            out[0]["supporting_cards"] += ["q1-src-000000000000-1", "q1-src-000000000000-2", "q9-src-111111111111-1"]
        return json.dumps({"claims": out}, indent=2)

    def policy(t: Turn):
        if t.last_write_landed():
            return Say(f"{len(_cards_from(t))} claims")
        digest = [ln for ln in brief_section(t, "Every evidence card") if _DIGEST.match(ln.strip())]
        if quirks.piecemeal and not last_call(t):
            read = {a.get("file_path") for step in t.steps for n, a in step if n == "read_file"}
            todo = [f"/source-cards/{m.group(1)}.json" for ln in digest if (m := _DIGEST.match(ln.strip()))]
            nxt = [p for p in todo if p not in read]
            if nxt:
                return call("read_file", file_path=nxt[0])
        bogus = quirks.unknown_cards_first and not t.writes()
        return call("write_file", file_path="/claims.json", content=claims(_cards_from(t), bogus))

    return policy


_CLAIM_ROW = re.compile(r"^- (C\d+) \| (Q\d+) \| (\w+) \| (.*) \| (.*)$")
# A defect as the brief's "Feedback to address" and the check_draft tool list it (evidence.checks.describe_defect)
_DEFECT_LINE = re.compile(r"^- line (\d+): (\w+)", re.M)


def _claims_of(t: Turn) -> list[dict]:
    read = [r for r in t.all_results("read_file") if not r.error and '"claims"' in r.content]
    if read:  # the whole claims.json it read
        try:
            doc = json.loads(file_text(read[-1].content))
            return [
                {
                    "id": c["claim_id"],
                    "q": c["question_id"],
                    "status": c["status"],
                    "statement": c["statement"],
                    "limits": "; ".join(c["limitations"]) or "-",
                }
                for c in doc["claims"]
                if c["status"] in ("verified", "verified_with_limit", "conflicted")
            ]
        except (ValueError, KeyError):
            pass
    out = []
    for line in brief_section(t, "The claim table"):
        m = _CLAIM_ROW.match(line.strip())
        if m and m.group(3) in ("verified", "verified_with_limit", "conflicted"):
            out.append(
                {"id": m.group(1), "q": m.group(2), "status": m.group(3), "statement": m.group(4), "limits": m.group(5)}
            )
    return out


def _natural_draft(t: Turn, claims: list[dict]) -> str:
    questions = [ln for ln in brief_section(t, "The plan's questions") if "(research" in ln]
    lines = [
        "# How the candidates differ when a task fails",
        "",
        "## Summary",
        "",
        "This report compares what the documentation says about each candidate.",
    ]
    for c in claims:
        limit = (
            f" According to a secondary source, this holds ({c['limits']})."
            if c["status"] == "verified_with_limit"
            else ""
        )
        lines.append(f"{c['statement'].rstrip('.')} [@{c['id']}].{limit}")
    lines += ["", "## Comparison", "", "| Question | What the sources say |", "|---|---|"]
    lines += [f"| {c['q']} | {c['statement'].rstrip('.')} |" for c in claims]
    lines += [
        "",
        "## Recommendation",
        "",
        "Prefer the structured approach on Python 3.11 and later for new code.",
        "",
        "## Limitations",
        "",
    ]
    covered = {c["q"] for c in claims}
    gaps = [q.split(" ")[1] for q in questions if q.split(" ")[1] not in covered]
    lines += [f"- {q} has no usable claim in the claim table." for q in gaps] or [
        "- No research question is left without evidence."
    ]
    return "\n".join(lines) + "\n"


def fix_draft(draft: str, defects: list[tuple[int, str]], claims: list[dict]) -> str:
    """What a model does with the review's findings: cite a sentence from the claim it best matches, set a note in
    italics, and drop a sentence its evidence does not support."""
    lines = draft.split("\n")
    for n, code in sorted(set(defects), reverse=True):
        if not 1 <= n <= len(lines):
            continue
        line = lines[n - 1]
        best = max(claims, key=lambda c: len(words(c["statement"]) & words(line)), default=None)
        overlap = len(words(best["statement"]) & words(line)) if best else 0
        if code == "uncertainty_removed":
            lines[n - 1] = re.sub(r"\s*(\[@[^\]]+\])", r", according to a secondary source \1", line, count=1)
        elif code == "citation_not_supporting" or (code == "missing_citation" and re.search(r"\d+\.\d+", line)):
            lines[n - 1] = ""  # cannot be supported as written
        elif code == "missing_citation" and line.startswith("|") and best and overlap:
            lines[n - 1] = line.rstrip().rstrip("|").rstrip() + f" [@{best['id']}] |"
        elif code == "missing_citation" and best and overlap >= 2:
            lines[n - 1] = line.rstrip().rstrip(".") + f" [@{best['id']}]."
        elif code == "missing_citation":
            lines[n - 1] = f"*{line.strip()}*" if line.strip() and not line.startswith(("|", "-")) else ""
    return "\n".join(lines)


def writer(quirks: Quirks) -> Policy:
    def first_draft(t: Turn) -> str:
        claims = _claims_of(t)
        if quirks.natural:
            return _natural_draft(t, claims)
        body = [f"{c['statement'].rstrip('.')} [@{c['id']}]." for c in claims]
        return (
            "\n".join(
                [
                    "# Report",
                    "",
                    "*Drafted from the claim table.*",
                    "",
                    "## Findings",
                    "",
                    *body,
                    "",
                    "## Limitations",
                    "",
                    "- No research branch was blocked.",
                ]
            )
            + "\n"
        )

    def policy(t: Turn):
        target = t.brief_line("draft") or "drafts/draft-1.md"
        if t.last_write_landed("/" + target):
            return Say(target)
        if quirks.read_claims and not t.all_results("read_file"):
            return call("read_file", file_path="/claims.json")
        claims = _claims_of(t)
        checks = [
            (a, res)
            for k, step in enumerate(t.steps)
            for i, (n, a) in enumerate(step)
            if n == "check_draft" and k < len(t.results) and i < len(t.results[k])
            for res in [t.results[k][i]]
        ]
        draft = checks[-1][0].get("content") if checks else first_draft(t)
        if t.brief_line("draft") and "Feedback to address" in t.brief and not checks:
            feedback = t.brief[t.brief.index("Feedback to address") :]
            draft = fix_draft(first_draft(t), [(int(n), c) for n, c in _DEFECT_LINE.findall(feedback)], claims)
        if checks:
            last = checks[-1][1].content
            if "No error defects" not in last and len(checks) < 4:
                draft = fix_draft(draft, [(int(n), c) for n, c in _DEFECT_LINE.findall(last)], claims)
                return call("check_draft", content=draft)
        elif offered(t, "check_draft") and not last_call(t):
            return call("check_draft", content=draft)
        if quirks.draft_in_text_first and not t.writes() and not t.notices:
            return Say(draft)
        return call("write_file", file_path="/" + target, content=draft)

    return policy


def reviewer(quirks: Quirks) -> Policy:
    def policy(t: Turn):
        draft, sha = t.brief_line("draft"), t.brief_line("draft_sha256")
        if t.writes() and t.last_write_landed():
            return Say("done")
        n = int(re.search(r"draft-(\d+)\.md", draft).group(1))
        defects = []
        if quirks.stray_other_first and n == 1:
            defects.append(
                {
                    "code": "other",
                    "severity": "error",
                    "location": {"line": 1},
                    "refs": {},
                    "message": "The title could say more.",
                    "route": "writer",
                    "origin": "llm",
                }
            )
        if quirks.research_more_first and n == 1:
            defects.append(
                {
                    "code": "other",
                    "severity": "error",
                    "location": {"line": 1},
                    "refs": {"questions": ["Q2"]},
                    "message": "Q2 needs a second source.",
                    "route": "researcher",
                    "origin": "llm",
                }
            )
        if quirks.human_route:
            defects.append(
                {
                    "code": "other",
                    "severity": "error",
                    "location": {"line": 1},
                    "refs": {},
                    "message": "Whether this may be published is a policy decision.",
                    "route": "human",
                    "origin": "llm",
                }
            )
        verdict = "needs_human" if quirks.human_route else "revise" if defects else "pass"
        review = {
            "draft": draft,
            "draft_sha256": sha,
            "verdict": verdict,
            "defects": defects,
            "reviewed_by": t.identity,
        }
        return call("write_file", file_path=f"/reviews/review-{n}.json", content=json.dumps(review))

    return policy


def realistic_policies(quirks: Quirks = Quirks(), **overrides: Policy) -> dict[str, Policy]:
    policies = {
        "planner": planner(quirks),
        "researcher": researcher(quirks),
        "analyst": analyst(quirks),
        "writer": writer(quirks),
        "reviewer": reviewer(quirks),
    }
    policies.update(overrides)
    return policies


@dataclass
class RealisticUsage:
    """Token usage like a real provider reports it: prompt tokens about characters/4, 500-3,000 thinking tokens."""

    seed: int = 0
    calls: int = field(default=0)

    def __call__(self, prompt_chars: int, reply_chars: int) -> dict:
        self.calls += 1
        r = random.Random(f"{self.seed}-{self.calls}")
        thinking = r.randint(500, 3000)
        out = reply_chars // 4 + thinking
        return {
            "input_tokens": prompt_chars // 4,
            "output_tokens": out,
            "total_tokens": prompt_chars // 4 + out,
            "output_token_details": {"reasoning": thinking},
        }


__all__ = ["Quirks", "RealisticUsage", "random_quirks", "realistic_policies", "replace"]


# ---- a corpus written the way documentation is: Markdown marks, "quotes", dashes, several sentences a passage --

DOCS = {
    "taskgroup.md": "# asyncio.TaskGroup\n\n"
    "An asynchronous context manager holding a group of tasks. Tasks can be added to the group using "
    "`create_task()`. All tasks are awaited when the context manager exits.\n\n"
    "The first time any of the tasks belonging to the group fails with an exception other than "
    "`asyncio.CancelledError`, the remaining tasks in the group are **cancelled**. No further tasks can then be "
    "added to the group. Once all tasks have finished, the exceptions are combined in an `ExceptionGroup` — the "
    '"structured" way to report several failures.\n',
    "gather.md": "# asyncio.gather\n\n"
    "Run awaitable objects in the *aws* sequence concurrently. If all awaitables complete successfully, the result "
    "is an aggregate list of returned values.\n\n"
    "If *return_exceptions* is `False` (the default), the first raised exception is immediately propagated to the "
    "task that awaits on `gather()`. Other awaitables in the *aws* sequence **won't be cancelled** and will continue "
    "to run. If *return_exceptions* is `True`, exceptions are treated the same as successful results.\n",
    "timeout.md": "# asyncio.timeout\n\n"
    "The `timeout()` context manager limits the time spent waiting on something. If the block takes longer than "
    "the delay, the current task is cancelled and the `CancelledError` is transformed into a `TimeoutError` — "
    "which can be caught and handled.\n",
    "shield.md": "# asyncio.shield\n\n"
    "Protect an awaitable object from being cancelled. The statement `res = await shield(something())` is "
    "equivalent to `res = await something()` **except** that if the coroutine containing it is cancelled, the "
    "task running in `something()` is not cancelled.\n",
    "wait_for.md": "# asyncio.wait_for\n\n"
    "Wait for the *aw* awaitable to complete with a timeout. If a timeout occurs, it cancels the task and raises "
    "`TimeoutError`. The function waits until the awaitable is actually cancelled, so the total wait may exceed the "
    "timeout.\n",
}
