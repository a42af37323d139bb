"""Offline Planner: a rule-based decomposition of the question into research questions.

A comparison ("How do X and Y differ in A and B?", "X vs Y for A", "How does X differ from Y?", "when should I use
A vs B vs C", "should I use A or B") gets one research question per candidate, however its names are written
(`Box<T>`, `&str`, `==`, `uv pip`), each carrying the criteria the question names; a bare lower-case name
("remove()") is researched within the subject the question names, as a plain phrase is.
A brief in explicit parts ("covering: (1) …, (2) …", bullets, "covering A, B and C") gets one research question per
part, each searched for with the part first and then within the brief's subject (a sentence that only names the
subject states no part). Two plain phrases compared ("Using ftplib,
how do I switch data transfers between passive and active mode?") are read as the question means them ("passive
mode", "active mode": the article dropped, the shared head noun given to both) and keep the subject they are about:
each branch's question carries the question's other words ("What do the sources say about passive mode (ftplib
switch data transfers)?"), so its searches and its ranking stay within that subject; a phrase like "passive mode"
means nothing alone, while a name or a code name identifies its own document. Any other
question becomes one research question: the question itself, searched for with what it names (code
names, and a Python statement or keyword it asks about: "the with statement" → "with statement").
A deliverable question closes the plan and says what the report delivers (the Writer answers in the
report's Summary, and in a comparison table), never a copy of the question.
Feedback on a rejected plan ("also cover Z") adds a question tagged NEW.
Without the web, every research question may search the literature providers the run searches (`--search arxiv`);
with the web on, every research question may use it (and through it those providers), on the open web; its `primary_domains` (the sites whose
pages count as primary sources) are the ones research.yaml names (`sources.primary_domains`): with no model,
the Planner cannot know a subject's official site, so the human approving the plan may add them.
"""

from __future__ import annotations

import re

from harness.contract.layout import PLAN
from harness.contract.search import CORPUS, LITERATURE_PROVIDERS, WEB
from harness.contract.statuses import COMPLETED, DELIVERABLE, RESEARCH
from harness.engines.offline.ranking import keywords_named
from harness.evidence.lexical import content_words
from harness.runtime.context import AgentContext
from harness.runtime.interface import AgentResult, Brief

_CODE = (
    r"`[^`]+`|\"[^\"]+\"|[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)+(?:\(\))?|[a-z]+_[a-z_]+(?:\(\))?|[A-Z][a-z]+[A-Z][A-Za-z]*"
)
_COMPARE = re.compile(
    r"\b(?:differ|difference|differences|compare|compared|comparison|versus|vs\.?|between|better|choose|or)\b", re.I
)
_CRITERIA_AFTER = re.compile(
    r"\b(?:in terms of|with respect to|regarding|when it comes to|differ(?:s)? in|compare(?:d)? on|compare(?:d)? in|for|in|on)\s+(.+)$",
    re.I,
)
_SPLIT = re.compile(r"\s*(?:,|\band\b|\bor\b|\bvs\.?|\bversus\b)\s*", re.I)
_ALSO = re.compile(r"(?:also\s+)?(?:cover|include|add|research|look at|consider)\s+(.+?)(?:[.;]|$)", re.I)


def _clean(term: str) -> str:
    return term.strip().strip("`\"'").rstrip("?.!").strip()


_STOP_AT = r"(?=\s+(?:for|in|on|regarding|when|to|with respect to|in terms of)\b|[?.,;]|$)"
_PHRASE = r"([\w.+#-]+(?:\s+[\w.+#-]+){0,3}?)"
_PAIR_PATTERNS = [
    re.compile(r"\bbetween\s+" + _PHRASE + r"\s+and\s+" + _PHRASE + _STOP_AT, re.I),
    re.compile(
        r"\b(?:how|why|where|in what ways?)\s+(?:do|does|did)\s+"
        + _PHRASE
        + r"\s+and\s+"
        + _PHRASE
        + r"\s+(?:differ|compare|contrast)\b",
        re.I,
    ),
    re.compile(r"\bcompare\s+" + _PHRASE + r"\s+(?:and|with|to|vs\.?|versus)\s+" + _PHRASE + _STOP_AT, re.I),
    re.compile(_PHRASE + r"\s+(?:vs\.?|versus)\s+" + _PHRASE + _STOP_AT, re.I),
    re.compile(r"\b(?:use|choose|pick|prefer)\s+" + _PHRASE + r"\s+or\s+" + _PHRASE + _STOP_AT, re.I),
    re.compile(r",\s*" + _PHRASE + r"\s+or\s+" + _PHRASE + _STOP_AT, re.I),
]


