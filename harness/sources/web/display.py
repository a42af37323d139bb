"""What the web tools show a model: bounded, delimited, with instruction-like text marked or withheld.

`fetch_url` shows the page's title, URL and length and the passages that best match what the model is
looking for (`sources/excerpts.best_passages`), each with its offsets in the stored snapshot, so
`read_source(source_id, offset)` can page through the rest; the sentences the injection detector flagged are
wrapped in markers, as for sources. `web_search` registers the pages it fetched and shows each the same way in
a smaller share of one budget (`SEARCH_CHARS`), with flagged sentences withheld (named, never echoed), and each
result that did not become a source as one line saying why. A paper's passages say whether they come from its full
text or its abstract only, and whether it is retracted. The whole page stays stored, and quotes are located in it.
"""

from __future__ import annotations

from typing import Any

from harness.sources.excerpts import EXCERPT_CHARS, SEARCH_CHARS, best_passages
from harness.sources.research_tools import FLAGGED_NOTE, WITHHELD_NOTE, marks_for, wrap
from harness.sources.web.tools import FetchResult, SearchedResult

REASON_CHARS = 240  # of a failed result's one-line reason


def _passages(result: FetchResult, focus: str, budget: int, *, withhold: bool = False) -> tuple[list[str], int, bool]:
    """The page's best-matching passages (at most `budget` characters), each delimited with its offsets; with
    how many characters they show and whether any flagged text was marked (or, `withhold`, left out)."""
    text, total = result.text, len(result.text)
    record = {"flags": list(result.flags)}
    parts, shown, any_marks = [], 0, False
    for x in best_passages(text, focus, budget):
        marks = marks_for(record, text, x.start, x.end)
        any_marks = any_marks or bool(marks)
        attrs: dict[str, Any] = {"title": result.title, "url": result.url, "kind": result.kind}
        if result.work is not None:  # a paper: say whether this is its full text, and whether it is retracted
            attrs["paper"] = "abstract only" if result.work.get("abstract_only") else "full text"
            if result.work.get("retracted"):
                attrs["retracted"] = "true"
        if result.flags:
            attrs["flag"] = "suspicious-instructions"
        attrs.update(start=x.start, end=x.end, total=total)
        parts.append(wrap(result.source_id, x.text, base=x.start, marks=marks, withhold=withhold, **attrs))
        shown += x.end - x.start
    return parts, shown, any_marks


def format_page(result: FetchResult, focus: str, budget: int = EXCERPT_CHARS) -> str:
    """The page as fetch_url shows it: its best-matching passages (at most `budget` characters) and how to read on."""
    total = len(result.text)
    parts, shown, any_marks = _passages(result, focus, budget)
    if shown >= total:
        more = f"This is the whole page ({total:,} characters)."
    else:
        more = (
            f"Showing {len(parts)} passage(s), {shown:,} of {total:,} characters, the ones that best match "
            f'{focus!r}; read_source("{result.source_id}", offset) pages through the rest.'
        )
    cached = " (from the page cache)" if result.from_cache else ""
    return "\n\n".join(parts) + f"\n\n{more}{cached}" + (f"\n\n{FLAGGED_NOTE}" if any_marks else "")


def format_searched(results: list[SearchedResult], focus: str, budget: int = SEARCH_CHARS) -> str:
    """web_search's results after their fetch, in rank order: each page that became a source with its
    best-matching passages (an equal share of `budget`, flagged text withheld), each other result as one line
    with the reason it is not a source, and one line on how to go on."""
    kept = [r for r in results if r.page is not None]
    share = min(EXCERPT_CHARS, budget // max(1, len(kept)))
    parts, seen, any_marks = [], set(), False
    for r in results:
        if r.page is None:
            reason = r.reason.split("; it is not a source")[0]  # the line already says so
            reason = reason if len(reason) <= REASON_CHARS else reason[: REASON_CHARS - 1] + "…"
            parts.append(f"[{r.rank}] not a source: {r.url}: {reason}")
        elif r.page.source_id in seen:
            parts.append(f"[{r.rank}] {r.url}: the same page as {r.page.source_id} (above)")
        else:
            seen.add(r.page.source_id)
            shown, _, marked = _passages(r.page, focus, share, withhold=True)
            any_marks = any_marks or marked
            parts.append(f"[{r.rank}] " + "\n".join(shown))
    end = (
        f"{len(seen)} of {len(results)} results are now sources: quote them with record_evidence; "
        "read_source(source_id, offset) pages through the rest of a page (total= is its length)."
    )
    if len(seen) < len(results):
        end += " A result marked 'not a source' cannot be quoted."
    return "\n\n".join(parts) + f"\n\n{end}" + (f"\n\n{WITHHELD_NOTE}" if any_marks else "")
