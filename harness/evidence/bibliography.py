"""The bibliography of a report: the cited papers' CSL-JSON items rendered in a named CSL style with citeproc-py,
and the same references as BibTeX (pybtex) or CSL-JSON for `research export`.

Only sources with a scholarly identity (a `csl` item on their record, from a literature provider) are works; a web
page or a corpus file stays in the report's Sources list only. The styles are the bundled .csl files in `styles/`
(one per name in `contract/works.CITATION_STYLES`); both libraries come with the `papers` extra, checked by
`errors.require_extra` when a bibliography is first needed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from harness.contract.works import CITATION_STYLES
from harness.errors import UsageError, require_extra

STYLES = Path(__file__).parent / "styles"
STYLE_NAMES = {"apa": "APA", "ieee": "IEEE", "chicago-author-date": "Chicago author-date"}
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>])")
_IEEE_LABEL = re.compile(r"^\[(\d+)\](?=\S)")


def escape_markdown(text: str) -> str:
    """A reference as literal Markdown text: a title's `*` or `_` is not emphasis, nor `[..]` a link."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


def works_of(sources: dict[str, dict], source_ids: list[str]) -> list[dict[str, Any]]:
    """The CSL-JSON items of the given sources that are works, in the order given."""
    return [sources[sid]["csl"] for sid in source_ids if sid in sources and sources[sid].get("csl")]


def style_file(style: str) -> Path:
    if style not in CITATION_STYLES:
        raise UsageError(f"--citation-style {style}: choose one of {', '.join(CITATION_STYLES)}")
    return STYLES / f"{style}.csl"


def render_bibliography(items: list[dict[str, Any]], style: str) -> list[str]:
    """Each item's reference in `style`, as plain text, in the style's order (alphabetical for APA and Chicago,
    by first citation for IEEE)."""
    path = style_file(style)
    if not items:
        return []
    require_extra(f"--citation-style {style}", "papers", ("citeproc",))
    from citeproc import Citation, CitationItem, CitationStylesBibliography, CitationStylesStyle, formatter
    from citeproc.source.json import CiteProcJSON

    bibliography = CitationStylesBibliography(
        CitationStylesStyle(str(path), validate=False), CiteProcJSON([dict(i) for i in items]), formatter.plain
    )
    for item in items:
        bibliography.register(Citation([CitationItem(item["id"])]))
    # IEEE's labels sit in a left margin the plain formatter does not draw: a space stands in for it
    return [_IEEE_LABEL.sub(r"[\1] ", " ".join(str(entry).split())) for entry in bibliography.bibliography()]


def csl_json(items: list[dict[str, Any]]) -> str:
    """The references as a CSL-JSON array (what Zotero, pandoc and citeproc read)."""
    return json.dumps(items, ensure_ascii=False, indent=2) + "\n"


def _bibtex_type(item: dict[str, Any]) -> str:
    return "article" if item.get("container-title") else "misc"


def bibtex(items: list[dict[str, Any]]) -> str:
    """The references as BibTeX, written by pybtex; each key is the source id (`src_…`); a literal name (an
    organization) is braced, so BibTeX keeps it whole."""
    require_extra("--format bibtex", "papers", ("pybtex",))
    from pybtex.database import BibliographyData, Entry, Person

    entries = {}
    for item in items:
        fields = {"title": item.get("title", "")}
        year = ((item.get("issued") or {}).get("date-parts") or [[None]])[0][0]
        for key, value in (
            ("year", str(year) if year else None),
            ("journal", item.get("container-title")),
            ("publisher", item.get("publisher")),
            ("number", item.get("number")),
            ("doi", item.get("DOI")),
            ("url", item.get("URL")),
        ):
            if value:
                fields[key] = value
        people = [
            Person(last="{" + a["literal"] + "}")
            if "literal" in a
            else Person(first=a.get("given", ""), last=a["family"])
            for a in item.get("author") or []
        ]
        key = re.sub(r"[^A-Za-z0-9_]", "_", item["id"])
        entries[key] = Entry(_bibtex_type(item), fields=fields, persons={"author": people} if people else {})
    return BibliographyData(entries).to_string("bibtex")