# Names as people write them in any field: generic types (Box<T>), references (&str), paths (std::fs), macros
# (panic!), operators (==), multi-word names. A span of alternatives ends at a criterion word, a clause or the end.
_NAME = r"[\w.+#&*:<>\[\]/=!%|~^'’-]+"
_ALTS_END = r"(?=\s+(?:for|in|on|regarding|when|with respect to|in terms of)\b|[?,;]|[.:](?:\s|$)|$)"
_ALTERNATIVES = [
    re.compile(
        r"\b(?:differences?|distinction|choos(?:e|ing)|decid(?:e|ing)|pick(?:ing)?)\s+between\s+(?P<span>.+?)"
        + _ALTS_END,
        re.I,
    ),
    re.compile(
        r"\b(?:how|why|where|in what ways?)\s+(?:do|does|did|is|are)\s+(?P<span>.+?)\s+(?:differ|compared?|"
        r"contrast|different)(?:\s+(?:from|to|with)\s+(?P<tail>.+?))?" + _ALTS_END,
        re.I,
    ),
    re.compile(r"\bcompare\s+(?P<span>.+?)" + _ALTS_END, re.I),
    re.compile(
        rf"(?P<span>{_NAME}(?:\s+{_NAME}){{0,3}}?(?:\s+(?:vs\.?|versus|compared\s+(?:with|to))\s+{_NAME}"
        rf"(?:\s+{_NAME}){{0,3}}?)+)" + _ALTS_END,
        re.I,
    ),
    re.compile(r"\b(?:should|do|can|would)\s+(?:I|we|you|one)\s+(?P<span>.+?\s+or\s+.+?)" + _ALTS_END, re.I),
]
_ALT_SEP = re.compile(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|vs\.?|versus|compared\s+(?:with|to)|from)\s+", re.I)
_CHOOSE = re.compile(r"^(?:use|choose|pick|prefer|go with)\s+", re.I)
_ASKING = re.compile(r"^.*?\b(?:should|can|do|would)\s+(?:I|we|you|one)\s+(?=\S+\s+\S)", re.I)


def _elided(alts: list[str]) -> list[str]:
    """A bare possessive takes the noun another alternative's possessive carries ("Prometheus's data model differ
    from Graphite's" → "Graphite's data model")."""
    heads = [m.group(1) for a in alts if (m := re.match(r"^\S+['’]s\s+(.+)$", a))]
    return [f"{a} {heads[0]}" if heads and re.fullmatch(r"\S+['’]s", a) else a for a in alts]


def _alternatives(question: str) -> list[str]:
    """The alternatives a comparison names however it is phrased ("How does X differ from Y", "X compared with Y",
    "when should I use A vs B vs C", "should I call X or return Y"), each a name of at most four words."""
    for pattern in _ALTERNATIVES:
        m = pattern.search(question)
        if not m:
            continue
        span = m.group("span") + (f" and {m.group('tail')}" if m.groupdict().get("tail") else "")
        alts = [_DETERMINER.sub("", a.strip().rstrip(".")) for a in _ALT_SEP.split(_ASKING.sub("", span))]
        if alts and _CHOOSE.match(alts[0]) and not any(_CHOOSE.match(a) for a in alts[1:]):
            alts[0] = _CHOOSE.sub("", alts[0])  # "use A or B": the choice is between A and B
        alts = _elided(alts)
        alts = [a for a in dict.fromkeys(alts) if a and len(a.split()) <= 4]
        if len(alts) >= 2:
            return alts[:6]
    return []


def candidates_in(question: str) -> list[str]:
    """Named things the question compares: code names, quoted terms, 'X vs Y' / 'between X and Y' phrases, or
    alternatives named in any other comparison phrasing (`_alternatives`)."""
    found: list[str] = []
    for m in re.finditer(_CODE, question):
        term = _clean(m.group(0))
        if term and term.lower() not in (c.lower() for c in found):
            found.append(term)
    alternatives = _alternatives(question)
    if found and len(alternatives) > len(found) and all(" " not in a for a in alternatives):
        if all(any(f.lower() in a.lower() for a in alternatives) for f in found):
            return alternatives  # "Vec<T> vs VecDeque<T>": the whole names, not their code-looking parts
    if len(found) >= 2:
        return found
    for pattern in _PAIR_PATTERNS:
        pair = pattern.search(question)
        if pair:
            return [_clean(pair.group(1)), _clean(pair.group(2))]
    return alternatives or found


