"""Offline Analyst: evidence cards grouped into claims by lexical similarity, ranked, with status by rule.

- Cards are ranked by how well their quotes answer the question (`ranking.Ask`, with the
  source's title as context), the Researcher's confidence, and how many sources agree.
- Cards of one question whose quotes share most content words and name the same things (and
  agree on numbers and negation) are near-duplicates and form one claim: its statement is the best card's quote,
  the other cards stay on it as corroboration.
- Claims are numbered best first within each question, so C1 is the first question's best.
- Two claims of one question, from different sources, that talk about the same thing but
  disagree on a number or version, or where one negates the other, become one `conflicted`
  claim with both sides (one document stating a rule and its exception is not a conflict).
- Two claims that give one measure different figures for different periods (`evidence/vintage.py`: an archived
  document, an older year in the title, path or sentence) are a series, not a conflict: the newer leads and the
  older goes in its `series` as superseded; a figure only an archived document gives is marked superseded itself.
- In a brief's parts, a card whose sentence only names the brief's subject and states nothing of the part's
  criteria is not evidence for it (`evidence/subject.py`), so "Acme is a company that..." answers no part.
- `verified`: a primary source or two independent sources; `verified_with_limit`: only
  secondary (or only low-confidence) backing; `unsupported`: a question with no evidence.
"""

from __future__ import annotations

from harness.contract.cards import HIGH, LOW, MEDIUM, Confidence
from harness.contract.claims import (
    CONFLICTED,
    CURRENT,
    SUPERSEDED,
    UNSUPPORTED,
    VERIFIED,
    VERIFIED_WITH_LIMIT,
    ClaimStatus,
)
from harness.contract.layout import CARDS, CLAIMS, PLAN, source_record_path
from harness.contract.meaning import DEFAULT_MEANING, MeaningModel
from harness.contract.quotes import normalize_ws
from harness.contract.statuses import COMPLETED, RESEARCH
from harness.engines.offline import semantic
from harness.engines.offline.planner import brief_subject
from harness.engines.offline.ranking import Ask, entities
from harness.evidence.lexical import content_words, jaccard, negated, number_clauses, numbers
from harness.evidence.subject import states, subject_only
from harness.evidence.vintage import Period, differ, period_of, same_measure, supersedes
from harness.runtime.context import AgentContext
from harness.runtime.interface import AgentResult, Brief
from harness.sources.sentences import split_sentences

SAME_CLAIM = 0.5  # Jaccard of content words for two quotes to back one claim
SAME_TOPIC = 0.35  # ... for two claims to be about the same thing (conflict candidates)
_CONF_RANK: dict[Confidence, int] = {HIGH: 0, MEDIUM: 1, LOW: 2}
_CONF_BONUS: dict[Confidence, float] = {HIGH: 0.2, MEDIUM: 0.1, LOW: 0.0}
SECONDARY, FLAGGED = 0.2, 0.1  # rank penalties of a card from a secondary / instruction-flagged source
CORROBORATION = 0.1  # added to a claim's rank per further source that agrees (at most two)


def card_rank(ask: Ask, card: dict, title: str, kind: str = "primary") -> float:
    """How well one card answers the question: its quote against the question, its source's title as context,
    the Researcher's confidence; a secondary or flagged source ranks below a primary one saying as much."""
    penalty = (SECONDARY if kind == "secondary" else 0.0) + (
        FLAGGED if card["limitations"] and any("instruction-like" in lim for lim in card["limitations"]) else 0.0
    )
    return ask.score(card["quote"], title) + _CONF_BONUS[card["confidence"]] - penalty


def _words(card: dict) -> set[str]:
    return {w for w in content_words(card["quote"]) if not w.isdigit()}


def _names(card: dict) -> set[str]:
    """The words of the things the quote names, without numbers ("Larkspur 3.0" names Larkspur)."""
    return {w for w in content_words(" ".join(entities(card["quote"]))) if not any(ch.isdigit() for ch in w)}


def _same_things(a: dict, b: dict) -> bool:
    """Each quote's named things are in the other: "Jeffersontown is a home rule-class city in Jefferson County"
    and "Middletown is a home rule-class city in Jefferson County" are about two things."""
    return _names(a) <= content_words(b["quote"]) and _names(b) <= content_words(a["quote"])


