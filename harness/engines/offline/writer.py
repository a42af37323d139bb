"""Offline Writer: a short research note built only from the claim table.

- **Summary**: the answer in 1–3 cited sentences, each the verbatim statement of a claim (or
  a short template around one). For a plain question these are the best-ranked claims (the
  Analyst numbers claims best first), with the best claim of a second retrieval hop next to
  the hop-1 claim that led to it. For a comparison, each candidate's best claim.
- **Comparison** (a comparison plan only): a table, criterion × candidate, each cell the best
  claim of that candidate on that criterion, cited (each of its sentences), or *not found in the
  corpus*; a cell never repeats another row's claim (`column`: when the one claim on a criterion
  is another row's cell, the cell says so); then what the evidence does and does not support
  (notes in italics, no recommendation).
- **Where the sources disagree**: every conflicted claim, with both sides.
- **Further questions** (plans with several non-comparison questions): a section per
  question, headed by its topic, citing its best claim if the Summary does not already. A brief in
  parts gets a section per part, always, its best claims (`brief_parts`), and a Summary of each part's best.
- **Limitations**: questions without usable evidence, blocked branches, questions whose
  evidence was not needed for the answer, limited and conflicted claims.

Only the claims that carry the answer are cited, not everything retrieved. Notes and
transitions are in italics, so they are not mistaken for facts. A plain question gets no
section repeating the findings. A claim whose statement does not stand alone (it opens with
"For instance,", "However,", "This"... pointing at text not shown) is never put in the Summary
or a table cell (`ranking.stands_alone`).

Before it submits, the Writer runs the Reviewer's own deterministic checks on its draft
(`ctx.services.check_draft`) and drops what would fail from the place it failed in (a Summary
sentence, a table cell whose criterion its evidence does not state), then renders again:
an offline run never goes to review with a draft its own checks reject. The same checks carry
the answer check's verdicts (`evidence/answers.py`): for a question it finds not or partly
answered, the Writer adds the uncited claims that make the verdict better (a claim that gives
the step, the definition, the number the question asks for), never one that only matches its
words. A limitation shared by the claims of one source is said once for them.
"""

from __future__ import annotations

import re
from collections.abc import Set as AbstractSet
from typing import cast

from harness.contract.citations import format_citation, parse_citations
from harness.contract.claims import STATABLE, USABLE
from harness.contract.layout import CLAIMS, PLAN, card_path
from harness.contract.statuses import BLOCKED, BRANCH_WITHOUT_EVIDENCE, COMPLETED, FAILED, TIMEOUT
from harness.engines.offline.brief_parts import part_heading, series_note, superseded_only, unsaid
from harness.engines.offline.cited_sentences import bare, cite
from harness.engines.offline.drops import ANY, EVERYWHERE, TITLE, rejected
from harness.engines.offline.planner import parts_plan
from harness.engines.offline.ranking import criterion_words, stands_alone
from harness.evidence.checks import answer_gap, gap_wants_new_source
from harness.evidence.lexical import content_words, numbers
from harness.runtime.context import AgentContext
from harness.runtime.interface import AgentResult, Brief
from harness.sources.sentences import split_sentences

SUMMARY_MAX = 3
PART_MAX = 4  # claims a brief's part's section may cite
CHAIN_MAX = 7  # claims of the answer's chain (`in_answer` cards) a Summary may cite
CHECK_ROUNDS = 6  # render, check, drop what failed: at most this many times
ANSWER_TRIES = 4  # uncited claims tried, per question the answer check finds open
NOT_FOUND = "*not found in the corpus*"
_SCAFFOLD = re.compile(
    r"^(?:find what the sources say (?:about|to answer:?)|what do the sources say (?:about|on)|answer the question:?)\s+",
    re.I,
)
_QUESTION_WORDS = frozenset(
    """who whom whose what which when where why how is are was were do does did can could has have had will would
should the a an of in on at to for by with from and or both either between than more most less least first
differ differs difference differences compare compared comparison versus vs""".split()  # what any comparison asks
)


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def topic(q: dict) -> str:
    """A research question as a section heading: its subject and criteria, not the instruction."""
    terms, criteria = q.get("search_terms") or [], q.get("criteria") or []
    if terms and criteria:
        return f"{terms[0]}: {_join(criteria)}"
    text = _SCAFFOLD.sub("", q["text"].strip()).rstrip("?.! ")
    return text[:1].upper() + text[1:] if text else q["id"]


