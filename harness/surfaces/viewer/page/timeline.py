"""The trace as a timeline: each event's time, agent, duration bar, figures and detail."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from harness.surfaces.viewer.markup import Markup, el
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


def _event_detail(e: dict[str, Any]) -> Any:
    """The detail cell of one trace event, by its kind."""
    kind = str(e.get("event"))
    if kind == "delegation":
        return el(
            "div",
            _plain((e.get("detail") or {}).get("summary") if isinstance(e.get("detail"), dict) else e.get("detail")),
            el(
                "div",
                "wrote: " + ", ".join(o.get("path", "") for o in e.get("outputs") or [] if isinstance(o, dict)),
                class_="sub",
            )
            if e.get("outputs")
            else None,
            title=e.get("brief"),
        )
    if kind == "write" or kind == "delete":
        return el("code", e.get("path"))
    if kind == "decision":
        return el("div", el("strong", e.get("decision")), " ", _plain(e.get("detail")))
    if kind == "status":
        return el("div", badge(e.get("status") or "?"), " ", _plain(e.get("detail")))
    # run_created, error, resume, budget
    return " · ".join(x for x in (_plain(e.get("detail")), _plain(e.get("budget"))) if x)


def _event_row(e: dict[str, Any], t0: datetime | None, span: float) -> Markup:
    """One trace event as a timeline row: when, who, how long (with its bar), figures and detail."""
    kind = str(e.get("event"))
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
    errors = e.get("errors") or []
    return el(
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
        el("td", _event_detail(e)),
        class_=f"ev ev-{_cls(kind)}" + (" has-errors" if errors else ""),
    )


def timeline_section(data: dict[str, Any]) -> Markup:
    events = data["timeline"]
    times = [t for e in events for t in (_ts(e.get("ts")), _ts(e.get("started_at")), _ts(e.get("ended_at"))) if t]
    t0 = min(times) if times else None
    span = max(((max(times) - min(times)).total_seconds() if times else 0), 0.001)
    rows = [_event_row(e, t0, span) for e in events]
    writes = sum(1 for e in events if str(e.get("event")) == "write")
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