def _same_claim(a: dict, b: dict) -> bool:
    """Near-duplicates: most content words shared, the same named things, agreement on numbers and negation."""
    return jaccard(_words(a), _words(b)) >= SAME_CLAIM and _same_things(a, b) and _agree(a, b)


def _figure_sentences(card: dict) -> dict:
    """The card read as only its sentences that carry a number: a quote lengthened to its paragraph's end says
    more around its figure, and what the figure is about is in its own sentence."""
    quote = card["quote"]
    held = [quote[s:e] for s, e in split_sentences(quote) if numbers(quote[s:e])]
    return {**card, "quote": " ".join(held)} if held else card


def _same_topic(a: dict, b: dict) -> bool:
    """About the same named things, and whole quotes overlap, or the clauses that carry their numbers do ("added
    in X 3.0" / "first shipped with X 3.1"), read in the sentences that hold the figures. Two films' release years
    are not a conflict."""
    a, b = _figure_sentences(a), _figure_sentences(b)
    if not _same_things(a, b):
        return False
    if jaccard(_words(a), _words(b)) >= SAME_TOPIC:
        return True
    na, nb = number_clauses(a["quote"]), number_clauses(b["quote"])
    return bool(na and nb) and jaccard(na, nb) >= SAME_TOPIC


def _agree(a: dict, b: dict) -> bool:
    na, nb = numbers(a["quote"]), numbers(b["quote"])
    return (not na or not nb or na == nb) and negated(a["quote"]) == negated(b["quote"])


def _sources(cluster: list[dict]) -> set[str]:
    return {c["source_id"] for c in cluster}


def _cluster_rank(cluster: list[dict], rank: dict[str, float]) -> float:
    """A claim's rank: its best card's, plus a little for each further source that agrees."""
    return rank[cluster[0]["card_id"]] + CORROBORATION * min(len(_sources(cluster)) - 1, 2)


def _short(text: str, n: int = 160) -> str:
    text = normalize_ws(text)
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


# The keys of a claim, in the order claims.json stores them.
CLAIM_KEYS = (
    "claim_id",
    "statement",
    "question_id",
    "supporting_cards",
    "contradicting_cards",
    "limitations",
    "status",
)
OPTIONAL_KEYS = ("series",)  # stored only when a claim has one


def _source_facts(ctx: AgentContext, cards: list[dict]) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """Each cited source's kind (primary or secondary), title and path (or URL), read once per source: what a card
    ranks by, and what dates it (`evidence/vintage.py`)."""
    kinds: dict[str, str] = {}
    titles: dict[str, str] = {}
    paths: dict[str, str] = {}
    for card in cards:
        sid = card["source_id"]
        if sid not in kinds:
            record = ctx.read_json(source_record_path(sid))
            kinds[sid], titles[sid] = record["kind"], record.get("title") or ""
            paths[sid] = record.get("path") or record.get("url") or ""
    return kinds, titles, paths


def _unsupported(q: dict) -> dict:
    """The claim of a question no card answers: said as such, never reported as fact (invariant 5)."""
    return {
        "statement": f"No evidence was found to answer: {q['text']}",
        "question_id": q["id"],
        "supporting_cards": [],
        "contradicting_cards": [],
        "limitations": ["no source in the corpus addresses this question"],
        "status": UNSUPPORTED,
    }


def _clusters(ranked: list[dict]) -> list[list[dict]]:
    """The cards grouped into near-duplicates (`_same_claim` with a cluster's best card), best card first."""
    clusters: list[list[dict]] = []
    for card in ranked:
        for cluster in clusters:
            if _same_claim(card, cluster[0]):
                cluster.append(card)
                break
        else:
            clusters.append([card])
    return clusters


def _rival(clusters: list[list[dict]], i: int, used: set[int]) -> int | None:
    """The first later, unpaired cluster that disagrees with cluster `i` about the same topic, from other sources
    (a document stating a rule and its exception is not a conflict); None when there is none."""
    cluster = clusters[i]
    return next(
        (
            j
            for j in range(i + 1, len(clusters))
            if j not in used
            and _same_topic(cluster[0], clusters[j][0])
            and not _agree(cluster[0], clusters[j][0])
            and not _sources(cluster) & _sources(clusters[j])
        ),
        None,
    )


