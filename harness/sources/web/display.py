"""What the web tools show a model: bounded, delimited, with instruction-like text marked.

`fetch_url` shows the page's title, URL and length and the passages that best match what the model is
looking for (`sources/excerpts.best_passages`), each with its offsets in the stored snapshot, so
`read_source(source_id, offset)` can page through the rest. `web_search` shows each result's title,
URL and snippet, cut to a few hundred characters, with the sentences the injection detector flagged
wrapped in markers, as for sources. The whole page stays stored, and quotes are located in it.
"""

from __future__ import annotations

from typing import Any

from harness.sources.excerpts import EXCERPT_CHARS, RESULT_CHARS, best_passages
from harness.sources.research_tools import FLAGGED_NOTE, marks_for, wrap
from harness.sources.web.tools import FetchResult


def format_page(result: FetchResult, focus: str, budget: int = EXCERPT_CHARS) -> str:
    """The page as fetch_url shows it: its best-matching passages (at most `budget` characters) and how to read on."""
    text, total = result.text, len(result.text)
    record = {"flags": list(result.flags)}
    parts, shown, any_marks = [], 0, False
    for x in best_passages(text, focus, budget):
        marks = marks_for(record, text, x.start, x.end)
        any_marks = any_marks or bool(marks)
        attrs: dict[str, Any] = {"title": result.title, "url": result.url, "kind": result.kind}
        if result.flags:
            attrs["flag"] = "suspicious-instructions"
        parts.append(
            wrap(result.source_id, x.text, base=x.start, marks=marks, **attrs, start=x.start, end=x.end, total=total)
        )
        shown += x.end - x.start
    if shown >= total:
        more = f"This is the whole page ({total:,} characters)."
    else:
        more = (
            f"Showing {len(parts)} passage(s), {shown:,} of {total:,} characters, the ones that best match "
            f'{focus!r}; read_source("{result.source_id}", offset) pages through the rest.'
        )
    cached = " (from the page cache)" if result.from_cache else ""
    return "\n\n".join(parts) + f"\n\n{more}{cached}" + (f"\n\n{FLAGGED_NOTE}" if any_marks else "")


def format_results(results: list[dict[str, Any]]) -> str:
    """web_search's results: title, URL and snippet (cut to RESULT_CHARS), flagged sentences marked."""
    parts, any_marks = [], False
    for i, r in enumerate(results, 1):
        snippet = r.get("snippet") or ""
        cut = snippet[:RESULT_CHARS] + ("…" if len(snippet) > RESULT_CHARS else "")
        marks = tuple(m for m in marks_for({"flags": r.get("flags") or []}, snippet, 0, len(cut)))
        any_marks = any_marks or bool(marks)
        attrs: dict[str, Any] = {"title": r.get("title", ""), "url": r.get("url", "")}
        if marks:
            attrs["flag"] = "suspicious-instructions"
        parts.append(wrap(f"web-result-{i}", cut, marks=marks, **attrs))
    return "\n\n".join(parts) + (f"\n\n{FLAGGED_NOTE}" if any_marks else "")