def candidates_of(plan: dict) -> dict[str, str]:
    """question id -> the candidate it researches, when the plan compares candidates (two or more)."""
    scope = {s.lower() for s in plan.get("scope", {}).get("in_scope", [])}
    research = [q for q in plan["questions"] if q["kind"] == "research"]
    found = {
        q["id"]: q["search_terms"][0]
        for q in research
        if q.get("search_terms") and q["search_terms"][0].lower() in scope
    }
    has_deliverable = any(q["kind"] == "deliverable" for q in plan["questions"])
    comparing = has_deliverable and len(found) >= 2 and len(found) == len(research)
    return found if comparing else {}


def aspect(question: str, candidates: list[str]) -> str:
    """What a comparison without named criteria asks about: the question minus its candidates and wh-words."""
    text = question
    for cand in sorted(candidates, key=len, reverse=True):
        text = text.replace(cand, " ")
    words = [w for w in re.findall(r"[\w'’-]+", text) if w.lower() not in _QUESTION_WORDS]
    return " ".join(words[:6]) or "what the sources say"


class _Claims:
    """The usable claims, their hops and confidences (from their cards)."""

    def __init__(self, claims: list[dict], cards: dict[str, dict]):
        self.claims = claims
        self.cards = cards

    def usable(self, qid: str) -> list[dict]:
        return [c for c in self.claims if c["question_id"] == qid and c["status"] in USABLE]

    def hop(self, claim: dict) -> int:
        hops = [self.cards[c].get("hop", 1) for c in claim["supporting_cards"] if c in self.cards]
        return min(hops) if hops else 1

    def sources(self, claim: dict) -> set[str]:
        return {self.cards[c]["source_id"] for c in claim["supporting_cards"] if c in self.cards}

    def strong(self, claim: dict) -> bool:
        return any(self.cards.get(c, {}).get("in_answer", False) for c in claim["supporting_cards"])


def answer_claims(pool: list[dict], cl: _Claims, skip: AbstractSet[str] = frozenset()) -> list[dict]:
    """The claims that carry the answer, at most SUMMARY_MAX: the best one, then the links of the answer's chain
    (claims with an `in_answer` card: the best sentence of each document the question or a bridge names), one
    per source; when that is one claim, the next best of its document with it. Hop-1 claims come first, so a bridge reads before what it led to. Claims in `skip`, and claims
    whose statement does not stand alone, are left out (unless no other claim is left: then the best one)."""
    pool = [c for c in pool if c["status"] != "conflicted" and c["claim_id"] not in skip]
    pool = [c for c in pool if stands_alone(c["statement"])] or pool[:1]  # the best one rather than no answer
    if not pool:
        return []
    chosen = [pool[0]]
    for c in pool[1:]:
        if len(chosen) >= CHAIN_MAX:
            break
        if cl.strong(c):
            chosen.append(c)
    if len(chosen) == 1:
        # One sentence rarely says it all: the next best claim of the same document says more of the answer.
        more = next((c for c in pool[1:] if cl.sources(c) & cl.sources(chosen[0])), None)
        chosen += [more] if more else []
    return sorted(chosen, key=lambda c: (cl.hop(c), pool.index(c)))


def _claim_lines(c: dict, prefix: str = "", cards: dict[str, dict] | None = None) -> list[str]:
    """A usable claim as sentences: verified or with limit as stated (the limitation follows once for the section,
    `_limit_lines`), with its superseded figures in a note (`brief_parts`); conflicted claims have their own
    section."""
    if c["status"] in STATABLE:
        return [prefix + cite(c["statement"], c["claim_id"]) + series_note(c, cards or {})]
    return []


