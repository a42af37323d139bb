"""Every draft with the diff to the one before and its reviews' defects linked to its lines."""

from __future__ import annotations

from harness.surfaces.viewer.markup import Markup, el, join
from harness.surfaces.viewer.model import Defect, Diff, Draft, Review, RunView
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


def _draft_lines(draft: Draft, defects: dict[int, list[tuple[str, Defect]]]) -> Markup:
    n = draft.number
    rows = []
    for k, line in enumerate((draft.text or "").split("\n"), start=1):
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
                            el("a", d.code, href=f"#{anchor}", class_=f"defect-mark sev-{_cls(d.severity)}")
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


def _diff_block(diff: Diff) -> Markup:
    lines = []
    for line in diff.lines:
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
        el("summary", f"Changes from {diff.from_path} to {diff.to_path} (+{diff.added} −{diff.removed})"),
        el("pre", join(lines, "\n"), class_="diff"),
        class_="diff-block",
        open=True,
    )


def _defect_row(review: Review, d: Defect) -> Markup:
    dn, line = review.draft_number, d.line
    line_cell = el("a", f"line {line}", href=f"#v-d{dn}-L{line}") if dn and line is not None else str(line or "")
    ref_links = (
        [_claim_link(c) for c in d.claims]
        + [_card_link(c) for c in d.cards]
        + [_source_link(c) for c in d.sources]
        + [el("span", q) for q in d.questions]
    )
    return el(
        "tr",
        el("td", badge(d.severity, f"sev-{d.severity}")),
        el("td", el("code", d.code)),
        el("td", line_cell, el("div", d.excerpt, class_="sub") if d.excerpt else None),
        el("td", d.message),
        el("td", join(ref_links, " ")),
        el("td", d.route),
        el("td", d.origin),
        id=f"v-rv{review.number}-d{d.index}",
    )


def review_block(review: Review) -> Markup:
    dn = review.draft_number
    head = el(
        "div",
        el("strong", review.path),
        " on ",
        el("a", review.draft or "?", href=f"#v-draft-{dn}") if dn else "?",
        " ",
        badge(review.verdict or "?"),
        el("span", f" by {_plain(review.reviewed_by)}", class_="sub"),
        class_="review-head",
    )
    rows = [_defect_row(review, d) for d in review.defects]
    return el(
        "div",
        head,
        _table(["severity", "code", "where", "message", "refs", "route", "origin"], rows, cls="defects"),
        class_="review",
        id=f"v-review-{review.number}",
    )


def drafts_section(view: RunView) -> Markup:
    drafts, reviews = view.drafts, view.reviews
    if not drafts and not reviews:
        return _section("v-drafts", "Drafts & reviews", el("p", "No drafts yet.", class_="empty"))
    by_draft: dict[int | None, list[Review]] = {}
    for rv in reviews:
        by_draft.setdefault(rv.draft_number, []).append(rv)
    diffs = {d.to_path: d for d in view.diffs}
    blocks = []
    for idx, draft in enumerate(drafts):
        n = draft.number
        marks: dict[int, list[tuple[str, Defect]]] = {}
        for rv in by_draft.get(n, []):
            for d in rv.defects:
                if d.line is not None:
                    marks.setdefault(d.line, []).append((f"v-rv{rv.number}-d{d.index}", d))
        verdicts = [f"{rv.path.split('/')[-1].removesuffix('.json')}: {rv.verdict}" for rv in by_draft.get(n, [])]
        summary = el(
            "summary",
            el("strong", draft.path),
            " ",
            _short(draft.sha256),
            el("span", " — " + (", ".join(verdicts) if verdicts else "not reviewed"), class_="sub"),
        )
        body = [_diff_block(diffs[draft.path])] if draft.path in diffs else []
        body.append(_draft_lines(draft, marks))
        body += [review_block(rv) for rv in by_draft.get(n, [])]
        blocks.append(el("details", summary, body, class_="draft", id=f"v-draft-{n}", open=idx == len(drafts) - 1))
    orphans = [rv for key, rvs in by_draft.items() if key not in {d.number for d in drafts} for rv in rvs]
    blocks += [review_block(rv) for rv in orphans]
    hint = el(
        "p",
        "Each review's defects link to the draft lines they point at; each draft after the first shows what changed.",
        class_="hint",
    )
    return _section("v-drafts", "Drafts & reviews", hint, blocks)
