"""Build the Halvard Robotics document share: a fictional company's files as people keep them.

Markdown, Word (python-docx, one with a table) and PDF (WeasyPrint, from HTML) files: finance, product, operations
and strategy documents that answer a due-diligence brief (`facts.json` lists what they state), distractors that name
the company on every line (HR, IT, marketing, travel), archived older reports whose figures are out of date, and one
damaged Word file. The tests and `bench/bench_share.py` build the same files from here, so no binary is kept in git.

    python bench/share/make_share.py DIR
"""

from __future__ import annotations

import sys
from pathlib import Path

COMPANY = "Halvard Robotics"
BRIEF = (
    "Prepare a due-diligence brief on Halvard Robotics covering: (1) funding history and financial trajectory, "
    "(2) product line and roadmap with pricing, (3) operations and key risks, (4) competitive position."
)

# path -> (title, paragraphs); a paragraph starting "| " is a table row (Word) or a Markdown table line.
MARKDOWN: dict[str, tuple[str, list[str]]] = {
    "company/overview.md": (
        "About Halvard Robotics",
        [
            "Halvard Robotics is a company that designs autonomous mobile robots for warehouses and distribution "
            "centres. Founded in 2019 in Columbus, Ohio, Halvard Robotics employs 85 people.",
            "Halvard Robotics believes that warehouse work should be safer and less tiring for the people who do it.",
        ],
    ),
    "product/roadmap-2025.md": (
        "Product roadmap 2025",
        [
            "Halvard's current line is the Tote Runner, a robot that carries totes of up to 60 kg between pick "
            "stations, and the Fleet Console, the software that assigns tasks to every robot on a site.",
            "The Runner XL, a heavy-payload model that moves pallets of up to 600 kg, is scheduled for general "
            "availability in Q3 2025.",
            "A battery-swap station that cuts charging downtime is planned for the first half of 2026.",
        ],
    ),
    "operations/fleet-report-q4-2024.md": (
        "Fleet report, fourth quarter 2024",
        [
            "At the end of December 2024 Halvard had 312 robots in service across 14 customer sites in the "
            "United States and Canada.",
            "Average fleet availability over the quarter was 97.1%.",
            "On 12 November 2024 a battery fire in a charging bay at the Reno customer site destroyed two robots; "
            "no one was injured, and every charging bay has since been refitted with thermal cut-offs.",
        ],
    ),
    "strategy/competitive-landscape.md": (
        "Competitive landscape",
        [
            "Ferrow Automation is the market leader, with roughly 40% of the autonomous mobile robots installed in "
            "North American warehouses.",
            "Halvard competes on deployment time: a new customer site goes live in under two weeks, against six to "
            "eight weeks for Ferrow Automation.",
            "Smaller rivals such as Quillon Systems sell on price but offer no fleet software of their own.",
        ],
    ),
    "archive/2023-annual-report.md": (
        "Halvard Robotics annual report 2023",
        [
            "Revenue for the year was $5.1 million.",
            "Halvard operates a fleet of 180 robots at 9 customer sites.",
            "The Tote Runner subscription costs $1,290 per robot per month, maintenance included.",
        ],
    ),
    "hr/parental-leave.md": (
        "Parental leave policy",
        [
            "Halvard Robotics offers sixteen weeks of paid parental leave to every employee after six months of "
            "service.",
        ],
    ),
    "it/password-policy.md": (
        "Password policy",
        [
            "Halvard Robotics staff must keep every work password in the company password manager and turn on "
            "two-factor authentication for email.",
            "Passwords are rotated only after a suspected compromise.",
        ],
    ),
    "marketing/press-kit.md": (
        "Press kit",
        [
            "Halvard Robotics: robots that move your warehouse forward.",
            "Journalists can reach the Halvard Robotics press office at press@halvard.example.",
        ],
    ),
}

