"""Rendering the final report from an approved draft: the harness writes it, never a model.

Each citation ``[@C1]`` becomes links to the claim's evidence cards (relative paths
such as ``source-cards/<card_id>.json``, which work in any Markdown viewer opened on the
workspace folder); an Evidence section gives each cited claim with its cards' quotes and
their sources, and a Sources section lists the sources actually cited. A citation that
does not resolve, or that names a rejected or unsupported claim, stops rendering: it can
never reach the final report.

Whatever engine wrote the draft, the Limitations section states each research question the
answer check (`evidence/answers.py`) finds not or only partly answered, in plain words, and names
every source of the run in which instruction-like text was flagged (added to the draft's
Limitations section, or as one); a source title that repeats flagged text is never printed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from harness.contract.citations import card_link, format_citation, parse_citations, replace_citations
from harness.contract.claims import NOT_REPORTABLE, shown_cards, superseded_cards
from harness.contract.layout import card_path, snapshot_path, source_record_path
from harness.contract.quotes import normalize_ws
from harness.contract.works import DEFAULT_CITATION_STYLE
from harness.errors import HarnessError
from harness.evidence.answers import answer_records, gap_notes
from harness.evidence.bibliography import STYLE_NAMES, escape_markdown, render_bibliography, works_of
from harness.sources.injection import repeats_flagged
from harness.workspace.reader import RunReader

_LIMITATIONS = re.compile(r"^(#{1,6})\s*(?:\d+[.)]?\s*)?limitations\b", re.I | re.M)
_HEADING = re.compile(r"^(#{1,6})\s", re.M)
Href = Callable[[str], str]
RENDERED_FROM = re.compile(r"^\*Rendered by the harness from `([^`\n]+)` \(sha256 `([0-9a-f]{64})`\)\.", re.M)
WITHHELD_TITLE = "(title withheld: it repeats instruction-like text)"


class ReportError(HarnessError):
    """The draft cannot be rendered: a citation does not resolve or names an unusable claim."""


def _locator(source: dict[str, Any]) -> str:
    return source.get("url") or f"{source.get('corpus', '')}:{source.get('path', '')}".lstrip(":")


def _links(claim: dict[str, Any], href: Href | None) -> str:
    cid = claim["claim_id"]
    parts = (
        [card_link(cid, claim["supporting_cards"][0], href)]
        if claim["supporting_cards"]
        else [f"[{cid}](#{cid.lower()})"]
    )
    parts += [card_link(f"{cid}·{i}", c, href) for i, c in enumerate(claim["supporting_cards"][1:], start=2)]
    parts += [card_link(f"{cid} contra", c, href) for c in claim["contradicting_cards"]]
    return "".join(parts)


def anchor_for(rel: str) -> str:
    """In a standalone report (an export), the in-document anchor that stands for a workspace file.

    A card (``source-cards/<id>.json``) becomes its entry in the Evidence section (``card-<id>``), a
    source record or snapshot (``sources/<id>.json|.txt``) its entry in the Sources section (``source-<id>``).
    """
    folder, name = rel.rsplit("/", 1)
    return ("card-" if folder == "source-cards" else "source-") + name.rsplit(".", 1)[0]


def _standalone_href(rel: str) -> str:
    return "#" + anchor_for(rel)


def _anchor(rel: str, href: Href | None) -> str:
    return f'<a id="{anchor_for(rel)}"></a>' if href else ""


def rendered_from(report: str) -> tuple[str, str] | None:
    """(draft path, draft sha256) a final report says it renders, or None."""
    m = RENDERED_FROM.search(report)
    return (m.group(1), m.group(2)) if m else None


def safe_title(source: dict[str, Any]) -> str:
    """The title the report prints: never one that repeats the source's flagged text."""
    title = source.get("title", "")
    return WITHHELD_TITLE if repeats_flagged(title, None, source.get("flags") or []) else title


