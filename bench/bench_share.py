"""Fact coverage of an offline run over a company's document share, without a judge.

Builds the Halvard Robotics share (`share/make_share.py`: Markdown, Word and PDF files, HR/IT/marketing/travel
distractors, an archive of older figures), runs the four-part due-diligence brief over it offline
(`research run BRIEF --corpus DIR --yes`), and reads the final report's body (everything before its Evidence
section). Prints, per part of the brief, the facts of `share/facts.json` found in the body (a fact is found when
one of its accepted literal strings is there), and the older figures presented as current (a body line holding an
older figure with neither "superseded" nor one of its periods in it).

Usage: .venv/bin/python bench/bench_share.py [--keep DIR] [--json]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "share"))

from make_share import BRIEF, make_share  # noqa: E402

FACTS = json.loads((HERE / "share" / "facts.json").read_text(encoding="utf-8"))


def body_of(report: str) -> str:
    """The report above its Evidence section: what a reader takes as the report's statements."""
    return re.split(r"^## Evidence\s*$", report, maxsplit=1, flags=re.M)[0]


def found(body: str, accept: list[str]) -> bool:
    return any(a.lower() in body.lower() for a in accept)


def stale_lines(body: str, old: dict) -> list[str]:
    """The body's lines that state an older figure as current: the figure, without "superseded" or its period."""
    return [
        line.strip()
        for line in body.splitlines()
        if found(line, old["figure"]) and "superseded" not in line.lower() and not found(line, old["period"])
    ]


def score(report: str) -> dict:
    body = body_of(report)
    parts = [
        {
            "part": p["part"],
            "found": [f["id"] for f in p["facts"] if found(body, f["accept"])],
            "missing": [f["id"] for f in p["facts"] if not found(body, f["accept"])],
        }
        for p in FACTS["parts"]
    ]
    stale = {o["id"]: lines for o in FACTS["superseded"] if (lines := stale_lines(body, o))}
    total = sum(len(p["facts"]) for p in FACTS["parts"])
    hits = sum(len(p["found"]) for p in parts)
    sections = len(re.findall(r"^## ", body, flags=re.M))
    return {"facts_found": hits, "facts_total": total, "parts": parts, "stale": stale, "body_sections": sections}


def run(share: Path, runs: Path) -> str:
    exe = Path(sys.executable).with_name("research")
    cmd = [str(exe), "run", BRIEF, "--corpus", str(share), "--yes", "--runs-dir", str(runs)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        sys.exit(f"research run failed ({proc.returncode}): {proc.stderr.strip()[-500:]}")
    reports = sorted(runs.glob("*/final-report.md"))
    if not reports:
        sys.exit(f"research run wrote no final-report.md under {runs}")
    return reports[-1].read_text(encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keep", type=Path, help="build the share and the runs here and keep them")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        share = make_share(root / "share")
        report = run(share, root / "runs")
    result = score(report)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    for p in result["parts"]:
        n = len(p["found"]) + len(p["missing"])
        print(f"{p['part']}: {len(p['found'])}/{n} found; missing: {', '.join(p['missing']) or '-'}")
    print(f"facts in the report body: {result['facts_found']}/{result['facts_total']}")
    print(f"sections in the body: {result['body_sections']}")
    print(f"older figures presented as current: {sum(len(v) for v in result['stale'].values())}")
    for fid, lines in result["stale"].items():
        for line in lines:
            print(f"  {fid}: {line[:160]}")


if __name__ == "__main__":
    main()
