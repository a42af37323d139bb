"""What an export of a run holds, recomputed from the run folder each time.

An export is the final report made standalone: `evidence.report.render_report(...,
standalone=True)` re-renders the passing draft so that every citation links to its claim's
evidence entry inside the document, and the Evidence section (quotes with their spans) and the
Sources section come along as the appendix. Before that, the run's own `final-report.md` must
be exactly what the renderer makes of its draft today (same draft bytes, claims, cards and
sources), so an export never shows a report the harness did not render. Every format records
the run id and the sha256 of the draft (`Provenance`); `research validate --export` rebuilds the
same content and compares. `references` are the cited papers' CSL-JSON items, for the BibTeX and CSL-JSON exports.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from harness.contract.formats import sha256_text
from harness.contract.language import DEFAULT_LANGUAGE, run_language
from harness.contract.layout import FINAL_REPORT
from harness.contract.works import CitationStyle, run_citation_style
from harness.errors import UsageError, WorkspaceError
from harness.evidence.bibliography import works_of
from harness.evidence.report import RunEvidence, cited_source_ids, rendered_from
from harness.surfaces.viewer.markup import escape, render_markdown
from harness.workspace.reader import RunReader

GENERATOR = "research-harness export"
_STYLE = """
body { font-family: "DejaVu Sans", Arial, sans-serif; font-size: 10.5pt; line-height: 1.45; max-width: 48em;
       margin: 2em auto; color: #111; }
table { border-collapse: collapse; margin: 1em 0; } th, td { border: 1px solid #999; padding: .25em .5em;
       vertical-align: top; }
code { font-family: "DejaVu Sans Mono", monospace; font-size: 92%; }
a { color: #0645ad; } hr { border: 0; border-top: 1px solid #bbb; margin: 2em 0; }
@page { size: A4; margin: 2cm; }
"""


@dataclass(frozen=True)
class Provenance:
    """What every exported file records about what it renders."""

    run_id: str
    question: str
    draft: str
    draft_sha256: str
    language: str = DEFAULT_LANGUAGE

    def fields(self) -> dict[str, str]:
        return {"run_id": self.run_id, "draft": self.draft, "draft_sha256": self.draft_sha256}


@dataclass(frozen=True)
class ExportContent:
    provenance: Provenance
    markdown: str  # the standalone report, without the provenance header
    references: tuple[dict, ...] = ()  # the CSL-JSON items of the cited papers, in the report's order

    def md_file(self) -> str:
        """The `md` export: front matter with the provenance, then the standalone report."""
        head = "\n".join(f"{k}: {v}" for k, v in self.provenance.fields().items())
        return f"---\n{head}\n---\n\n{self.markdown}"

    def html_file(self) -> str:
        """The `html` export (and the page the PDF is printed from): one self-contained page, no scripts."""
        metas = "".join(
            f'<meta name="research-{k.replace("_", "-")}" content="{escape(v)}">\n'
            for k, v in self.provenance.fields().items()
        )
        return (
            f'<!DOCTYPE html>\n<html lang="{escape(self.provenance.language)}">\n<head>\n<meta charset="utf-8">\n'
            f"<title>{escape(self.provenance.question)}</title>\n"
            f'<meta name="generator" content="{GENERATOR}">\n{metas}'
            f"<style>{_STYLE}</style>\n</head>\n<body>\n<article>\n"
            f"{render_markdown(self.markdown, id_prefix='')}\n</article>\n</body>\n</html>\n"
        )


def export_content(run_dir: Path | str, citation_style: CitationStyle | None = None) -> ExportContent:
    """The export of a completed run, its bibliography in `citation_style` (default: the run's, as in its final
    report); one-line UsageError/WorkspaceError when there is nothing sound to export."""
    reader = RunReader(run_dir, cache=True)
    run = reader.run()
    report = reader.read_text(FINAL_REPORT)
    if not run.get("final_report") or report is None:
        raise UsageError(f"{run_dir}: no final report to export (status {run.get('status', 'unknown')})")
    where = rendered_from(report)
    if where is None:
        raise WorkspaceError(f"{run_dir}/{FINAL_REPORT}: does not say which draft it renders")
    draft_rel, draft_sha = where
    draft = reader.read_text(draft_rel)
    if draft is None or sha256_text(draft) != draft_sha:
        raise WorkspaceError(f"{run_dir}/{draft_rel}: missing or changed since the final report was rendered")
    evidence = RunEvidence.read(reader, draft_rel)
    if evidence.render(draft, draft_rel, draft_sha, run_citation_style(run)) != report:
        raise WorkspaceError(
            f"{run_dir}/{FINAL_REPORT}: is not what its draft renders to today (see research validate)"
        )
    standalone = evidence.render(draft, draft_rel, draft_sha, citation_style or run_citation_style(run), True)
    provenance = Provenance(run["run_id"], run.get("question", ""), draft_rel, draft_sha, run_language(run))
    references = tuple(works_of(evidence.sources, cited_source_ids(draft, evidence.claims, evidence.cards)))
    return ExportContent(provenance, standalone, references)