def flagged_note(sources: dict[str, dict], standalone: bool = False) -> str | None:
    """The Limitations bullet naming the sources in which instruction-like text was flagged, or None."""
    flagged = [(sid, src) for sid, src in sorted(sources.items()) if src.get("flags")]
    if not flagged:
        return None
    names = "; ".join(
        f"[{sid}]({_standalone_href(source_record_path(sid)) if standalone else source_record_path(sid)}) `{_locator(src)}` ({len(src['flags'])} sentence"
        f"{'s' if len(src['flags']) != 1 else ''})"
        for sid, src in flagged
    )
    return (
        f"- Instruction-like text was flagged in {len(flagged)} source{'s' if len(flagged) != 1 else ''}: "
        f"{names}. It was treated as data: never followed, quoted or repeated in this report."
    )


def with_limitations_note(body: str, note: str | None) -> str:
    """`body` with `note` at the end of its Limitations section (a new one at the end when it has none)."""
    if note is None:
        return body
    m = _LIMITATIONS.search(body)
    if m is None:
        return body.rstrip() + "\n\n## Limitations\n\n" + note + "\n"
    level = len(m.group(1))
    end = next((h.start() for h in _HEADING.finditer(body, m.end()) if len(h.group(1)) <= level), len(body))
    head, tail = body[:end].rstrip(), body[end:]
    return f"{head}\n\n{note}\n" + (f"\n{tail}" if tail else "")


def cited_source_ids(draft: str, claims: dict[str, dict], cards: dict[str, dict]) -> list[str]:
    """The sources a draft cites, in the order the report lists them: by first citation of their claims, each
    claim's supporting cards before its contradicting ones. (The Sources section, the bibliography and the
    reference exports all list these.)"""
    out: list[str] = []
    cited = list(dict.fromkeys(key for cit in parse_citations(draft) for key in cit.keys if key in claims))
    for cid in cited:
        for card_id in shown_cards(claims[cid]):
            sid = (cards.get(card_id) or {}).get("source_id")
            if sid is not None and sid not in out:
                out.append(sid)
    return out


def render_report(
    draft: str,
    draft_rel: str,
    draft_sha: str,
    claims: dict[str, dict],
    cards: dict[str, dict],
    sources: dict[str, dict],
    standalone: bool = False,
    answers: Sequence[dict[str, Any]] = (),
    citation_style: str = DEFAULT_CITATION_STYLE,
) -> str:
    """The final report for `draft`; raises ReportError if any citation cannot be resolved.

    `answers`: the answer check's records for this draft (`answers.answer_records`); each question left open is
    stated under Limitations (`answers.gap_notes`).

    `standalone` (for exports, which leave the run folder): every link to a card, source record or
    snapshot points inside the document instead (`anchor_for`), and each Evidence and Sources entry
    carries its anchor, so each citation still leads to its claim's evidence. When cited sources are papers (a
    `csl` item on their record), a Bibliography section ends the report: their references in `citation_style`.
    """
    href = _standalone_href if standalone else None
    cited = _resolved_citations(draft, draft_rel, claims, cards, sources)
    body = (
        replace_citations(draft, lambda keys: "(" + "; ".join(_links(claims[k], href) for k in keys) + ")").rstrip()
        + "\n"
    )
    body = with_limitations_note(body, gap_notes(list(answers)))
    body = with_limitations_note(body, flagged_note(sources, standalone))
    out = [
        body,
        "",
        "---",
        "",
        f"*Rendered by the harness from `{draft_rel}` (sha256 `{draft_sha}`). "  # what RENDERED_FROM reads
        "Each citation links to the evidence cards behind the claim; each card quotes its source verbatim.*",
        "",
        "## Evidence",
        "",
    ]
    used_sources = cited_source_ids(draft, claims, cards)
    for cid in cited:
        out += _evidence_entry(cid, claims[cid], cards, href)
    out += ["## Sources", ""]
    out += [_source_entry(sid, sources[sid], href) for sid in used_sources]
    references = render_bibliography(works_of(sources, used_sources), citation_style)
    if references:
        out += ["", "## Bibliography", "", f"*The cited papers, in the {STYLE_NAMES[citation_style]} style.*", ""]
        out += [f"- {escape_markdown(entry)}" for entry in references]
    return "\n".join(out).rstrip() + "\n"


