"""What the final gate shows: the report the sign-off will print, and each cited card's quote in its source.

A person signs off a draft, but reads a report: the page shows the passing draft rendered exactly as
the harness will write `final-report.md` once it is signed (`evidence.report.render_report` over the
same draft, claims, cards, sources, answer verdicts and citation style `nodes.finalize` uses), and for
each card a citation links to, the card's quote with the text around it in the source's snapshot, so a
citation can be checked against its quote before signing. Everything is read through `RunReader`
(nothing outside the run folder); the page sets all of it as text, never as HTML.
"""

from __future__ import annotations

from typing import Any

from harness.contract.citations import CARD_LINK
from harness.contract.layout import id_of
from harness.contract.works import run_citation_style
from harness.errors import HarnessError
from harness.evidence.report import RunEvidence, safe_title
from harness.workspace.reader import RunReader

CONTEXT = 240  # characters of the snapshot shown on each side of a quote


def _quote(reader: RunReader, card_id: str, card: dict[str, Any]) -> dict[str, Any]:
    """A card as the gate shows it: its quote, where it stands in its source, and the text around it."""
    sid = card.get("source_id")
    source = reader.source(sid) if isinstance(sid, str) else None
    snapshot = reader.snapshot(sid) if isinstance(sid, str) else None
    span = card.get("span") or {}
    start, end = span.get("start"), span.get("end")
    quote = card.get("quote") or ""
    out = {
        "card_id": card_id,
        "source_id": sid,
        "title": safe_title(source) if source else None,
        "quote": quote,
        "before": "",
        "after": "",
        # the harness checks this on every card write; a card that fails it here was changed since
        "verbatim": reader.quote_check(card) is None,
    }
    if out["verbatim"] and snapshot is not None and isinstance(start, int) and isinstance(end, int):
        out["quote"] = snapshot[start:end]
        out["before"] = snapshot[max(0, start - CONTEXT) : start]
        out["after"] = snapshot[end : end + CONTEXT]
    return out


def final_preview(reader: RunReader, draft_rel: str, draft_sha: str) -> dict[str, Any]:
    """`report`: the Markdown final-report.md will hold once `draft_rel` is signed (None, and `report_error`, when
    it cannot be rendered); `quotes`: card id -> the card's quote in its source, for each card the report cites."""
    style = run_citation_style(reader.run())
    draft = reader.read_text(draft_rel)
    if draft is None:
        return {"report": None, "report_error": f"{draft_rel}: cannot be read", "quotes": {}}
    try:
        evidence = RunEvidence.read(reader, draft_rel)
        report = evidence.render(draft, draft_rel, draft_sha, style)
    except HarnessError as exc:
        return {"report": None, "report_error": " ".join(str(exc).split()), "quotes": {}}
    cited = dict.fromkeys(id_of(m.group(2)) for m in CARD_LINK.finditer(report))
    quotes = {cid: _quote(reader, cid, evidence.cards[cid]) for cid in cited if cid in evidence.cards}
    return {"report": report, "report_error": None, "quotes": quotes}
