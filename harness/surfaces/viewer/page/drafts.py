"""Every draft with the diff to the one before and its reviews' defects linked to its lines."""

from __future__ import annotations

from typing import Any

from harness.surfaces.viewer.collect import draft_number_of
from harness.surfaces.viewer.markup import Markup, el, join
from harness.surfaces.viewer.page.common import (
    _card_link,
    _claim_link,
    _cls,
    _plain,
    _section,
    _short,
    _source_link,
    _table,
    badge,
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