def _resolved_citations(
    draft: str, draft_rel: str, claims: dict[str, dict], cards: dict[str, dict], sources: dict[str, dict]
) -> list[str]:
    """The claims the draft cites, in order of first citation, once each checked to resolve: the claim exists, is
    reportable, and each of its cards leads to a registered source; raises ReportError at the first that does not."""
    cited: list[str] = []
    for cit in parse_citations(draft):
        for key in cit.keys:
            claim = claims.get(key)
            if claim is None:
                raise ReportError(f"{draft_rel} line {cit.line}: {format_citation([key])} does not resolve to a claim")
            if claim["status"] in NOT_REPORTABLE:
                raise ReportError(
                    f"{draft_rel} line {cit.line}: {format_citation([key])} is {claim['status']} and cannot be reported"
                )
            for card_id in shown_cards(claim):
                if card_id not in cards or cards[card_id]["source_id"] not in sources:
                    raise ReportError(
                        f"{draft_rel} line {cit.line}: {format_citation([key])} rests on card {card_id}, which does not resolve to a source"
                    )
            if key not in cited:
                cited.append(key)
    return cited


def _evidence_entry(cid: str, claim: dict[str, Any], cards: dict[str, dict], href: Href | None) -> list[str]:
    """One cited claim in the Evidence section: its status and statement, its limitations, then each card's quote
    with where in its source it stands (the trail from a citation down to the source's text)."""
    lines = [
        f'<a id="{cid.lower()}"></a>**{cid}** ({claim["status"].replace("_", " ")}) — {normalize_ws(claim["statement"])}'
    ]
    if claim["limitations"]:
        lines.append(f"  *Limitations: {'; '.join(claim['limitations'])}*")
    sides = (("supports", claim["supporting_cards"]), ("contradicts", claim["contradicting_cards"]))
    periods = {e["card_id"]: e["period"] for e in claim.get("series") or []}
    for side, ids in (*sides, ("gives the superseded figure", superseded_cards(claim))):
        for card_id in ids:
            card = cards[card_id]
            sid = card["source_id"]
            snap = snapshot_path(sid)
            lines.append(
                f"- {_anchor(card_path(card_id), href)}{card_link(card_id, card_id, href)} {side}"
                f"{f' ({periods[card_id]})' if side.startswith('gives') else ''}: "
                f"“{normalize_ws(card['quote'])}” — "
                f"[{sid}]({href(snap) if href else snap}) at {card['span']['start']}–{card['span']['end']}"
            )
    lines.append("")
    return lines


def _source_entry(sid: str, src: dict[str, Any], href: Href | None) -> str:
    """One cited source in the Sources section: its record, kind, title, locator and hash, and its flag if any."""
    flag = " — ⚠ contains instruction-like text (flagged)" if src.get("flags") else ""
    record, snap = source_record_path(sid), snapshot_path(sid)
    record_link = f"[{sid}](#{anchor_for(record)})" if href else f"[{sid}]({record})"
    snapshot_link = "" if href else f"[snapshot]({snap}), "
    return (
        f"- {_anchor(record, href)}{record_link} {src['kind']}: {safe_title(src)} — `{_locator(src)}` "
        f"({snapshot_link}sha256 `{src['sha256'][:12]}…`){flag}"
    )


@dataclass(frozen=True)
class RunEvidence:
    """What a run's report is rendered from, read from its folder (the sign-off's preview, the exports): its claims,
    cards and sources, and the answer check's records for one draft."""

    claims: dict[str, dict]
    cards: dict[str, dict]
    sources: dict[str, dict]
    answers: list[dict[str, Any]]

    @classmethod
    def read(cls, reader: RunReader, draft_rel: str) -> RunEvidence:
        return cls(
            reader.claims() or {},
            {cid: c for cid in reader.card_ids() if (c := reader.card(cid)) is not None},
            {sid: s for sid in reader.source_ids() if (s := reader.source(sid)) is not None},
            answer_records(reader, draft_rel),
        )

    def render(self, draft: str, draft_rel: str, draft_sha: str, citation_style: str, standalone: bool = False) -> str:
        """`render_report` of `draft` over this evidence."""
        return render_report(
            draft,
            draft_rel,
            draft_sha,
            self.claims,
            self.cards,
            self.sources,
            standalone=standalone,
            answers=self.answers,
            citation_style=citation_style,
        )