def criteria_in(question: str, candidates: list[str]) -> list[str]:
    """Criteria named after 'in', 'for', 'regarding', ... at the end of a comparison question."""
    text = question.rstrip("?. ")
    for cand in candidates:
        text = text.replace(cand, "")
    m = _CRITERIA_AFTER.search(text)
    if not m:
        return []
    parts = [_clean(p) for p in _SPLIT.split(m.group(1))]
    return [p for p in parts if len(p) > 2][:4]


_COMPARING = {"differ", "differs", "different", "difference", "differences", "compare", "compared", "from", "versus"}
_DETERMINER = re.compile(r"^(?:the|a|an)\s+", re.I)
ANSWERS = "{answers}"  # in a deliverable's text: the id of the research question that is the run's own question


def plain(term: str) -> bool:
    """A plain phrase: lower-case words only, no name and no code ("passive mode", "closing it"; not "re.match")."""
    return bool(re.fullmatch(r"[a-z][a-z'-]*(?: [a-z][a-z'-]*)*", term))


def identifies_itself(term: str) -> bool:
    """A name that picks out its own document: a dotted or `::` path, or a name with a capital (asyncio.gather,
    std::fs, Box<T>, Sarracenia, gnu_getopt); a bare lower-case name ("remove()", "==") means something only in its subject."""
    return bool(re.search(r"[.:]\w|[A-Z_0-9]", term))


def plain_candidates(candidates: list[str], question: str = "") -> list[str]:
    """Two plain phrases as the question means them: without a leading article ("the next" → "next"), and sharing
    the head noun the last one carries when the others are one word and joined to it ("passive and active mode" →
    "passive mode", "active mode"; not "a view compared with a materialized table")."""
    cands = [_DETERMINER.sub("", c) for c in candidates]
    head = cands[-1].split()
    joiner = r"\s*(?:,|\band\b|\bor\b)\s*(?:(?:the|a|an)\s+)?"
    joined = re.search(joiner.join(map(re.escape, cands)), question, re.I) or not question
    if joined and len(head) >= 2 and all(len(c.split()) == 1 for c in cands[:-1]):
        cands = [f"{c} {head[-1]}" for c in cands[:-1]] + cands[-1:]
    return cands


def context_of(question: str, candidates: list[str], criteria: list[str]) -> str:
    """What a comparison of plain phrases is about besides them: the question's words outside the candidates and
    criteria, less question and comparison words ("Using ftplib, how do I switch data transfers between passive
    and active mode?" → "ftplib switch data transfers"). A plain phrase means something only within its subject:
    "passive mode" of ftplib, not of any other module."""
    text = question
    for part in sorted([*candidates, *criteria], key=len, reverse=True):
        text = re.sub(re.escape(part), " ", text, flags=re.I)
    words = [w for w in re.findall(r"[\w.'’-]+", text) if content_words(w) and w.lower() not in _COMPARING]
    return " ".join(dict.fromkeys(words))


# A brief in parts: enumerated ("(1) …, (2) …", "a) …", "1. …"), bulleted lines, or a list of three or more after
# "covering" / "including". Two questions in a row are not parts: the second often leans on the first ("And what
# about …?").
_ENUMERATED = re.compile(r"(?:^|(?<=[\s:;,]))\(?(?:\d{1,2}|[a-h])\)\s+|(?:^|(?<=\s))\d{1,2}\.\s+(?=[A-Za-z])", re.M)
_BULLET = re.compile(r"^\s*[-*•]\s+", re.M)
_LISTED = re.compile(r"\b(?:covering|including|addressing|on each of)\s*:?\s+(.+)$", re.I | re.S)
_BRIEF_WORDS = {
    "prepare", "write", "produce", "give", "draft", "create", "make", "need", "want", "please", "brief", "briefing",
    "report", "memo", "summary", "overview", "analysis", "review", "due-diligence", "diligence", "research", "note",
    "covering", "including", "addressing", "parts", "sections", "summarize", "summarise", "describe", "explain",
    "tell", "me", "us", "list", "outline", "assess", "evaluate", "about",
}  # fmt: skip


def _tidy_part(text: str) -> str:
    text = _DETERMINER.sub("", re.sub(r"^(?:and|or)\s+", "", text.strip(), flags=re.I))
    return text.strip().rstrip(".;,").strip()


