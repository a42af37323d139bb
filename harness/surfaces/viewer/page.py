"""The viewer page: one self-contained HTML file built from `collect()`'s data.

The page is readable without JavaScript: every section is rendered here, with every
piece of text escaped (see `markup`). The same data is embedded as JSON in a
``<script type="application/json">`` block (with <, > and & escaped, so no text can
close it) for `viewer.js`, which adds the claim/status/question filters and the
evidence panel that opens a citation's claim, cards and highlighted source quote.
A Content-Security-Policy allows only the page's own script and style (by hash).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

from harness.contract.claims import CLAIM_STATUSES
from harness.contract.layout import card_path, snapshot_path
from harness.contract.statuses import BUDGET_DIMENSIONS, DELIVERABLE
from harness.surfaces.summary import budget_amount, cost_text, dollars
from harness.surfaces.viewer.collect import claim_list, claims_by_card, draft_number_of, question_ids
from harness.surfaces.viewer.markdown import render_inline, render_markdown
from harness.surfaces.viewer.markup import Markup, el, join

ASSETS = Path(__file__).parent


# ---- small helpers ---------------------------------------------------------------------


def _asset(name: str) -> str:
    return (ASSETS / name).read_text(encoding="utf-8")


def _csp_hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def embed_json(data: Any) -> str:
    """JSON safe inside a <script> element: no '<', '>' or '&' survive, so '</script>' cannot occur."""
    text = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def _cls(value: Any) -> str:
    return re.sub(r"[^a-z0-9_-]", "", str(value).lower()) or "none"


def badge(text: Any, kind: Any = None) -> Markup:
    return el("span", str(text).replace("_", " "), class_=f"badge b-{_cls(kind if kind is not None else text)}")


def _short(sha: Any) -> Markup:
    return el("code", str(sha)[:12] + "…", title=sha) if isinstance(sha, str) and sha else Markup("")


def _ts(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def _seconds(value: float | None) -> str:
    if value is None:
        return ""
    return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.1f} s" if value < 120 else f"{value / 60:.1f} min"


_SHA = re.compile(r"\b([0-9a-f]{12})[0-9a-f]{52}\b")


def _plain(value: Any) -> str:
    """A short text for any JSON value (trace details, refs); sha256 digests are shortened."""
    if value is None:
        return ""
    if isinstance(value, dict):
        return " · ".join(f"{k}: {_plain(v)}" for k, v in value.items() if v not in (None, "", [], {}))
    if isinstance(value, list):
        return ", ".join(_plain(v) for v in value)
    return _SHA.sub(r"\1…", str(value))


def _list(items: Iterable[Any], cls: str | None = None) -> Markup:
    items = [i for i in items if i not in (None, "")]
    return el("ul", [el("li", i) for i in items], class_=cls) if items else Markup("")


def _table(headers: list[str], rows: list[Markup], cls: str = "compact", id_: str | None = None) -> Markup:
    if not rows:
        return el("p", "none", class_="empty")
    return el(
        "div",
        el("table", el("thead", el("tr", [el("th", h) for h in headers])), el("tbody", rows), class_=cls, id=id_),
        class_="table-wrap",
    )


def _card_link(card_id: str, label: str | None = None) -> Markup:
    return el("a", label or card_id, href=card_path(card_id), class_="card-link")


def _source_link(source_id: str) -> Markup:
    return el("a", source_id, href=snapshot_path(source_id), class_="source-link")


def _claim_link(claim_id: str) -> Markup:
    return el("a", claim_id, href=f"#v-claim-{claim_id}", class_="claim-link")


def _section(id_: str, title: str, *body: Any, extra: Any = None) -> Markup:
    return el("section", el("h2", title, extra), *body, id=id_)


# ---- header -----------------------------------------------------------------------------


def _tile(label: str, value: Any, *notes: Any) -> Markup:
    return el(
        "div",
        el("div", label, class_="tile-label"),
        el("div", value, class_="tile-value"),
        [el("div", n, class_="tile-note") for n in notes if n],
        class_="tile",
    )


def _run_link(run: dict[str, Any]) -> Markup:
    """A sibling run's viewer (runs live side by side in one runs folder), with its question."""
    return join([el("a", el("code", run["run_id"]), href=f"../{run['run_id']}/index.html"), " ", run["question"] or ""])


