"""Claims, evidence cards and sources, with the filters viewer.js wires up."""

from __future__ import annotations

from typing import Any

from harness.contract.claims import CLAIM_STATUSES
from harness.surfaces.viewer.collect import claim_list, claims_by_card, question_ids
from harness.surfaces.viewer.markup import Markup, el, join, render_inline
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


def _filters(data: dict[str, Any]) -> Markup:
    statuses = [el("option", "any status", value="")] + [
        el("option", s.replace("_", " "), value=s) for s in CLAIM_STATUSES
    ]
    statuses.append(el("option", "not used by a claim", value="unused"))
    questions = [el("option", "any question", value="")] + [el("option", q, value=q) for q in question_ids(data)]
    return el(
        "div",
        el("label", "Status ", el("select", statuses, id="v-f-status")),
        el("label", "Question ", el("select", questions, id="v-f-question")),
        el("span", "", id="v-f-count", class_="hint"),
        class_="filters",
        id="v-filters",
        hidden=True,
    )


def _claims_table(data: dict[str, Any]) -> Markup:
    rows = []
    for c in claim_list(data):
        cid = str(c.get("claim_id"))
        rows.append(
            el(
                "tr",
                el("td", _claim_link(cid)),
                el("td", badge(c.get("status"))),
                el("td", c.get("question_id")),
                el("td", render_inline(str(c.get("statement") or ""))),
                el("td", join([_card_link(x) for x in c.get("supporting_cards") or []], " ")),
                el("td", join([_card_link(x) for x in c.get("contradicting_cards") or []], " ")),
                el("td", _list(c.get("limitations") or [])),
                id=f"v-claim-{cid}",
                data_status=c.get("status"),
                data_question=c.get("question_id"),
                class_="filterable",
            )
        )
    return _table(
        ["claim", "status", "question", "statement", "supporting cards", "contradicting cards", "limitations"],
        rows,
        cls="claims",
    )


def _cards_table(data: dict[str, Any]) -> Markup:
    users = claims_by_card(data)
    rows = []
    for card_id, entry in data["cards"].items():
        card = entry["card"] if isinstance(entry["card"], dict) else {}
        claims = users.get(card_id, [])
        statuses = " ".join(sorted({str(c.get("status")) for c in claims})) or "unused"
        rows.append(
            el(
                "tr",
                el("td", _card_link(card_id)),
                el("td", card.get("question_id")),
                el("td", _source_link(str(card.get("source_id")))),
                el(
                    "td",
                    badge(card.get("confidence"), f"conf-{card.get('confidence')}") if card.get("confidence") else None,
                ),
                el(
                    "td",
                    el("q", card.get("quote", "")),
                    el("div", render_inline(str(card.get("evidence_summary") or "")), class_="sub"),
                ),
                el("td", _list(card.get("limitations") or [])),
                el("td", join([_claim_link(str(c.get("claim_id"))) for c in claims], " ")),
                id=f"v-card-{card_id}",
                data_status=statuses,
                data_question=card.get("question_id"),
                class_="filterable",
            )
        )
    return _table(
        ["card", "question", "source", "confidence", "quote and summary", "limitations", "claims"], rows, cls="cards"
    )


def _flag_line(flag: dict[str, Any]) -> str:
    """One flagged sentence as the source view lists it: reason, offsets, the sentence (marked by its list)."""
    where = f" at {flag.get('offset')}–{flag['end']}" if "end" in flag else f" at {flag.get('offset')}"
    return f"{flag.get('reason') or flag.get('code')}{where}: “{flag.get('excerpt')}”"


def _sources_table(data: dict[str, Any]) -> Markup:
    users = claims_by_card(data)
    questions: dict[str | None, set[str]] = {}  # by the cards' source id, as they name it
    statuses: dict[str | None, set[str]] = {}
    for card_id, entry in data["cards"].items():
        card = entry["card"] if isinstance(entry["card"], dict) else {}
        sid = card.get("source_id")
        questions.setdefault(sid, set()).add(str(card.get("question_id")))
        statuses.setdefault(sid, set()).update(str(c.get("status")) for c in users.get(card_id, []))
    rows = []
    for sid, entry in data["sources"].items():
        rec = entry["record"] if isinstance(entry["record"], dict) else {}
        origin = found if isinstance(found := rec.get("origin"), dict) else {}
        qs = set(questions.get(sid, set()))
        if origin.get("question_id"):
            qs.add(origin["question_id"])
        flags = rec.get("flags") or []
        flag_cell = (
            el(
                "div",
                badge("⚠ flagged", "flagged"),
                _list([_flag_line(f) for f in flags if isinstance(f, dict)], "flags"),
            )
            if flags
            else None
        )
        locator = rec.get("url") or ":".join(x for x in (rec.get("corpus"), rec.get("path")) if x)
        rows.append(
            el(
                "tr",
                el("td", _source_link(sid)),
                el("td", badge(rec.get("kind") or "no record")),
                el("td", rec.get("title"), el("div", el("code", locator), class_="sub")),
                el("td", flag_cell),
                el(
                    "td",
                    _plain(
                        {
                            "tool": origin.get("tool"),
                            "question": origin.get("question_id"),
                            "query": origin.get("query"),
                        }
                    ),
                ),
                el("td", str(rec.get("size", "")), class_="num"),
                el("td", _short(rec.get("sha256"))),
                id=f"v-source-{sid}",
                data_status=" ".join(sorted(statuses.get(sid, set()))) or "unused",
                data_question=" ".join(sorted(qs)),
                class_="filterable" + (" flagged" if flags else ""),
            )
        )
    return _table(["source", "kind", "title and location", "flags", "found by", "chars", "sha256"], rows, cls="sources")


def evidence_section(data: dict[str, Any]) -> Markup:
    s = data["summary"]  # the counts `research inspect` shows
    n_claims, n_cards, n_sources = s["claims"]["total"], s["cards"], s["sources"]["total"]
    return _section(
        "v-evidence",
        "Evidence",
        _filters(data),
        el("h3", f"Claims ({n_claims})"),
        _claims_table(data),
        el("h3", f"Evidence cards ({n_cards})"),
        _cards_table(data),
        el("h3", f"Sources ({n_sources})"),
        _sources_table(data),
    )