def parts_of(question: str) -> tuple[str, list[str]]:
    """A brief that asks for several things: its lead-in (what the parts are about) and its parts, one research
    question each; ("", []) for a single question. Only explicit structure counts (numbers, letters, bullets, a
    list after "covering"): an "and" inside a question is one question."""
    for marker in (_ENUMERATED, _BULLET):
        pieces = marker.split(question)
        if len(pieces) >= 3:
            parts = [p for p in map(_tidy_part, pieces[1:]) if p]
            if len(parts) >= 2:
                return pieces[0].strip(), parts
    m = _LISTED.search(question)
    if m:
        parts = [p for p in map(_tidy_part, re.split(r"\s*[;,]\s*", m.group(1))) if p]
        if len(parts) >= 3 and all(len(p.split()) <= 8 for p in parts):
            return question[: m.start()].strip(), parts
    return "", []


def subject_of(lead: str) -> str:
    """What a brief's parts are about: its lead-in less the words that ask for a document ("Prepare a due-diligence
    brief on Northwind Robotics covering:" → "Northwind Robotics")."""
    words = [w for w in re.findall(r"[\w.&'’-]+", lead) if content_words(w) and w.lower() not in _BRIEF_WORDS]
    return " ".join(dict.fromkeys(words))


def _part_question(part: str, subject: str) -> dict:
    """One part of a brief as a research question: searched for within its subject, its criteria the things it
    lists ("funding history and financial trajectory" → both)."""
    if part.endswith("?"):
        return {"text": part, "critical": True, "criteria": [], "search_terms": _terms(part.rstrip("?"))}
    criteria = [c for c in map(_tidy_part, re.split(r"\s+(?:and|with|including)\s+|\s*,\s*", part)) if c]
    within = f" ({subject})" if subject else ""
    return {
        "text": f"What do the sources say about {part}{within}?",
        "critical": True,
        "criteria": criteria if len(criteria) >= 2 else [],
        # the part first: it is what a sentence must state; a sentence that only names the subject answers no part
        "search_terms": _terms(part, f"{subject} {part}".strip(), *(f"{subject} {c}".strip() for c in criteria)),
    }


def _statement_query(kw: str) -> str:
    """A search for a Python statement: its name and its grammar rules in the language reference (`if_stmt`,
    `try1_stmt`, `lambda_expr`), since the keyword itself ("if", "with") is a stopword no index keeps."""
    return f"{kw} statement {kw}_stmt {kw}1_stmt {kw}_expr"


def _terms(*words: str) -> list[str]:
    return [w for w in dict.fromkeys(w.strip() for w in words) if w]


def _carried(parent_questions: list[dict], questions: list[dict]) -> list[dict]:
    """A follow-up keeps its parent's research questions (ids and texts) first; its own come after, minus repeats."""
    kept = [
        {
            "id": q["id"],
            "text": q["text"],
            "critical": True,
            "criteria": [],
            "search_terms": _terms(q["text"].rstrip("?")),
        }
        for q in parent_questions
    ]
    seen = {q["text"].strip().lower() for q in kept}
    return kept + [q for q in questions if q["text"].strip().lower() not in seen]


def _domain_policy(sources: tuple[str, ...], official: tuple[str, ...]) -> dict:
    """A research question's domain policy: the open web, nothing blocked; with the web on, the official sites the
    run names (research.yaml `sources.primary_domains`, from the brief) as its `primary_domains`."""
    policy: dict = {"allowed_domains": [], "blocked_domains": []}
    if WEB in sources:
        policy["primary_domains"] = list(official)
    return policy


def _scope(question: str, lead: str, parts: list[str], candidates: list[str], comparing: bool) -> list[str]:
    """What the plan is about: the candidates of a comparison, a brief's subject, else the question itself (the
    offline Writer reads two or more candidates in scope as a comparison: `writer.candidates_of`)."""
    if parts:
        return [subject_of(lead) or question.strip()]
    return candidates[:6] if candidates else [question.strip().rstrip("?")]