def _limit_groups(claims: list[dict], cl: _Claims) -> list[tuple[str, list[str]]]:
    """(limitation, claim ids) of the limited claims, one group per limitation and source: a limitation that
    holds for a source is said once for it, not once per sentence quoting it."""
    groups: dict[tuple[str, tuple[str, ...]], list[str]] = {}
    for c in claims:
        if c["status"] == "verified_with_limit":
            key = (bare("; ".join(c["limitations"])), tuple(sorted(cl.sources(c))))
            groups.setdefault(key, []).append(c["claim_id"])
    return [(limit, ids) for (limit, _), ids in groups.items()]


def _limit_lines(claims: list[dict], cl: _Claims) -> list[str]:
    """The limitations of a section's limited claims, each said once per source, citing the claims it holds for."""
    return [
        f"This finding has a limitation: {limit} {format_citation(ids)}."
        if len(ids) == 1
        else f"These findings, from one source, have a limitation: {limit} {format_citation(ids)}."
        for limit, ids in _limit_groups(claims, cl)
    ]


def _figure(text: str) -> str:
    """The sentence of a side that carries its figure (a quote may run on to its paragraph's end): the conflict line
    is one sentence, its citation at its end."""
    held = [text[s:e] for s, e in split_sentences(text) if numbers(text[s:e])]
    return held[0] if held else text


def _conflict_line(c: dict, cards: dict[str, dict]) -> str:
    other = cards.get(c["contradicting_cards"][0], {}).get("quote", "") if c["contradicting_cards"] else ""
    return (
        f"The sources disagree on this point: one says “{bare(_figure(c['statement']))}”, while another says "
        f"“{bare(_figure(other))}” {format_citation([c['claim_id']])}."
    )


def _cell(claim: dict | str | None, row: str) -> str:
    """A table cell: the claim's statement, each of its sentences cited (as in prose, `cite`); or, for the name of
    the row that holds the only claim on this one, a note pointing there; or NOT_FOUND."""
    if claim is None:
        return NOT_FOUND
    if isinstance(claim, str):
        return f"*see its {claim} cell: the evidence has no other statement on {row}*"
    text = cite(claim["statement"], claim["claim_id"]).removesuffix(".").replace("|", "\\|")
    if claim["status"] == "verified_with_limit":
        text += f" (limited evidence: {'; '.join(claim['limitations'])})"
    return text


def _on(claims: list[dict], criterion: str | None, skip: AbstractSet[str] = frozenset()) -> list[dict]:
    """The verified claims that mention the criterion (any of its words), best first; never one in `skip` or one
    whose statement does not stand alone."""
    pool = [c for c in claims if c["status"] in STATABLE and c["claim_id"] not in skip and stands_alone(c["statement"])]
    if criterion is None:
        return pool
    want = criterion_words(criterion)
    return [c for c in pool if want & content_words(c["statement"])]


def column(claims: list[dict], rows: list[str], cited: set[str], skip, named: bool = True) -> dict:
    """One candidate's cells: row -> its claim; or, when every claim on the row is already another row's cell,
    that row's name (a cell never repeats another row's claim); or None (nothing on it). Each row takes its best
    claim not yet cited (in the Summary or another row), or else its best one no other row holds; the row with the
    fewest claims on it chooses first, so one claim on two criteria goes where it is the only one. Rows that are
    not `named` criteria (the question's aspect) take any claim."""
    pools = {row: [] if ANY in skip(row) else _on(claims, row if named else None, skip(row)) for row in rows}
    holder: dict[str, str | None] = {}  # claim id -> the row whose cell it is
    out: dict = {}
    for row in sorted(rows, key=lambda r: (len(pools[r]), rows.index(r))):
        free = [c for c in pools[row] if c["claim_id"] not in holder]
        pick = next(iter([c for c in free if c["claim_id"] not in cited] or free), None)
        if pick is not None:
            holder[pick["claim_id"]] = row
        out[row] = pick or next((holder[c["claim_id"]] for c in pools[row] if c["claim_id"] in holder), None)
    return out


def carried_over(claims: list[dict], cards: dict[str, dict], run_id: str | None) -> dict[str, str]:
    """Claim id -> the run it was carried over from: a follow-up's claims whose every supporting card another run
    extracted (the parent's cards, copied by `research ask`). Empty when the run is not known."""
    out: dict[str, str] = {}
    for c in claims:
        runs = {cards.get(k, {}).get("run_id") for k in c["supporting_cards"]}
        if run_id and c["supporting_cards"] and len(runs) == 1 and None not in runs and run_id not in runs:
            out[c["claim_id"]] = cast(str, runs.pop())  # None is not among them
    return out