def _one_series(a: dict, b: dict, periods: dict[str, Period]) -> bool:
    """Two cards giving one measure different figures for two periods (`evidence/vintage.py`), about one thing: they
    name it both, or one is an archived document's (two films' box office, each dated by its title, are not one)."""
    pa, pb = periods[a["card_id"]], periods[b["card_id"]]
    return (
        same_measure(a["quote"], b["quote"])
        and differ(a["quote"], b["quote"])
        and (supersedes(pa, pb) or supersedes(pb, pa))
        and (pa.archived or pb.archived or bool(_names(a) & _names(b)))
    )


def _successors(clusters: list[list[dict]], i: int, used: set[int], periods: dict[str, Period]) -> list[int]:
    """The later, unpaired clusters, from other sources, that are one series with cluster `i`, never a conflict."""
    return [
        j
        for j in range(i + 1, len(clusters))
        if j not in used
        and not _sources(clusters[i]) & _sources(clusters[j])
        and _one_series(clusters[i][0], clusters[j][0], periods)
    ]


def _entry(card: dict, periods: dict[str, Period], vintage) -> dict:
    return {"card_id": card["card_id"], "period": periods[card["card_id"]].label(), "vintage": vintage}


class _Screen:
    """What a question's cards are judged by beyond ranking: the brief's subject (a sentence that only names it is
    no evidence, `evidence/subject.py`) and each card's period (`evidence/vintage.py`)."""

    def __init__(self, subject: str, titles: dict[str, str], paths: dict[str, str], meaning: semantic.Meaning):
        self.subject, self.titles, self.paths, self.meaning = subject, titles, paths, meaning

    @staticmethod
    def criteria(q: dict) -> list[str]:
        """What a part asks for: its criteria, else the part as the brief words it."""
        return q.get("criteria") or (q.get("search_terms") or [q["text"]])[:1]

    def home(self, questions: list[dict], cards: list[dict]) -> dict[str, list[dict]]:
        """Each question's cards. In a brief's parts, a card found for one part that states only another part's
        criteria is that part's evidence ("Revenue for 2024 was..." found while searching operations)."""
        out: dict[str, list[dict]] = {q["id"]: [] for q in questions}
        for c in cards:
            fits = [q["id"] for q in questions if self.subject and states(c["quote"], self.criteria(q), self.subject)]
            home = fits[0] if len(fits) == 1 and c["question_id"] not in fits else c["question_id"]
            out.setdefault(home, []).append(c)
        return out

    def evidence(self, q: dict, qcards: list[dict]) -> list[dict]:
        """The cards that are evidence for the question: not one whose sentence only names the brief's subject."""
        return [
            c for c in qcards if not subject_only(c["quote"], self.subject, self.criteria(q), self.meaning.similarity)
        ]

    def periods(self, qcards: list[dict]) -> dict[str, Period]:
        return {
            c["card_id"]: period_of(self.paths[c["source_id"]], self.titles[c["source_id"]], c["quote"]) for c in qcards
        }


