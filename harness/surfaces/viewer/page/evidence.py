"""Claims, evidence cards and sources, with the filters viewer.js wires up."""

from __future__ import annotations

from harness.contract.claims import CLAIM_STATUSES
from harness.surfaces.viewer.markup import Markup, el, join, render_inline
from harness.surfaces.viewer.model import Flag, RunView, SourceRecord
from harness.surfaces.viewer.page.common import (
    _card_link,
    _claim_link,
    _list,
    _plain,
    _section,
    _short,
    _source_link,
    _table,
    badge,
)

# ---- evidence: claims, cards, sources ----------------------------------------------------

# what a source without a readable record shows
_NO_RECORD = SourceRecord.read({})


def _filters(view: RunView) -> Markup:
    statuses = [el("option", "any status", value="")] + [
        el("option", s.replace("_", " "), value=s) for s in CLAIM_STATUSES
    ]
    statuses.append(el("option", "not used by a claim", value="unused"))
    questions = [el("option", "any question", value="")] + [el("option", q, value=q) for q in view.question_ids()]
    return el(
        "div",
        el("label", "Status ", el("select", statuses, id="v-f-status")),
        el("label", "Question ", el("select", questions, id="v-f-question")),
        el("span", "", id="v-f-count", class_="hint"),
        class_="filters",
        id="v-filters",
        hidden=True,
    )


def _claims_table(view: RunView) -> Markup:
    rows = []
    for c in view.claims:
        cid = str(c.claim_id)
        rows.append(
            el(
                "tr",
                el("td", _claim_link(cid)),
                el("td", badge(c.status)),
                el("td", c.question_id),
                el("td", render_inline(c.statement or "")),
                el("td", join([_card_link(x) for x in c.supporting_cards], " ")),
                el("td", join([_card_link(x) for x in c.contradicting_cards], " ")),
                el("td", _list(c.limitations)),
                id=f"v-claim-{cid}",
                data_status=c.status,
                data_question=c.question_id,
                class_="filterable",
            )
        )
    return _table(
        ["claim", "status", "question", "statement", "supporting cards", "contradicting cards", "limitations"],
        rows,
        cls="claims",
    )


def _cards_table(view: RunView) -> Markup:
    users = view.claims_by_card()
    rows = []
    for card in view.cards:
        claims = users.get(card.id, [])
        statuses = " ".join(sorted({str(c.status) for c in claims})) or "unused"
        rows.append(
            el(
                "tr",
                el("td", _card_link(card.id)),
                el("td", card.question_id),
                el("td", _source_link(str(card.source_id))),
                el("td", badge(card.confidence, f"conf-{card.confidence}") if card.confidence else None),
                el(
                    "td",
                    el("q", card.quote),
                    el("div", render_inline(card.evidence_summary or ""), class_="sub"),
                ),
                el("td", _list(card.limitations)),
                el("td", join([_claim_link(str(c.claim_id)) for c in claims], " ")),
                id=f"v-card-{card.id}",
                data_status=statuses,
                data_question=card.question_id,
                class_="filterable",
            )
        )
    return _table(
        ["card", "question", "source", "confidence", "quote and summary", "limitations", "claims"], rows, cls="cards"
    )


def _flag_line(flag: Flag) -> str:
    """One flagged sentence as the source view lists it: reason, offsets, the sentence (marked by its list)."""
    where = f" at {flag.offset}–{flag.end}" if flag.end is not None else f" at {flag.offset}"
    return f"{flag.reason or flag.code}{where}: “{flag.excerpt}”"


def _sources_table(view: RunView) -> Markup:
    users = view.claims_by_card()
    questions: dict[str | None, set[str]] = {}  # by the cards' source id, as they name it
    statuses: dict[str | None, set[str]] = {}
    for card in view.cards:
        questions.setdefault(card.source_id, set()).add(str(card.question_id))
        statuses.setdefault(card.source_id, set()).update(str(c.status) for c in users.get(card.id, []))
    rows = []
    for source in view.sources:
        sid, rec = source.id, source.record or _NO_RECORD
        qs = set(questions.get(sid, set()))
        if rec.origin_question_id:
            qs.add(rec.origin_question_id)
        flag_cell = (
            el("div", badge("⚠ flagged", "flagged"), _list([_flag_line(f) for f in rec.flags], "flags"))
            if rec.flagged
            else None
        )
        locator = rec.url or ":".join(x for x in (rec.corpus, rec.path) if x)
        rows.append(
            el(
                "tr",
                el("td", _source_link(sid)),
                el("td", badge(rec.kind or "no record")),
                el("td", rec.title, el("div", el("code", locator), class_="sub")),
                el("td", flag_cell),
                el(
                    "td",
                    _plain({"tool": rec.origin_tool, "question": rec.origin_question_id, "query": rec.origin_query}),
                ),
                el("td", "" if rec.size is None else str(rec.size), class_="num"),
                el("td", _short(rec.sha256)),
                id=f"v-source-{sid}",
                data_status=" ".join(sorted(statuses.get(sid, set()))) or "unused",
                data_question=" ".join(sorted(qs)),
                class_="filterable" + (" flagged" if rec.flagged else ""),
            )
        )
    return _table(["source", "kind", "title and location", "flags", "found by", "chars", "sha256"], rows, cls="sources")


def evidence_section(view: RunView) -> Markup:
    f = view.facts  # the counts `research inspect` shows
    n_claims, n_cards, n_sources = f.claims_total, f.cards, f.sources.total
    return _section(
        "v-evidence",
        "Evidence",
        _filters(view),
        el("h3", f"Claims ({n_claims})"),
        _claims_table(view),
        el("h3", f"Evidence cards ({n_cards})"),
        _cards_table(view),
        el("h3", f"Sources ({n_sources})"),
        _sources_table(view),
    )