class _Draft:
    """One rendering of the draft: what its sections share (the usable claims by question, the drops of the checks,
    the claims cited so far, which a later section does not cite again), so each section is a step of its own."""

    def __init__(self, plan: dict, claims: list[dict], cards: dict[str, dict], drop, extra, run_id: str | None):
        self.plan, self.claims, self.cards, self.drop, self.extra = plan, claims, cards, drop, extra
        self.research = [q for q in plan["questions"] if q["kind"] == "research"]
        self.cl = _Claims(claims, cards)
        self.by_q = {q["id"]: self.cl.usable(q["id"]) for q in self.research}
        self.candidates = candidates_of(plan)
        self.carried = carried_over(claims, cards, run_id)
        self.parts = parts_plan(plan)
        self.cited: set[str] = set()

    def part_pool(self, q: dict, place: str) -> list[dict]:
        """A brief's part's statable claims, best first, current figures before superseded ones."""
        pool = [
            c
            for c in self.by_q[q["id"]]
            if c["status"] in STATABLE and c["claim_id"] not in self.skip(place) and stands_alone(c["statement"])
        ]
        return sorted(pool, key=superseded_only)

    def skip(self, place: str) -> set[str]:
        """The claims the checks rejected in `place` or everywhere (every claim, when the place was rejected whole)."""
        out = {cid for where, cid in self.drop if where in (place, EVERYWHERE)}
        return out | {c["claim_id"] for c in self.claims} if ANY in out else out

    def added(self, q: dict, place: str) -> list[dict]:
        """The claims added to `place` for question `q` because they give what its answer lacked."""
        extra = self.extra.get(q["id"], ())
        return [c for c in self.by_q[q["id"]] if c["claim_id"] in extra and c["claim_id"] not in self.skip(place)]

    def head(self) -> list[str]:
        """The title (the question, or a neutral one when the checks read the question as an instruction) and how
        the draft was written, so a reader knows every factual sentence quotes its evidence."""
        title = "Research note on the question in plan.json" if (TITLE, ANY) in self.drop else self.plan["question"]
        return [
            f"# {title}",
            "",
            "*Written by the offline Writer from claims.json: every factual sentence quotes the evidence of the claim "
            "it cites, and only the claims that carry the answer are cited.*",
            "",
        ]

    def _summary_claims(self) -> list[tuple[dict, str]]:
        """(claim, prefix) of the Summary, in order: a comparison names each candidate with its best claim; otherwise
        each question's best claim first, then each one's second best... (a follow-up: the new evidence first)."""
        if self.candidates:
            return [
                (c, f"For {self.candidates[q['id']]}: ")
                for q in self.research[:SUMMARY_MAX]
                for c in answer_claims(self.by_q[q["id"]], self.cl, self.skip("Summary"))[:1] + self.added(q, "Summary")
            ]
        if self.parts:  # a brief in parts: each part's best current claim, its section says the rest
            return [(c, "") for q in self.research for c in self.part_pool(q, "Summary")[:1] if not superseded_only(c)]
        order = [q["id"] for q in self.research]
        pool = [c for q in self.research for c in self.by_q[q["id"]]]
        pool = [c for c in pool if c["claim_id"] not in self.carried] or pool
        pool.sort(key=lambda c: (self.by_q[c["question_id"]].index(c), order.index(c["question_id"])))
        more = [c for q in self.research[:1] if len(self.research) == 1 for c in self.added(q, "Summary")]
        return [(c, "") for c in answer_claims(pool, self.cl, self.skip("Summary")) + more]

    def summary(self) -> list[str]:
        """The Summary: its claims, each cited once, then their limitations, said once per source."""
        lines: list[str] = []
        stated: list[dict] = []
        for c, prefix in self._summary_claims():
            if c["claim_id"] not in self.cited:
                lines += _claim_lines(c, prefix, self.cards)
                stated.append(c)
                self.cited.add(c["claim_id"])
        lines += _limit_lines(stated, self.cl)
        return ["## Summary", "", *(lines or ["*No usable evidence answers the question; see Limitations.*"]), ""]

    def disagreements(self) -> list[str]:
        """Every conflicted claim the checks left in, with both sides: the conflict is itself a finding."""
        disagree = self.skip("Where the sources disagree")
        conflicted = [
            c
            for q in self.research
            for c in self.by_q[q["id"]]
            if c["status"] == "conflicted" and c["claim_id"] not in disagree
        ]
        lines = ["## Where the sources disagree", ""] if conflicted else []
        for c in conflicted:
            lines += [_conflict_line(c, self.cards), ""]
            self.cited.add(c["claim_id"])
        return lines

    def question_sections(self) -> list[str]:
        """A plain plan of several questions: a section per question its best claim answers that the Summary does
        not already cite, so no question's answer is left out (a comparison's table does this for its own)."""
        if self.candidates or (len(self.research) <= 1 and not self.parts):
            return []
        return [line for q in self.research for line in (self._part(q) if self.parts else self._section(q))]

    def _part(self, q: dict) -> list[str]:
        """A brief's part: always a section, its best claims not stated above (at most PART_MAX), or a note
        saying where its evidence is or that the corpus has none."""
        heading = part_heading(q)
        pool = self.part_pool(q, heading) + self.added(q, heading)
        own = [c for c in dict((c["claim_id"], c) for c in pool).values() if c["claim_id"] not in self.cited]
        own = unsaid(own, [c for c in self.claims if c["claim_id"] in self.cited])[:PART_MAX]
        lines = [f"## {heading}", ""]
        for c in own:
            lines += _claim_lines(c, "", self.cards)
            self.cited.add(c["claim_id"])
        if not own:  # its claims are stated above (the Summary, or a part they came first in), or there are none
            lines.append("*Its evidence is quoted above.*" if pool else f"*{NOT_FOUND[1:-1]}.*")
        return lines + _limit_lines(own, self.cl) + [""]

    def _section(self, q: dict) -> list[str]:
        """One question's section: its best claim and those added for it, not yet cited; a parent's question in a
        follow-up says it was carried over, so its evidence is not read as this run's."""
        own = answer_claims(self.by_q[q["id"]], self.cl, self.skip(topic(q)))[:1] + self.added(q, topic(q))
        own = [c for c in dict((c["claim_id"], c) for c in own).values() if c["claim_id"] not in self.cited]
        if not own:
            return []
        lines = [f"## {topic(q)}", ""]
        if parents := {self.carried[c["claim_id"]] for c in own if c["claim_id"] in self.carried}:
            lines += [f"*Carried over from run {', '.join(sorted(parents))}, which this run follows up.*", ""]
        for c in own:
            lines += _claim_lines(c, "", self.cards)
            self.cited.add(c["claim_id"])
        return lines + _limit_lines(own, self.cl) + [""]


