"""A paper's scholarly identity: the rules every layer shares about a source record's `work` object.

Defined once here: how a DOI, an arXiv id and a title are normalized (`work_keys`, the registry's rule for "the same
paper found by two providers is one source": DOI first, then the arXiv id, then the normalized title), how a work
becomes its CSL-JSON item (`csl_item`, stored on the source record beside `work`), and the closed set of citation
styles a bibliography is rendered in (`CitationStyle`, each a bundled CSL style file).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any, Literal, get_args

CitationStyle = Literal["apa", "ieee", "chicago-author-date"]
APA: CitationStyle = "apa"
IEEE: CitationStyle = "ieee"
CHICAGO_AUTHOR_DATE: CitationStyle = "chicago-author-date"
CITATION_STYLES: tuple[CitationStyle, ...] = get_args(CitationStyle)
DEFAULT_CITATION_STYLE: CitationStyle = APA


def run_citation_style(run_manifest: dict[str, Any]) -> CitationStyle:
    """The citation style a run was started with (run.json's config), APA when none is recorded."""
    return (run_manifest.get("config") or {}).get("citation_style") or DEFAULT_CITATION_STYLE


# The limitations a card quoting a paper carries, added by the harness whatever engine wrote the card.
ABSTRACT_ONLY_LIMITATION = "Quotes the paper's abstract only: its full text was not available to the run."
RETRACTED_LIMITATION = "The paper is retracted (its provider says so): it cannot support a claim."


def work_limitations(work: dict[str, Any] | None) -> list[str]:
    """What a card quoting this work must say about it: abstract only, retracted."""
    work = work or {}
    return [
        text
        for flag, text in (
            (work.get("abstract_only"), ABSTRACT_ONLY_LIMITATION),
            (work.get("retracted"), RETRACTED_LIMITATION),
        )
        if flag
    ]


_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)
_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(.+)$", re.IGNORECASE)
_ARXIV_PREFIX = re.compile(r"^(?:https?://(?:export\.)?arxiv\.org/(?:abs|pdf)/|arxiv:\s*)", re.IGNORECASE)
_ARXIV_VERSION = re.compile(r"v\d+$")
_MIN_TITLE_WORDS = 3  # a title shorter than this ("Introduction") names no one paper


def normalize_doi(doi: str | None) -> str | None:
    """`10.1234/abc` in lower case, without a resolver prefix (`https://doi.org/`, `doi:`); None when empty."""
    if not doi:
        return None
    out = _DOI_PREFIX.sub("", doi.strip()).strip().lower()
    return out if out.startswith("10.") else None


def normalize_arxiv_id(arxiv_id: str | None) -> str | None:
    """`2401.01234` or `hep-th/9901001`: no URL, no `arXiv:` prefix, no version; None when empty."""
    if not arxiv_id:
        return None
    out = _ARXIV_PREFIX.sub("", arxiv_id.strip()).strip()
    out = out.removesuffix(".pdf")
    return _ARXIV_VERSION.sub("", out).lower() or None


def arxiv_id_of_doi(doi: str | None) -> str | None:
    """arXiv's own DOIs (10.48550/arXiv.ID) name the arXiv id."""
    m = _ARXIV_DOI.match(normalize_doi(doi) or "")
    return normalize_arxiv_id(m.group(1)) if m else None


def normalize_title(title: str | None) -> str | None:
    """Lower case, accents, punctuation and spacing dropped; None for a title too short to name one paper."""
    if not title:
        return None
    text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode().lower()
    words = re.findall(r"[a-z0-9]+", text)
    return " ".join(words) if len(words) >= _MIN_TITLE_WORDS else None


def work_keys(work: dict[str, Any]) -> list[str]:
    """The keys a work is known by, strongest first: `doi:…`, `arxiv:…` (its own, or read from an arXiv DOI),
    `title:…`. Two works sharing any key are the same paper."""
    keys: list[str] = []
    doi = normalize_doi(work.get("doi"))
    arxiv = normalize_arxiv_id(work.get("arxiv_id")) or arxiv_id_of_doi(doi)
    title = normalize_title(work.get("title"))
    if doi:
        keys.append("doi:" + doi)
    if arxiv:
        keys.append("arxiv:" + arxiv)
    if title:
        keys.append("title:" + title)
    return keys


def person(name: str) -> dict[str, str]:
    """A display name as a CSL name: `Family, Given` or `Given … Family` split at the last word; one word stays
    literal."""
    name = " ".join(name.split())
    if "," in name:
        family, given = (part.strip() for part in name.split(",", 1))
        return {"family": family, "given": given} if given else {"literal": family}
    parts = name.rsplit(" ", 1)
    return {"family": parts[1], "given": parts[0]} if len(parts) == 2 else {"literal": name}


def csl_item(work: dict[str, Any], item_id: str) -> dict[str, Any]:
    """The work as one CSL-JSON item (`id` is the source id): an article with its authors, year, venue, DOI and
    URL; an arXiv preprint without a venue is `article` with arXiv as its publisher."""
    item: dict[str, Any] = {"id": item_id, "type": "article-journal" if work.get("venue") else "article"}
    item["title"] = work.get("title") or ""
    authors = [dict(a) for a in work.get("authors") or []]
    if authors:
        item["author"] = authors
    if work.get("year"):
        item["issued"] = {"date-parts": [[int(work["year"])]]}
    if work.get("venue"):
        item["container-title"] = work["venue"]
    elif work.get("arxiv_id"):
        item["publisher"] = "arXiv"
        item["number"] = "arXiv:" + work["arxiv_id"]
    if work.get("doi"):
        item["DOI"] = work["doi"]
    if work.get("url"):
        item["URL"] = work["url"]
    if work.get("license"):
        item["license"] = work["license"]
    return item