DOCX: dict[str, tuple[str, list[str]]] = {
    "finance/funding-history.docx": (
        "Funding history",
        [
            "Halvard Robotics has raised three rounds of outside investment since its founding.",
            "| Round | Date | Amount | Lead investor",
            "| Seed | May 2019 | $1.1 million | Founders and angels",
            "| Series A | June 2021 | $4.2 million | Calder Capital",
            "| Series B | March 2024 | $14.5 million | Northwind Ventures",
            "The Series B, led by Northwind Ventures, funds the Runner XL and expansion into Canada.",
        ],
    ),
    "product/price-list-2025.docx": (
        "Price list 2025",
        [
            "Prices valid from 1 January 2025.",
            "| Product | Price",
            "| Tote Runner subscription | $1,450 per robot per month",
            "| Fleet Console licence | $600 per site per month",
            "| On-site installation | $18,000 per site",
            "The Tote Runner subscription costs $1,450 per robot per month, maintenance included.",
        ],
    ),
    "hr/remote-work-policy.docx": (
        "Remote work policy",
        [
            "Halvard Robotics employees may work remotely up to three days per week with their manager's approval.",
            "Halvard Robotics provides a monitor and a chair for a home office.",
        ],
    ),
    "marketing/brand-guidelines.docx": (
        "Brand guidelines",
        [
            "The Halvard Robotics logo is always printed in Halvard blue on a white background.",
            "Halvard Robotics is written in full in the first mention of any document.",
        ],
    ),
}

PDF: dict[str, tuple[str, list[str]]] = {
    "finance/2024-annual-report.pdf": (
        "Halvard Robotics annual report 2024",
        [
            "Revenue for fiscal year 2024 was $9.2 million, up from $5.1 million in 2023.",
            "Gross margin improved to 38% as installation costs per site fell.",
            "The company expects to reach operating break-even in 2026.",
        ],
    ),
    "operations/risk-register.pdf": (
        "Risk register",
        [
            "Every lidar sensor in the Tote Runner comes from a single supplier, Oberlin Sensors; a disruption there "
            "would halt robot production within six weeks.",
            "Two customers account for 45% of revenue, so the loss of either would cut revenue sharply.",
        ],
    ),
    "travel/travel-policy.pdf": (
        "Travel policy",
        [
            "Halvard Robotics employees fly economy class on flights shorter than six hours.",
            "Hotel costs are reimbursed up to $220 per night.",
        ],
    ),
}

DAMAGED = "it/laptop-inventory.docx"  # not a Word file: the corpus names it in one line


def _markdown(title: str, paragraphs: list[str]) -> str:
    return f"# {title}\n\n" + "\n\n".join(paragraphs) + "\n"


def _docx(path: Path, title: str, paragraphs: list[str]) -> None:
    from docx import Document

    document = Document()
    document.core_properties.title = title
    document.add_heading(title, level=1)
    rows = [p[2:].split(" | ") for p in paragraphs if p.startswith("| ")]
    table_done = False
    for p in paragraphs:
        if not p.startswith("| "):
            document.add_paragraph(p)
        elif not table_done:
            table = document.add_table(rows=len(rows), cols=len(rows[0]))
            for r, cells in enumerate(rows):
                for c, text in enumerate(cells):
                    table.cell(r, c).text = text
            table_done = True
    document.save(str(path))


def _pdf(path: Path, title: str, paragraphs: list[str]) -> None:
    from html import escape

    from weasyprint import HTML

    body = "".join(f"<p>{escape(p)}</p>" for p in paragraphs)
    html = f"<html><head><title>{escape(title)}</title></head><body><h1>{escape(title)}</h1>{body}</body></html>"
    HTML(string=html).write_pdf(str(path))


def make_share(root: Path, pdf: bool = True) -> Path:
    """Write the share under `root` (created); `pdf=False` leaves the PDF files out (no WeasyPrint needed)."""
    root.mkdir(parents=True, exist_ok=True)
    for rel, (title, paragraphs) in MARKDOWN.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(_markdown(title, paragraphs), encoding="utf-8")
    for rel, (title, paragraphs) in DOCX.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        _docx(root / rel, title, paragraphs)
    for rel, (title, paragraphs) in PDF.items() if pdf else ():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        _pdf(root / rel, title, paragraphs)
    (root / DAMAGED).parent.mkdir(parents=True, exist_ok=True)
    (root / DAMAGED).write_bytes(b"PK\x03\x04 this archive was cut short")
    return root


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: make_share.py DIR")
    print(make_share(Path(sys.argv[1])))