def render_draft(
    plan: dict,
    claims: list[dict],
    cards: dict[str, dict],
    branches: dict[str, dict],
    drop: AbstractSet[tuple[str, str]] = frozenset(),
    extra: dict[str, list[str]] | None = None,
    open_questions: frozenset[str] = frozenset(),
    run_id: str | None = None,
) -> str:
    """The draft; `drop` holds (place, claim id) pairs its own checks rejected (`drops.place_of`), left out there;
    `extra` (question id -> claim ids) the claims added because they give what the answer check found missing;
    `open_questions` the questions it still finds open (the harness states them under Limitations, so the draft
    never says there is nothing to state). In a follow-up (`run_id` given, some claims carried over from the
    parent) the Summary answers the new question from the new evidence, and a parent's question keeps its section,
    marked as carried over. Sections in this order, as each cites only what the ones before it did not."""
    d = _Draft(plan, claims, cards, drop, extra or {}, run_id)
    lines = d.head() + d.summary()
    if d.candidates:
        lines += _comparison(plan, d.research, d.candidates, d.by_q, d.cited, d.skip)
    lines += d.disagreements()
    lines += d.question_sections()
    lines += _limitations(d.research, d.by_q, claims, d.cited, branches, d.cl, bool(open_questions))
    return "\n".join(lines).rstrip() + "\n"


