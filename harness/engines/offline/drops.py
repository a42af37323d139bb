"""Where in a draft its own checks rejected a claim: the offline Writer leaves the claim out of that place only.

A place is a table row ("| criterion") or a section's heading; `TITLE` the report's title line, `EVERYWHERE` every
place (a defect that names claims but no line of the draft), and `ANY` in place of a claim id the whole place.
"""

from __future__ import annotations

from harness.contract.citations import parse_citations

ANY = "*"  # in a drop set: every claim of that place
TITLE = "# title"  # in a drop set: the report's title line
EVERYWHERE = "*everywhere"  # in a drop set: a claim left out of every place (its defect names no line of the draft)


def place_of(draft: str, line: int) -> str:
    """Where line `line` (1-based) of a draft is: its table row ("| criterion"), or else its section's heading."""
    lines = draft.split("\n")
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    if text.startswith("|"):
        return "| " + text.strip("|").split("|", 1)[0].strip()
    heading = next((h for h in reversed(lines[: max(line, 0)]) if h.startswith("## ")), "")
    return heading[3:].strip()


def rejected(draft: str, defects: list[dict]) -> set[tuple[str, str]]:
    """(place, claim id) for each error defect the draft's checks found: the claims it names, or else those cited
    on its line. A defect on no line of the draft that names claims (their cards' quotes or their statements, which
    the report's Evidence section prints) leaves those claims out EVERYWHERE."""
    lines = draft.split("\n")
    out: set[tuple[str, str]] = set()
    for d in defects:
        line = d.get("location", {}).get("line")
        if d.get("severity") != "error":
            continue
        if not isinstance(line, int) or not 0 < line <= len(lines):
            out |= {(EVERYWHERE, cid) for cid in d.get("refs", {}).get("claims") or []}
            continue
        if lines[line - 1].startswith("# "):
            out.add((TITLE, ANY))  # the title (the question) read as an instruction: the title is rewritten
            continue
        ids = d.get("refs", {}).get("claims") or [k for c in parse_citations(lines[line - 1]) for k in c.keys]
        out |= {(place_of(draft, line), cid) for cid in ids}
    return out