def make_plan(
    question: str,
    sources: tuple[str, ...] = (CORPUS,),
    parent_questions: list[dict] | None = None,
    official: tuple[str, ...] = (),
) -> dict:
    lead, parts = parts_of(question)
    candidates = [] if parts else candidates_in(question)
    comparing = len(candidates) >= 2 and bool(_COMPARE.search(question))
    criteria = criteria_in(question, candidates) if comparing else []
    if parts:
        questions, deliverable = _part_questions(lead, parts)
    elif comparing:
        questions, deliverable, criteria, candidates = _comparison_questions(question, candidates, criteria)
    else:
        questions, deliverable = _answer_question(question, candidates)
    if parent_questions:
        questions = _carried(parent_questions, questions)
    plan_questions, deliverable, deliverable_id = _numbered(questions, question, deliverable, sources, official)
    plan_questions.append(
        {
            "id": deliverable_id,
            "text": deliverable,
            "kind": DELIVERABLE,
            "critical": True,
            "criteria": criteria,
            "tag": None,
        }
    )
    return {
        "schema_version": 1,
        "question": question.strip(),
        "revision": 1,
        "scope": {"in_scope": _scope(question, lead, parts, candidates, comparing), "out_of_scope": []},
        "deliverable": deliverable,
        "criteria": criteria,
        "questions": plan_questions,
        "stop_conditions": [
            "No primary source for a critical question.",
            "Sources conflict on a point the recommendation depends on.",
        ],
        "refinement": None,
        "approval": None,
    }


PARTS_REPORT = "A report with one section per part of the brief"  # a parts plan's deliverable opens so


def brief_subject(plan: dict) -> str:
    """What a plan of a brief in parts is about (its scope, `subject_of` its lead-in), or "" for any other plan:
    the Analyst screens out sentences that only name it (`evidence/subject.py`), the Writer gives each part a
    section."""
    deliverable = next((q["text"] for q in plan["questions"] if q["kind"] == "deliverable"), "")
    scope = plan.get("scope", {}).get("in_scope") or [""]
    return scope[0] if deliverable.startswith(PARTS_REPORT) and scope[0] != plan["question"].strip() else ""


def parts_plan(plan: dict) -> bool:
    """Is the plan a brief's parts, one research question each?"""
    return any(q["kind"] == "deliverable" and q["text"].startswith(PARTS_REPORT) for q in plan["questions"])


def _part_questions(lead: str, parts: list[str]) -> tuple[list[dict], str]:
    """A brief of listed parts: one research question per part (at most eight), and a report of one section each."""
    subject = subject_of(lead)
    questions = [_part_question(p, subject) for p in parts[:8]]
    listed = "; ".join(f"({i}) {p}" for i, p in enumerate(parts[:8], 1))
    deliverable = f"{PARTS_REPORT}{f' on {subject}' if subject else ''}: {listed}."
    return questions, deliverable


def _comparison_questions(
    question: str, candidates: list[str], criteria: list[str]
) -> tuple[list[dict], str, list[str], list[str]]:
    """A comparison: one research question per candidate (at most six) on the criteria, and a recommendation.
    Returns the questions, the deliverable, and the criteria and candidates as the questions name them."""
    context = ""
    if all(map(plain, candidates)):
        # the criteria of plain phrases are what follows them ("... break and continue in a loop"): an "In pdb,"
        # before them is their subject, not a criterion
        raw = candidates
        last = max(question.lower().rfind(c.lower()) + len(c) for c in raw)
        criteria = criteria_in(question[last:], [])
        candidates = plain_candidates(candidates, question)
        context = context_of(question, raw, criteria)
    elif not all(map(identifies_itself, candidates)):
        # remove() of the mailbox module, not of a list: the question's other words are its subject, and its
        # criteria are what follows the candidates, as for plain phrases
        last = max(question.lower().rfind(c.lower()) + len(c) for c in candidates)
        criteria = criteria_in(question[last:], [])
        context = context_of(question, candidates, criteria)
    about = f" with respect to {', '.join(criteria)}" if criteria else ""
    within = f" ({context})" if context else ""
    questions = [
        {
            "text": f"What do the sources say about {cand}{about}{within}?",
            "critical": True,
            "criteria": criteria,
            "search_terms": _terms(cand, *(f"{cand} {c}" for c in criteria)),
        }
        for cand in candidates[:6]
    ]
    deliverable = f"Compare {', '.join(candidates[:6])}{about}, and say which to use under which conditions."
    return questions, deliverable, criteria, candidates


def _answer_question(question: str, candidates: list[str]) -> tuple[list[dict], str]:
    """A plain question: researched as asked (its search terms: itself, the things it names, the statements its
    keywords name), and answered in the Summary."""
    questions = [
        {
            "text": question.strip(),
            "critical": True,
            "criteria": [],
            "search_terms": _terms(
                question.strip().rstrip("?"), *candidates, *map(_statement_query, keywords_named(question))
            ),
        }
    ]
    # What the report delivers, not a second copy of the question: ANSWERS is the question itself (Q1, or in a
    # follow-up the first id after its parent's questions), named once the ids are given.
    deliverable = f"A short cited answer in the Summary, quoting the documents that answer {ANSWERS}."
    return questions, deliverable