def _comparison(plan, research, candidates, by_q, cited, skip) -> list[str]:
    names = [candidates[q["id"]] for q in research]
    criteria = plan.get("criteria") or []
    rows = criteria or [aspect(plan["question"], names)]
    heading = f"{' vs '.join(names)}: {_join(criteria)}" if criteria else f"{' vs '.join(names)}"
    out = [f"## {heading}", "", "| Criterion | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    found: dict[str, list[str]] = {}
    missing: dict[str, list[str]] = {}
    taken = set(cited) if criteria else set()  # one row of no criteria may repeat the Summary's best claim
    cols = [column(by_q[q["id"]], rows, taken, lambda r: skip(f"| {r}"), named=bool(criteria)) for q in research]
    for row in rows:
        cells = [col[row] for col in cols]
        for q, cell in zip(research, cells):
            (found if cell else missing).setdefault(row, []).append(candidates[q["id"]])
        if not any(isinstance(c, dict) for c in cells):
            continue  # a row that quotes nothing states nothing; the notes below say what is missing
        out.append(f"| {row} | " + " | ".join(_cell(c, row) for c in cells) + " |")
        cited.update(c["claim_id"] for c in cells if isinstance(c, dict))
    if len(out) == 4:
        out = out[:2]  # no row states anything: no empty table, the notes below say what is missing
    out.append("")
    supported = [f"{row} for {_join(found[row])}" for row in rows if row in found]
    if supported:
        out.append(f"*What the evidence supports: the quoted statements on {'; on '.join(supported)}.*")
    gaps = [f"{row} for {_join(missing[row])}" for row in rows if row in missing]
    if gaps:
        out.append(f"*What it does not support: anything on {'; on '.join(gaps)}, which the corpus does not cover.*")
    out.append(
        "*Nor does it support a recommendation beyond the quoted statements: the offline engine draws no conclusion "
        "the sources do not state.*"
    )
    out.append("")
    return out


def _limitations(research, by_q, claims, cited, branches, cl: _Claims, open_questions: bool = False) -> list[str]:
    lines = ["## Limitations", ""]
    gaps = False
    for q in research:
        branch = branches.get(q["id"], {})
        if branch.get("status") in BRANCH_WITHOUT_EVIDENCE:
            what = {BLOCKED: "was blocked", FAILED: "failed", TIMEOUT: "timed out"}[branch["status"]]
            lines.append(
                f"- {q['id']} ({q['text']}): the research branch {what}: {branch.get('reason') or 'no reason given'}."
            )
            gaps = True
        elif not by_q[q["id"]]:
            lines.append(f"- {q['id']} ({q['text']}): no usable evidence was found.")
            gaps = True
        elif not any(c["claim_id"] in cited for c in by_q[q["id"]]):
            lines.append(f"- {q['id']} ({q['text']}): none of its evidence is cited.")
            gaps = True
    for c in claims:
        if c["status"] == "conflicted" and c["claim_id"] in cited:
            lines.append(f"- {c['claim_id']} is left open because its sources conflict.")
            gaps = True
    for limit, ids in _limit_groups([c for c in claims if c["claim_id"] in cited], cl):
        which = ids[0] if len(ids) == 1 else ", ".join(ids[:-1]) + " and " + ids[-1]
        rest = "rests" if len(ids) == 1 else "rest, from one source,"
        lines.append(f"- {which} {rest} on limited evidence: {limit}.")
        gaps = True
    uncited = sum(1 for q in research for c in by_q[q["id"]] if c["claim_id"] not in cited)
    if uncited:
        # Only what is known: the answer check judges the cited evidence (the harness adds its verdicts here).
        lines.append(f"- {uncited} further usable claim(s) in claims.json are not cited.")
    elif not gaps and not open_questions:
        lines.append("- None found beyond the scope of the corpus searched.")
    return lines


def _checked(
    plan, claims, cards, branches, check, extra, open_questions=frozenset(), run_id: str | None = None
) -> tuple[str, list[dict]]:
    """Render, run the Reviewer's deterministic checks (`check(text)` → defects), drop from its place each claim
    a defect names, and render again, until the draft is clean or nothing more can be dropped. The last draft
    and its defects."""
    drop: set[tuple[str, str]] = set()
    text = render_draft(plan, claims, cards, branches, drop, extra, open_questions, run_id)
    defects = check(text)
    for _ in range(CHECK_ROUNDS):
        more = rejected(text, defects) - drop
        if not more:
            break
        # A place rejected a second time is dropped whole (a table row then reads "not found"), so the loop ends.
        # (A claim left out everywhere is left out alone: no place is whole.)
        again = ({place for place, _ in more} & {place for place, _ in drop}) - {EVERYWHERE}
        drop |= more | {(place, ANY) for place in again}
        text = render_draft(plan, claims, cards, branches, drop, extra, open_questions, run_id)
        defects = check(text)
    return text, defects


def _gaps(defects: list[dict]) -> dict[str, int]:
    """question id -> how short of an answer the answer check finds it (2 not answered, 1 partly)."""
    return dict(g for d in defects if (g := answer_gap(d)))


def checked_draft(plan, claims, cards, branches, check, run_id: str | None = None) -> str:
    """The draft its own checks pass (`_checked`), with, for each question the answer check finds open, the
    claims of that question that give what the answer lacks: each uncited claim (best first, at most
    ANSWER_TRIES of them) is added when the question's verdict gets better with it. A claim that only matches
    the question's words adds nothing to the verdict, so it is never added. A claim from a source the draft does
    not cite yet is tried only for a gap such a source may fill (`gap_wants_new_source`): a missing kind of answer
    is looked for in the sources already cited."""
    extra: dict[str, list[str]] = {}
    sources = _Claims(claims, cards).sources
    text, defects = _checked(plan, claims, cards, branches, check, extra, run_id=run_id)
    gaps = _gaps(defects)
    for q in [q for q in plan["questions"] if q["id"] in gaps]:
        cited = {k for c in parse_citations(text) for k in c.keys}
        new_sources = any(gap_wants_new_source(d) for d in defects if (answer_gap(d) or ("",))[0] == q["id"])
        known = {s for c in claims if c["claim_id"] in cited for s in sources(c)}
        pool = [
            c
            for c in claims
            if c["question_id"] == q["id"]
            and c["status"] in STATABLE
            and c["claim_id"] not in cited
            and stands_alone(c["statement"])
            and (new_sources or sources(c) <= known)
        ]
        for c in pool[:ANSWER_TRIES]:
            if q["id"] not in gaps or len(extra.get(q["id"], [])) >= SUMMARY_MAX:
                break
            trial = {**extra, q["id"]: [*extra.get(q["id"], []), c["claim_id"]]}
            t2, d2 = _checked(plan, claims, cards, branches, check, trial, run_id=run_id)
            now = _gaps(d2)
            if now.get(q["id"], 0) < gaps[q["id"]] and c["claim_id"] in {
                k for x in parse_citations(t2) for k in x.keys
            }:
                extra, text, defects, gaps = trial, t2, d2, now
    if gaps:  # open questions: the report will say so, so the draft must not say there is nothing to say
        text, _ = _checked(plan, claims, cards, branches, check, extra, frozenset(gaps), run_id)
    return text


class OfflineWriter:
    def __init__(self, spec=None):
        self.spec = spec

    def run(self, brief: Brief, ctx: AgentContext) -> AgentResult:
        plan = ctx.read_json(PLAN)
        claims = ctx.read_json(CLAIMS)["claims"]
        needed = {
            cid
            for c in claims
            if c["status"] in USABLE
            for cid in c["supporting_cards"] + c["contradicting_cards"] + [e["card_id"] for e in c.get("series", [])]
        }
        cards = {cid: ctx.read_json(card_path(cid)) for cid in sorted(needed)}
        draft = brief.outputs[0]
        branches = brief.facts.get("branches", {})
        text = checked_draft(
            plan, claims, cards, branches, lambda t: ctx.services.check_draft(draft, branches, text=t), ctx.run_id
        )
        ctx.write(draft, text)
        return AgentResult(COMPLETED, draft)