def _lineage(lineage: dict[str, Any]) -> Markup | None:
    rows = []
    if lineage.get("parent"):
        rows.append(el("div", "Follows up: ", _run_link(lineage["parent"]), class_="lineage-parent"))
    if lineage.get("children"):
        rows.append(
            el(
                "div",
                "Follow-ups: ",
                join([_run_link(c) for c in lineage["children"]], " · "),
                class_="lineage-children",
            )
        )
    return el("div", rows, class_="lineage") if rows else None


def header(data: dict[str, Any]) -> Markup:
    s = data["summary"]
    plan, src, claims = s["plan"], s["sources"], s["claims"]
    claim_note = " · ".join(f"{k.replace('_', ' ')} {v}" for k, v in claims.items() if k != "total" and v)
    reviews = [f"{r['path'].split('/')[-1].removesuffix('.json')}: {r['verdict']}" for r in s["reviews"]]
    spent, limits = s["budget"]["spent"], s["budget"]["limits"]
    budget = [
        f"{k.replace('_', ' ')} {budget_amount(k, spent.get(k, 0))} / {budget_amount(k, limits.get(k))}"
        for k in BUDGET_DIMENSIONS
        if k in spent or k in limits
    ]
    cost = s.get("cost")
    engines = sorted({e for e in ((data["run"].get("engines") or {}).values()) if e})
    tiles = [
        _tile(
            "Plan",
            f"rev {plan['revision']}" if plan["revision"] else "none",
            "approved" if plan["approved"] else "not approved",
            f"{len(plan['questions'])} questions",
        ),
        _tile(
            "Sources",
            src["total"],
            f"{src['primary']} primary · {src['secondary']} secondary",
            f"{src['flagged']} flagged ({src.get('flagged_sentences', 0)} sentences) · {src['duplicates']} duplicate hits",
        ),
        _tile("Cards", s["cards"]),
        _tile("Claims", claims["total"], claim_note),
        _tile("Drafts", len(s["drafts"]), " · ".join(reviews)),
        _tile("Budget", budget[0] if budget else "—", *budget[1:]),
        *([_tile("Cost", dollars(cost["usd"]), cost_text(cost).removeprefix("cost: "))] if cost else []),
        _tile(
            "Final report",
            "yes" if s["final_report"] else "not yet",
            ("engine: " + ", ".join(engines)) if engines else None,
        ),
    ]
    nav = el(
        "nav",
        [
            el("a", label, href=f"#v-{key}")
            for key, label in (
                ("report", "Report"),
                ("evidence", "Evidence"),
                ("drafts", "Drafts & reviews"),
                ("plan", "Plan"),
                ("timeline", "Timeline"),
                ("metrics", "Metrics"),
                ("files", "Files"),
            )
        ],
    )
    status = s["status"] or "unknown"
    return el(
        "header",
        el(
            "div",
            el("span", "research run", class_="brand"),
            el("code", s["run_id"] or "?"),
            badge(status),
            el("span", s["status_reason"], class_="reason") if s["status_reason"] else None,
            el("a", "← back to the app", href=data["app_link"], id="v-app") if data.get("app_link") else None,
            class_="title-row",
        ),
        el("h1", s["question"] or ""),
        _lineage(data.get("lineage") or {}),
        el("div", tiles, class_="tiles"),
        nav,
        class_="top",
    )


# ---- report ------------------------------------------------------------------------------


