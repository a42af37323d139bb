"""docs/architecture.md maps each invariant and concern to the place that holds it: every module it names exists,
and every name it gives in a module (`path/module.py` `name`, or `dir/module.name`) is defined there, so a split or a
rename that leaves the map pointing at nothing fails here rather than misleading a newcomer."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
SEARCHED = ("harness", "tests", "bench", "scripts")


@cache
def modules() -> dict[str, set[str]]:
    """Every Python module of the repository (posix path from the root) with the names it defines at any depth:
    functions, classes, assigned names and what it imports (a package's `__init__` re-exports)."""
    out: dict[str, set[str]] = {}
    for top in SEARCHED:
        for path in (ROOT / top).rglob("*.py"):
            names: set[str] = set()
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    names.add(node.name)
                elif isinstance(node, ast.Assign):
                    names.update(t.id for t in node.targets if isinstance(t, ast.Name))
                elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                    names.add(node.target.id)
                elif isinstance(node, ast.ImportFrom):
                    names.update(a.asname or a.name for a in node.names)
            out[path.relative_to(ROOT).as_posix()] = names
    return out


def files_named(ref: str) -> list[str]:
    """The modules a reference such as `offline/ranking.py` or `harness/errors.py` can mean."""
    return [m for m in modules() if m == ref or m.endswith("/" + ref)]


def test_every_module_the_map_names_exists():
    missing = sorted({ref for ref in re.findall(r"`([\w/]+\.py)`", DOC.read_text()) if not files_named(ref)})
    assert not missing, f"docs/architecture.md names modules that do not exist: {missing}"


def test_every_name_the_map_places_in_a_module_is_defined_there():
    doc = DOC.read_text()
    pairs = re.findall(r"`([\w/]+\.py)` `(\w+)", doc)  # `orchestrator/config.py` `check_dollar_budget`
    pairs += [(f"{mod}.py", name) for mod, name in re.findall(r"`(\w+/[\w/]+)\.(\w+)", doc) if name != "py"]
    assert len(pairs) > 50  # the map places many names; a regex that stopped matching would pass vacuously
    wrong = sorted(
        f"{ref} {name}"
        for ref, name in pairs
        if (hits := files_named(ref)) and not any(name in modules()[h] for h in hits)
    )
    assert not wrong, f"docs/architecture.md places names where they are not defined: {wrong}"
