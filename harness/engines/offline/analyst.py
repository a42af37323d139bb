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
- `verified`: a primary source or two independent sources; `verified_with_limit`: only
  secondary (or only low-confidence) backing; `unsupported`: a question with no evidence.
"""

from __future__ import annotations

from harness.contract.cards import HIGH, LOW, MEDIUM, Confidence
from harness.contract.claims import CONFLICTED, UNSUPPORTED, VERIFIED, VERIFIED_WITH_LIMIT, ClaimStatus
from harness.contract.layout import CARDS, CLAIMS, PLAN, source_record_path
from harness.contract.quotes import normalize_ws
from harness.contract.statuses import COMPLETED, RESEARCH
from harness.engines.offline.ranking import Ask, entities
from harness.evidence.lexical import content_words, jaccard, negated, number_clauses, numbers
from harness.runtime.context import AgentContext
from harness.runtime.interface import AgentResult, Brief

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


def _same_topic(a: dict, b: dict) -> bool:
    """About the same named things, and whole quotes overlap, or the clauses that carry their numbers do ("added
    in X 3.0" / "first shipped with X 3.1"). Two films' release years are not a conflict."""
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


def _source_facts(ctx: AgentContext, cards: list[dict]) -> tuple[dict[str, str], dict[str, str]]:
    """Each cited source's kind (primary or secondary) and title, read once per source: what a card ranks by."""
    kinds: dict[str, str] = {}
    titles: dict[str, str] = {}
    for card in cards:
        sid = card["source_id"]
        if sid not in kinds:
            record = ctx.read_json(source_record_path(sid))
            kinds[sid], titles[sid] = record["kind"], record.get("title") or ""
    return kinds, titles


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


class OfflineAnalyst:
    def __init__(self, spec=None):
        self.spec = spec

    def run(self, brief: Brief, ctx: AgentContext) -> AgentResult:
        plan = ctx.read_json(PLAN)
        cards = [ctx.read_json(p) for p in ctx.list(CARDS)]
        kinds, titles = _source_facts(ctx, cards)
        claims = []
        for q in plan["questions"]:
            if q["kind"] != RESEARCH:
                continue
            claims += self._question_claims(q, [c for c in cards if c["question_id"] == q["id"]], kinds, titles)
        for n, claim in enumerate(claims, start=1):
            claim["claim_id"] = f"C{n}"
        ordered = [{k: c[k] for k in CLAIM_KEYS} for c in claims]
        ctx.write(CLAIMS, {"claims": ordered})
        counts: dict[str, int] = {}
        for c in ordered:
            counts[c["status"]] = counts.get(c["status"], 0) + 1
        return AgentResult(COMPLETED, ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))

    def _question_claims(self, q: dict, qcards: list[dict], kinds: dict[str, str], titles: dict[str, str]) -> list:
        """One question's claims, best first: its cards ranked against it, near-duplicates clustered, and two
        clusters that disagree on the same topic made one conflicted claim; unsupported when it has no card."""
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
            rival = _rival(clusters, i, used)
            if rival is not None:
                used.add(rival)
                question_claims.append(self._conflict(q, cluster, clusters[rival]))
            else:
                question_claims.append(self._claim(q, cluster, kinds))
        return question_claims

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