def report_section(data: dict[str, Any]) -> Markup:
    text = data.get("final_report")
    if not isinstance(text, str):
        status = data["summary"]["status"]
        return _section(
            "v-report",
            "Final report",
            el("p", f"No final report (run status: {status}). The drafts are under Drafts & reviews.", class_="empty"),
        )
    hint = el(
        "p",
        "Click a citation to open its claim, the evidence cards and the quote highlighted in its source.",
        class_="hint",
    )
    return _section(
        "v-report", "Final report", hint, el("article", render_markdown(text, id_prefix="r-"), class_="report markdown")
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


# ---- drafts, diffs and reviews -------------------------------------------------------------


def _draft_lines(draft: dict[str, Any], defects: dict[int, list[tuple[str, dict[str, Any]]]]) -> Markup:
    n = draft["number"]
    rows = []
    for k, line in enumerate((draft["text"] or "").split("\n"), start=1):
        marks = defects.get(k, [])
        rows.append(
            el(
                "tr",
                el("td", el("a", str(k), href=f"#v-d{n}-L{k}"), class_="ln"),
                el("td", line, class_="src"),
                el(
                    "td",
                    join(
                        [
                            el(
                                "a",
                                d.get("code"),
                                href=f"#{anchor}",
                                class_=f"defect-mark sev-{_cls(d.get('severity'))}",
                            )
                            for anchor, d in marks
                        ],
                        " ",
                    ),
                ),
                id=f"v-d{n}-L{k}",
                class_="has-defect" if marks else None,
            )
        )
    return el("div", el("table", el("tbody", rows), class_="lines"), class_="table-wrap")


def _diff_block(diff: dict[str, Any]) -> Markup:
    lines = []
    for line in diff["lines"]:
        kind = (
            "file"
            if line.startswith(("+++", "---"))
            else "hunk"
            if line.startswith("@@")
            else "add"
            if line.startswith("+")
            else "del"
            if line.startswith("-")
            else "ctx"
        )
        lines.append(el("span", line, class_=f"dl {kind}"))
    return el(
        "details",
        el("summary", f"Changes from {diff['from']} to {diff['to']} (+{diff['added']} −{diff['removed']})"),
        el("pre", join(lines, "\n"), class_="diff"),
        class_="diff-block",
        open=True,
    )


def _review(entry: dict[str, Any]) -> dict[str, Any]:
    return entry["review"] if isinstance(entry["review"], dict) else {}


def _review_block(review_entry: dict[str, Any]) -> Markup:
    r = _review(review_entry)
    rn = review_entry["number"]
    dn = draft_number_of(r.get("draft"))
    by = r.get("reviewed_by") or {}
    rows = []
    for i, d in enumerate(r.get("defects") or []):
        if not isinstance(d, dict):
            continue
        loc = d.get("location") or {}
        line = loc.get("line")
        line_cell = (
            el("a", f"line {line}", href=f"#v-d{dn}-L{line}") if dn and isinstance(line, int) else str(line or "")
        )
        refs = d.get("refs") or {}
        ref_links = (
            [_claim_link(c) for c in refs.get("claims") or []]
            + [_card_link(c) for c in refs.get("cards") or []]
            + [_source_link(c) for c in refs.get("sources") or []]
            + [el("span", q) for q in refs.get("questions") or []]
        )
        rows.append(
            el(
                "tr",
                el("td", badge(d.get("severity"), f"sev-{d.get('severity')}")),
                el("td", el("code", d.get("code"))),
                el("td", line_cell, el("div", loc.get("excerpt"), class_="sub") if loc.get("excerpt") else None),
                el("td", d.get("message")),
                el("td", join(ref_links, " ")),
                el("td", d.get("route")),
                el("td", d.get("origin")),
                id=f"v-rv{rn}-d{i}",
            )
        )
    head = el(
        "div",
        el("strong", review_entry["path"]),
        " on ",
        el("a", r.get("draft") or "?", href=f"#v-draft-{dn}") if dn else "?",
        " ",
        badge(r.get("verdict") or "?"),
        el("span", f" by {_plain(by)}", class_="sub"),
        class_="review-head",
    )
    return el(
        "div",
        head,
        _table(["severity", "code", "where", "message", "refs", "route", "origin"], rows, cls="defects"),
        class_="review",
        id=f"v-review-{rn}",
    )


def drafts_section(data: dict[str, Any]) -> Markup:
    drafts, reviews = data["drafts"], data["reviews"]
    if not drafts and not reviews:
        return _section("v-drafts", "Drafts & reviews", el("p", "No drafts yet.", class_="empty"))
    by_draft: dict[int | None, list[dict[str, Any]]] = {}
    for rv in reviews:
        by_draft.setdefault(draft_number_of(_review(rv).get("draft")), []).append(rv)
    diffs = {d["to"]: d for d in data["diffs"]}
    blocks = []
    for idx, draft in enumerate(drafts):
        n = draft["number"]
        marks: dict[int, list[tuple[str, dict[str, Any]]]] = {}
        for rv in by_draft.get(n, []):
            for i, d in enumerate(_review(rv).get("defects") or []):
                line = (d.get("location") or {}).get("line") if isinstance(d, dict) else None
                if isinstance(line, int):
                    marks.setdefault(line, []).append((f"v-rv{rv['number']}-d{i}", d))
        verdicts = [
            f"{rv['path'].split('/')[-1].removesuffix('.json')}: {_review(rv).get('verdict')}"
            for rv in by_draft.get(n, [])
        ]
        summary = el(
            "summary",
            el("strong", draft["path"]),
            " ",
            _short(draft["sha256"]),
            el("span", " — " + (", ".join(verdicts) if verdicts else "not reviewed"), class_="sub"),
        )
        body = [_diff_block(diffs[draft["path"]])] if draft["path"] in diffs else []
        body.append(_draft_lines(draft, marks))
        body += [_review_block(rv) for rv in by_draft.get(n, [])]
        blocks.append(el("details", summary, body, class_="draft", id=f"v-draft-{n}", open=idx == len(drafts) - 1))
    orphans = [rv for key, rvs in by_draft.items() if key not in {d["number"] for d in drafts} for rv in rvs]
    blocks += [_review_block(rv) for rv in orphans]
    hint = el(
        "p",
        "Each review's defects link to the draft lines they point at; each draft after the first shows what changed.",
        class_="hint",
    )
    return _section("v-drafts", "Drafts & reviews", hint, blocks)


# ---- plan ------------------------------------------------------------------------------------


def _approval(approval: Any) -> Markup:
    if not isinstance(approval, dict):
        return el("p", badge("not decided", "pending"), " No approval recorded for this revision.", class_="approval")
    extra = [f"by {approval.get('by')}", f"at {approval.get('at')}"]
    if approval.get("edited"):
        extra.append("edited before approval")
    return el(
        "div",
        badge(approval.get("decision") or "?"),
        " ",
        " · ".join(extra),
        " · plan sha256 ",
        _short(approval.get("plan_sha256")),
        el("blockquote", approval.get("feedback")) if approval.get("feedback") else None,
        class_="approval",
    )


def plan_section(data: dict[str, Any]) -> Markup:
    plan = data.get("plan")
    if not isinstance(plan, dict):
        return _section("v-plan", "Plan", el("p", "No plan yet.", class_="empty"))
    branches = {q["id"]: q.get("branch") for q in data["summary"]["plan"]["questions"]}
    scope = plan.get("scope") or {}
    facts = el(
        "dl",
        el("dt", "Deliverable"),
        el("dd", plan.get("deliverable")),
        el("dt", "In scope"),
        el("dd", ", ".join(scope.get("in_scope") or []) or "—"),
        el("dt", "Out of scope"),
        el("dd", ", ".join(scope.get("out_of_scope") or []) or "—"),
        el("dt", "Criteria"),
        el("dd", ", ".join(plan.get("criteria") or []) or "—"),
        el("dt", "Stop conditions"),
        el("dd", _list(plan.get("stop_conditions") or [])),
        class_="facts",
    )
    rows = []
    for q in plan.get("questions") or []:
        if not isinstance(q, dict) or q.get("kind") == DELIVERABLE:  # shown above as the Deliverable, not research
            continue
        branch = branches.get(q.get("id"))
        rows.append(
            el(
                "tr",
                el("td", el("strong", q.get("id")), " ", badge(q["tag"], "tag") if q.get("tag") else None),
                el("td", q.get("kind")),
                el("td", "critical" if q.get("critical") else "—"),
                el("td", badge(branch) if branch else "—"),
                el("td", q.get("text")),
                el("td", ", ".join(q.get("criteria") or [])),
                el("td", _list(q.get("search_terms") or [])),
                id=f"v-q-{q.get('id')}",
            )
        )
    refinement = plan.get("refinement")
    ref_block = None
    if isinstance(refinement, dict):
        changes = [
            el("tr", el("td", c.get("question_id")), el("td", badge(c.get("tag"), "tag")), el("td", c.get("note")))
            for c in refinement.get("changes") or []
            if isinstance(c, dict)
        ]
        ref_block = el(
            "div",
            el("h3", "Refinement"),
            el("blockquote", refinement.get("feedback")),
            _table(["question", "tag", "what changed"], changes),
        )
    decisions = [
        el(
            "tr",
            el("td", d.get("gate")),
            el("td", badge(d.get("decision") or "?")),
            el("td", d.get("by")),
            el("td", d.get("at")),
            el("td", d.get("feedback") or ""),
            el("td", _short(d.get("sha256"))),
        )
        for d in data["run"].get("decisions") or []
        if isinstance(d, dict)
    ]
    return _section(
        "v-plan",
        "Plan",
        _approval(plan.get("approval")),
        facts,
        el("h3", "Questions"),
        _table(["id", "kind", "critical", "branch", "question", "criteria", "search terms"], rows, cls="questions"),
        ref_block,
        el("h3", "Decisions"),
        _table(["gate", "decision", "by", "at", "feedback", "sha256"], decisions),
        extra=el("small", f" revision {plan.get('revision')}"),
    )


# ---- timeline ------------------------------------------------------------------------------


def _bar(start: float, end: float, span: float) -> Markup:
    x = 1000 * start / span
    width = max(1000 * (end - start) / span, 4)
    return Markup(
        f'<svg class="bar" viewBox="0 0 1000 10" preserveAspectRatio="none" aria-hidden="true">'
        f'<rect x="{x:.1f}" y="0" width="{width:.1f}" height="10"></rect></svg>'
    )


def timeline_section(data: dict[str, Any]) -> Markup:
    events = data["timeline"]
    times = [t for e in events for t in (_ts(e.get("ts")), _ts(e.get("started_at")), _ts(e.get("ended_at"))) if t]
    t0 = min(times) if times else None
    span = max(((max(times) - min(times)).total_seconds() if times else 0), 0.001)
    rows = []
    writes = 0
    for e in events:
        kind = str(e.get("event"))
        writes += kind == "write"
        ts, started, ended = _ts(e.get("ts")), _ts(e.get("started_at")), _ts(e.get("ended_at"))
        at = started or ts
        rel = f"+{(at - t0).total_seconds():.2f} s" if at and t0 else ""
        duration = (ended - started).total_seconds() if started and ended else None
        bar = (
            _bar((at - t0).total_seconds(), (ended - t0).total_seconds() if ended else (at - t0).total_seconds(), span)
            if at and t0
            else None
        )
        engine = " / ".join(str(x) for x in (e.get("engine"), e.get("model")) if x)
        if kind == "delegation":
            detail: Markup | str = el(
                "div",
                _plain(
                    (e.get("detail") or {}).get("summary") if isinstance(e.get("detail"), dict) else e.get("detail")
                ),
                el(
                    "div",
                    "wrote: " + ", ".join(o.get("path", "") for o in e.get("outputs") or [] if isinstance(o, dict)),
                    class_="sub",
                )
                if e.get("outputs")
                else None,
                title=e.get("brief"),
            )
        elif kind == "write" or kind == "delete":
            detail = el("code", e.get("path"))
        elif kind == "decision":
            detail = el("div", el("strong", e.get("decision")), " ", _plain(e.get("detail")))
        elif kind == "status":
            detail = el("div", badge(e.get("status") or "?"), " ", _plain(e.get("detail")))
        else:  # run_created, error, resume, budget
            detail = " · ".join(x for x in (_plain(e.get("detail")), _plain(e.get("budget"))) if x)
        errors = e.get("errors") or []
        rows.append(
            el(
                "tr",
                el("td", str(e.get("seq", "")), class_="num"),
                el("td", rel, class_="num"),
                el("td", kind),
                el(
                    "td",
                    e.get("agent"),
                    el("span", f" {e['question_id']}", class_="sub") if e.get("question_id") else None,
                ),
                el("td", engine),
                el("td", _seconds(duration), class_="num"),
                el("td", bar, class_="bar-cell"),
                el("td", str(e.get("tokens", "")), class_="num"),
                el("td", str(e.get("llm_calls", "")), class_="num"),
                el("td", badge(e["stop_reason"]) if e.get("stop_reason") else None),
                el("td", str(e.get("retries", "")) if e.get("retries") else "", class_="num"),
                el("td", _list(errors, "errors") if errors else None),
                el("td", detail),
                class_=f"ev ev-{_cls(kind)}" + (" has-errors" if errors else ""),
            )
        )
    toggle = [
        el("input", type="checkbox", id="v-show-writes", class_="toggle"),
        el("label", f" show file writes ({writes})", for_="v-show-writes"),
    ]
    table = _table(
        [
            "#",
            "at",
            "event",
            "agent",
            "engine / model",
            "duration",
            "",
            "tokens",
            "calls",
            "stop",
            "retries",
            "errors",
            "detail",
        ],
        rows,
        cls="timeline",
    )
    return _section("v-timeline", "Timeline", el("div", toggle, table, class_="timeline-wrap"))


# ---- metrics and files --------------------------------------------------------------------------


def metrics_section(data: dict[str, Any]) -> Markup:
    s = data["summary"]
    spent, limits = s["budget"]["spent"], s["budget"]["limits"]
    budget_rows = [
        el(
            "tr",
            el("td", k.replace("_", " ")),
            el("td", budget_amount(k, spent.get(k, 0)), class_="num"),
            el("td", budget_amount(k, limits.get(k)), class_="num"),
        )
        for k in BUDGET_DIMENSIONS
        if k in spent or k in limits
    ]
    parts = [el("h3", "Budget"), _table(["dimension", "spent", "limit"], budget_rows)]
    metrics = data.get("metrics")
    if isinstance(metrics, dict):
        ratio_rows = []
        for name, r in (metrics.get("ratios") or {}).items():
            if isinstance(r, dict):
                value = r.get("value")
                ratio_rows.append(
                    el(
                        "tr",
                        el("td", name.replace("_", " ")),
                        el("td", f"{value:.0%}" if isinstance(value, (int, float)) else "n/a", class_="num"),
                        el("td", f"{r.get('numerator')} / {r.get('denominator')}", class_="num"),
                    )
                )
        role_rows = [
            el(
                "tr",
                el("td", role),
                *[
                    el("td", str(v.get(k, "")), class_="num")
                    for k in ("delegations", "llm_calls", "tokens", "cached_tokens", "wall_seconds")
                ],
                el("td", dollars(v["usd"]) if "usd" in v else "", class_="num"),
            )
            for role, v in (metrics.get("roles") or {}).items()
            if isinstance(v, dict)
        ]
        answer_rows = [
            el(
                "tr",
                el("td", a.get("question_id")),
                el("td", a.get("question")),
                el("td", a.get("verdict"), class_=f"answer-{a.get('verdict')}"),
                el("td", a.get("reason")),
                el("td", ((a.get("reviewer") or {}).get("verdict")) or "—"),
            )
            for a in (s.get("answers") or {}).get("questions") or []
        ]
        if answer_rows:
            parts += [
                el("h3", "Answers (the answer check, evidence/answers.py)"),
                _table(["question", "text", "verdict", "reason", "model reviewer"], answer_rows),
            ]
        parts += [
            el("h3", "Quality (metrics.json)"),
            _table(["ratio", "value", "of"], ratio_rows),
            el("h3", "Cost per role"),
            *([el("p", cost_text(s["cost"]))] if s.get("cost") else []),
            _table(["role", "delegations", "model calls", "tokens", "cached tokens", "seconds", "dollars"], role_rows),
        ]
    return _section("v-metrics", "Metrics", parts)


def files_section(data: dict[str, Any]) -> Markup:
    rows = [
        el(
            "tr",
            el("td", el("a", a["path"], href=a["path"])),
            el("td", a.get("writer")),
            el("td", str(a.get("size", "")), class_="num"),
            el("td", _short(a.get("sha256"))),
            el("td", a.get("written_at")),
        )
        for a in data["artifacts"]
    ]
    hint = el(
        "p",
        "The artifact index of run.json: every file written through the workspace API, with its sha256. "
        "`research validate` re-checks them.",
        class_="hint",
    )
    return _section("v-files", "Files", hint, _table(["path", "writer", "bytes", "sha256", "written at"], rows))


# ---- the page ----------------------------------------------------------------------------------


def render_page(data: dict[str, Any]) -> str:
    css, js = _asset("viewer.css"), _asset("viewer.js")
    csp = (
        f"default-src 'none'; script-src {_csp_hash(js)}; style-src {_csp_hash(css)}; img-src data:; "
        "base-uri 'none'; form-action 'none'"
    )
    s = data["summary"]
    head = join(
        [
            Markup('<meta charset="utf-8">'),
            el("meta", name="viewport", content="width=device-width, initial-scale=1"),
            Markup(f'<meta http-equiv="Content-Security-Policy" content="{csp}">'),  # built from hashes only
            el("title", f"research run {s['run_id'] or ''} — {s['question'] or ''}"),
            Markup(f"<style>{css}</style>"),
        ],
        "\n",
    )
    panel = el(
        "aside",
        el(
            "div",
            el("span", "Evidence", class_="panel-title"),
            el("button", "×", type="button", id="v-panel-close", title="Close (Esc)", aria_label="Close"),
            class_="panel-head",
        ),
        el("div", "", id="v-panel-body"),
        id="v-panel",
        class_="panel",
        hidden=True,
    )
    body = join(
        [
            header(data),
            el(
                "main",
                report_section(data),
                evidence_section(data),
                drafts_section(data),
                plan_section(data),
                timeline_section(data),
                metrics_section(data),
                files_section(data),
            ),
            panel,
            el(
                "noscript",
                el(
                    "p",
                    "JavaScript is off: citation links open the card files; the filters and the evidence panel need JavaScript.",
                    class_="hint",
                ),
            ),
            Markup(f'<script type="application/json" id="v-data">{embed_json(data)}</script>'),
            Markup(f"<script>{js}</script>"),
        ],
        "\n",
    )
    return f'<!DOCTYPE html>\n<html lang="en">\n<head>\n{head}\n</head>\n<body>\n{body}\n</body>\n</html>\n'