def _numbered(
    questions: list[dict], question: str, deliverable: str, sources: tuple[str, ...], official: tuple[str, ...]
) -> tuple[list[dict], str, str]:
    """The research questions as plan.json stores them, each given the first id not taken (a follow-up's carried
    questions keep theirs); the deliverable with the question it answers named by id; and the deliverable's id."""
    plan_questions = []
    taken = {q["id"] for q in questions if q.get("id")}
    fresh = (f"Q{i}" for i in range(1, 10_000) if f"Q{i}" not in taken)
    for q in questions:
        q.setdefault("id", None)
        q["id"] = q["id"] or next(fresh)
        if ANSWERS in deliverable and q["text"].strip() == question.strip():
            deliverable = deliverable.replace(ANSWERS, q["id"])
        plan_questions.append(
            {
                "id": q["id"],
                "text": q["text"],
                "kind": RESEARCH,
                "critical": q["critical"],
                "criteria": q["criteria"],
                "allowed_sources": list(sources),
                **_domain_policy(sources, official),
                "search_terms": q["search_terms"],
                "tag": None,
            }
        )
    deliverable = deliverable.replace(ANSWERS, plan_questions[0]["id"] if plan_questions else "the question")
    return plan_questions, deliverable, next(fresh)


def refine(plan: dict, feedback: str, sources: tuple[str, ...] = (CORPUS,), official: tuple[str, ...] = ()) -> dict:
    """Add one research question per 'cover X' in the feedback, tagged NEW; renumber the deliverable last."""
    additions = [_clean(m.group(1)) for m in _ALSO.finditer(feedback)] or [_clean(feedback)]
    research = [dict(q, tag=None) for q in plan["questions"] if q["kind"] == RESEARCH]
    deliverable = next((dict(q, tag=None) for q in plan["questions"] if q["kind"] == DELIVERABLE), None)
    changes = []
    for topic in additions:
        if not topic:
            continue
        qid = f"Q{len(research) + 1}"
        research.append(
            {
                "id": qid,
                "text": f"What do the sources say about {topic}?",
                "kind": RESEARCH,
                "critical": False,
                "criteria": plan.get("criteria", []),
                "allowed_sources": list(sources),
                **_domain_policy(sources, official),
                "search_terms": [topic],
                "tag": "NEW",
            }
        )
        changes.append({"question_id": qid, "tag": "NEW", "note": f"Added from feedback: {topic}"})
    questions = research
    if deliverable is not None:
        old_id = deliverable["id"]
        deliverable["id"] = f"Q{len(research) + 1}"
        if deliverable["id"] != old_id:
            deliverable["tag"] = "MODIFIED"
            changes.append(
                {
                    "question_id": deliverable["id"],
                    "tag": "MODIFIED",
                    "note": f"Renumbered from {old_id}; now also covers the added questions.",
                }
            )
        questions = research + [deliverable]
    refined = dict(
        plan,
        questions=questions,
        revision=plan["revision"] + 1,
        scope=dict(plan["scope"], in_scope=plan["scope"]["in_scope"] + [a for a in additions if a]),
        refinement={"feedback": feedback, "changes": changes},
        approval=None,
    )
    return refined


def _sources(facts: dict) -> tuple[str, ...]:
    """What every research question may search: the corpus, and the web with --web (which covers every provider the
    run searches); without it, each literature provider the run searches (the brief's `sources`, keyless)."""
    if facts.get("web") == "on":
        return (CORPUS, WEB)
    offered = [s.strip() for s in str(facts.get("sources") or "").split(",") if s.strip()]
    return (CORPUS, *(s for s in offered if s in LITERATURE_PROVIDERS))


class OfflinePlanner:
    def __init__(self, spec=None):
        self.spec = spec

    def run(self, brief: Brief, ctx: AgentContext) -> AgentResult:
        question = brief.facts.get("question") or brief.task
        sources = _sources(brief.facts)
        official = tuple(brief.facts.get("primary_domains") or ())
        if brief.feedback and ctx.exists(PLAN):
            plan = refine(ctx.read_json(PLAN), brief.feedback, sources, official)
        else:
            plan = make_plan(question, sources, brief.facts.get("parent_questions"), official)
        ctx.write(PLAN, plan)
        n = sum(q["kind"] == RESEARCH for q in plan["questions"])
        return AgentResult(COMPLETED, f"plan revision {plan['revision']} with {n} research question(s)")
