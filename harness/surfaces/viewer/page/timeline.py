"""The trace as a timeline: each event's time, agent, duration bar, figures and detail."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from harness.surfaces.viewer.markup import Markup, el
from harness.surfaces.viewer.model import Event, RunView
from harness.surfaces.viewer.page.common import (
    _cls,
    _list,
    _plain,
    _seconds,
    _section,
    _table,
    _ts,
    badge,
)

# ---- timeline ------------------------------------------------------------------------------


def _bar(start: float, end: float, span: float) -> Markup:
    x = 1000 * start / span
    width = max(1000 * (end - start) / span, 4)
    return Markup(
        f'<svg class="bar" viewBox="0 0 1000 10" preserveAspectRatio="none" aria-hidden="true">'
        f'<rect x="{x:.1f}" y="0" width="{width:.1f}" height="10"></rect></svg>'
    )


def _event_detail(e: Event) -> Any:
    """The detail cell of one trace event, by its kind."""
    kind = str(e.event)
    if kind == "delegation":
        return el(
            "div",
            _plain(e.detail.get("summary") if isinstance(e.detail, dict) else e.detail),
            el("div", "wrote: " + ", ".join(e.outputs), class_="sub") if e.outputs is not None else None,
            title=e.brief,
        )
    if kind == "write" or kind == "delete":
        return el("code", e.path)
    if kind == "decision":
        return el("div", el("strong", e.decision), " ", _plain(e.detail))
    if kind == "status":
        return el("div", badge(e.status or "?"), " ", _plain(e.detail))
    # run_created, error, resume, budget
    return " · ".join(x for x in (_plain(e.detail), _plain(e.budget)) if x)


def _figure(value: int | None) -> str:
    return "" if value is None else str(value)


def _event_row(e: Event, t0: datetime | None, span: float) -> Markup:
    """One trace event as a timeline row: when, who, how long (with its bar), figures and detail."""
    kind = str(e.event)
    ts, started, ended = _ts(e.ts), _ts(e.started_at), _ts(e.ended_at)
    at = started or ts
    rel = f"+{(at - t0).total_seconds():.2f} s" if at and t0 else ""
    duration = (ended - started).total_seconds() if started and ended else None
    bar = (
        _bar((at - t0).total_seconds(), (ended - t0).total_seconds() if ended else (at - t0).total_seconds(), span)
        if at and t0
        else None
    )
    engine = " / ".join(x for x in (e.engine, e.model) if x)
    return el(
        "tr",
        el("td", _figure(e.seq), class_="num"),
        el("td", rel, class_="num"),
        el("td", kind),
        el("td", e.agent, el("span", f" {e.question_id}", class_="sub") if e.question_id else None),
        el("td", engine),
        el("td", _seconds(duration), class_="num"),
        el("td", bar, class_="bar-cell"),
        el("td", _figure(e.tokens), class_="num"),
        el("td", _figure(e.llm_calls), class_="num"),
        el("td", badge(e.stop_reason) if e.stop_reason else None),
        el("td", str(e.retries) if e.retries else "", class_="num"),
        el("td", _list(e.errors, "errors") if e.errors else None),
        el("td", _event_detail(e)),
        class_=f"ev ev-{_cls(kind)}" + (" has-errors" if e.errors else ""),
    )


def trace_line(e: Event) -> Markup:
    """One trace event as a line of the app's live trace: its time, kind, agent, and what it was about."""
    what = e.status or e.decision or e.path or e.delegation_id or ""
    extra = f" {e.stop_reason or ''}" if e.event == "delegation" else ""
    return el("li", f"{(e.ts or '')[11:19]} {e.event} {e.agent or ''} {what}{extra}", data_event=e.event)


def timeline_section(view: RunView) -> Markup:
    events = view.timeline
    times = [t for e in events for t in (_ts(e.ts), _ts(e.started_at), _ts(e.ended_at)) if t]
    t0 = min(times) if times else None
    span = max(((max(times) - min(times)).total_seconds() if times else 0), 0.001)
    rows = [_event_row(e, t0, span) for e in events]
    writes = sum(1 for e in events if e.event == "write")
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