class OfflineAnalyst:
    def __init__(self, spec=None, meaning: MeaningModel = DEFAULT_MEANING):
        self.spec, self.meaning = spec, semantic.Meaning(meaning)  # the run's meaning model (`RunConfig.meaning`)

    def run(self, brief: Brief, ctx: AgentContext) -> AgentResult:
        plan = ctx.read_json(PLAN)
        cards = [ctx.read_json(p) for p in ctx.list(CARDS)]
        kinds, titles, paths = _source_facts(ctx, cards)
        screen = _Screen(brief_subject(plan), titles, paths, self.meaning)
        claims = []
        research = [q for q in plan["questions"] if q["kind"] == RESEARCH]
        homes = screen.home(research, cards)
        for q in research:
            qcards = screen.evidence(q, homes[q["id"]])
            claims += self._question_claims(q, qcards, kinds, titles, screen.periods(qcards))
        for n, claim in enumerate(claims, start=1):
            claim["claim_id"] = f"C{n}"
        ordered = [{k: c[k] for k in (*CLAIM_KEYS, *OPTIONAL_KEYS) if k in c} for c in claims]
        ctx.write(CLAIMS, {"claims": ordered})
        counts: dict[str, int] = {}
        for c in ordered:
            counts[c["status"]] = counts.get(c["status"], 0) + 1
        return AgentResult(COMPLETED, ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))

    def _question_claims(
        self, q: dict, qcards: list[dict], kinds: dict[str, str], titles: dict[str, str], periods: dict[str, Period]
    ) -> list:
        """One question's claims, best first: its cards ranked against it, near-duplicates clustered, one measure's
        figures for several periods made one series, and two clusters that disagree on the same topic made one
        conflicted claim; unsupported when it has no card."""
        if not qcards:
            return [_unsupported(q)]
        ask = Ask.of(q["text"], " ".join(q.get("criteria", [])))
        ask.weigh([c["quote"] for c in qcards])
        rank = {c["card_id"]: card_rank(ask, c, titles[c["source_id"]], kinds[c["source_id"]]) for c in qcards}
        qcards = sorted(qcards, key=lambda c: (-rank[c["card_id"]], _CONF_RANK[c["confidence"]], c["card_id"]))
        clusters = _clusters(qcards)
        clusters.sort(key=lambda cl: -_cluster_rank(cl, rank))  # stable: ties keep the card order
        used: set[int] = set()
        question_claims = []
        for i, cluster in enumerate(clusters):
            if i in used:
                continue
            if later := _successors(clusters, i, used, periods):
                used.update(later)
                question_claims.append(self._series(q, [cluster] + [clusters[j] for j in later], kinds, periods))
            elif (rival := _rival(clusters, i, used)) is not None:
                used.add(rival)
                question_claims.append(self._conflict(q, cluster, clusters[rival]))
            else:
                question_claims.append(self._dated(self._claim(q, cluster, kinds), cluster, periods))
        return question_claims

    def _series(self, q: dict, sides: list[list[dict]], kinds: dict[str, str], periods: dict[str, Period]) -> dict:
        """One measure's figures for several periods: the newest leads (the claim states it), the older are
        superseded, newest first."""
        sides = sorted(sides, key=lambda side: periods[side[0]["card_id"]].order(), reverse=True)
        claim = self._claim(q, sides[0], kinds)
        claim["series"] = [_entry(sides[0][0], periods, CURRENT)] + [
            _entry(side[0], periods, SUPERSEDED) for side in sides[1:]
        ]
        return claim

    @staticmethod
    def _dated(claim: dict, cluster: list[dict], periods: dict[str, Period]) -> dict:
        """A figure only archived documents give is marked superseded: a newer one may exist, so it is never
        presented as current."""
        if numbers(claim["statement"]) and all(periods[c["card_id"]].archived for c in cluster):
            claim["series"] = [_entry(cluster[0], periods, SUPERSEDED)]
            claim["limitations"] = [*claim["limitations"], "from an archived document: the figure may be superseded"]
        return claim

    @staticmethod
    def _claim(q: dict, cluster: list[dict], kinds: dict[str, str]) -> dict:
        sources = {c["source_id"] for c in cluster}
        limitations = list(dict.fromkeys(lim for c in cluster for lim in c["limitations"]))
        if any(kinds[s] == "primary" for s in sources) or len(sources) >= 2:
            status: ClaimStatus = VERIFIED
            if all(c["confidence"] == LOW for c in cluster):
                status = VERIFIED_WITH_LIMIT
                limitations.append("low-confidence evidence only")
        else:
            status = VERIFIED_WITH_LIMIT
            limitations = ["secondary source only"] + [lim for lim in limitations if lim != "secondary source"]
        return {
            "statement": normalize_ws(cluster[0]["quote"]),
            "question_id": q["id"],
            "supporting_cards": [c["card_id"] for c in cluster],
            "contradicting_cards": [],
            "limitations": limitations,
            "status": status,
        }

    @staticmethod
    def _conflict(q: dict, side_a: list[dict], side_b: list[dict]) -> dict:
        a, b = side_a[0]["quote"], side_b[0]["quote"]
        return {
            "statement": normalize_ws(a),
            "question_id": q["id"],
            "supporting_cards": [c["card_id"] for c in side_a],
            "contradicting_cards": [c["card_id"] for c in side_b],
            "limitations": [f'Sources disagree: one says "{_short(a)}", another says "{_short(b)}".'],
            "status": CONFLICTED,
        }
