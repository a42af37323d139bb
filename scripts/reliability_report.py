"""Regenerate docs/reliability.md from the reliability tests themselves.

Runs the fault tests with pytest, reads the JUnit XML, and writes one table row per
test function: the fault it injects (the test's docstring, first sentence), how many
cases ran (parametrizations, hypothesis seeds count as one case each test), and the
result. Nothing in the document is written by hand, so it cannot drift from the tests.

Usage: .venv/bin/python scripts/reliability_report.py [--out docs/reliability.md]
"""

from __future__ import annotations

import argparse
import ast
import datetime
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FILES = [
    "tests/orchestrator/test_reliability.py",
    "tests/engines/test_faults.py",
    "tests/engines/test_adversarial.py",
    "tests/workspace/test_workspace.py",
    "tests/orchestrator/test_orchestrator.py",
    "tests/orchestrator/test_outages.py",
    "tests/orchestrator/test_context_window.py",
    "tests/orchestrator/test_weak_models.py",
    "tests/surfaces/test_door.py",
]
# From the broader test files, only the tests that inject a fault belong in the report.
SELECT = "not (test_workspace and not (crash or torn or symlink or refused or lock)) and not (test_orchestrator and not (crash or invalid_workspace))"


def docstrings(path: Path) -> dict[str, str]:
    """test function name -> first sentence of its docstring (or its name, spelled out)."""
    out = {}
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
            doc = ast.get_docstring(node) or node.name[5:].replace("_", " ")
            out[node.name] = " ".join(doc.split(". ")[0].split())
    return out


def _constant(path: Path, name: str):
    """A module-level literal of a test file, read without importing it."""
    if not path.is_file():
        return None
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        target = (
            node.target
            if isinstance(node, ast.AnnAssign)
            else (node.targets[0] if isinstance(node, ast.Assign) else None)
        )
        if isinstance(target, ast.Name) and target.id == name and node.value is not None:
            return node.value
    return None


def fault_names() -> list[str]:
    """The provider faults tests/engines/test_faults.py injects: its FAULTS then REJECTED keys, in order."""
    names = []
    for const in ("FAULTS", "REJECTED"):
        node = _constant(ROOT / "tests" / "engines" / "test_faults.py", const)
        if isinstance(node, ast.Dict):
            names += [k.value for k in node.keys if isinstance(k, ast.Constant)]
    return names


def adversarial_examples() -> str:
    """The default example count of the adversarial property test (the string default of its env variable)."""
    node = _constant(ROOT / "tests" / "engines" / "test_adversarial.py", "EXAMPLES")
    defaults = (
        [c.value for c in ast.walk(node) if isinstance(c, ast.Constant) and str(c.value).isdigit()] if node else []
    )
    return defaults[-1] if defaults else "several"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "reliability.md"))
    args = parser.parse_args()
    files = [f for f in FILES if (ROOT / f).is_file()]
    with tempfile.TemporaryDirectory() as tmp:
        xml = Path(tmp) / "junit.xml"
        cmd = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            f"--junitxml={xml}",
            "-k",
            SELECT,
            *files,
        ]
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        tree = ET.parse(xml)
    rows: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    names = fault_names()
    by_fault = {n: {"passed": 0, "failed": 0, "skipped": 0, "how": set()} for n in names}
    for case in tree.iter("testcase"):
        module = case.get("classname", "").rsplit(".", 1)[-1]
        func, _, param = case.get("name", "").partition("[")
        outcome = (
            "failed"
            if case.find("failure") is not None or case.find("error") is not None
            else "skipped"
            if case.find("skipped") is not None
            else "passed"
        )
        rows[(module, func)][outcome] += 1
        fault = next(
            (
                n
                for n in sorted(names, key=len, reverse=True)
                if param.startswith(f"fault-{n}-") or param == f"fault-{n}]"
            ),
            None,
        )
        if fault:
            by_fault[fault][outcome] += 1
            by_fault[fault]["how"].add(func.removeprefix("test_").replace("_", " "))
    paths = {Path(f).stem: ROOT / f for f in files}
    docs = {m: docstrings(paths[m]) for m in {m for m, _ in rows}}
    total = defaultdict(int)
    lines = [
        "# Reliability: faults tried and what happened",
        "",
        "Generated by `scripts/reliability_report.py` from the tests that inject each fault "
        f"({', '.join(f'`{f}`' for f in files)}); do not edit by hand.",
        f"Last generated {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC; pytest exit code {proc.returncode}.",
        "",
        "| fault tried | cases | passed | failed | skipped | test |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for (module, func), counts in sorted(rows.items()):
        n = sum(counts.values())
        for k, v in counts.items():
            total[k] += v
        lines.append(
            f"| {docs[module].get(func, func)} | {n} | {counts['passed']} | {counts['failed']} | {counts['skipped']} | "
            f"`{module}::{func}` |"
        )
    lines += [
        "",
        f"Total: {sum(total.values())} cases, {total['passed']} passed, {total['failed']} failed, {total['skipped']} skipped.",
        "",
    ]
    tried = [n for n in names if by_fault[n]["how"]]
    if tried:
        lines += [
            "## Provider faults, one by one",
            "",
            "Each fault is served by a local Gemini-compatible stub to the real `langchain-google-genai` client.",
            "",
            "| provider fault | cases | passed | failed | tried as |",
            "|---|---:|---:|---:|---|",
        ]
        for name in tried:
            c = by_fault[name]
            lines.append(
                f"| {name} | {c['passed'] + c['failed'] + c['skipped']} | {c['passed']} | {c['failed']} | "
                f"{'; '.join(sorted(c['how']))} |"
            )
        lines.append("")
    lines += [
        f"The adversarial property test counts as one case above; each run plays {adversarial_examples()} "
        "hypothesis examples (seeds) plus pinned ones, and `RESEARCH_ADVERSARIAL_EXAMPLES=N` plays more.",
        "",
    ]
    Path(args.out).write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {args.out}: {sum(total.values())} cases, {total['failed']} failed")
    sys.exit(1 if total["failed"] else 0)


if __name__ == "__main__":
    main()
