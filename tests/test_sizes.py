"""No function in `harness/` over 80 lines, no module over 600 (issue 41 item 6): a long function is split into
named steps, a long module into modules of one concern each."""

from __future__ import annotations

import ast
from pathlib import Path

HARNESS = Path(__file__).resolve().parents[1] / "harness"
MAX_FUNCTION_LINES = 80
MAX_FILE_LINES = 600


def _functions(tree: ast.AST, prefix: str = ""):
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield prefix + node.name, node.end_lineno - node.lineno + 1
            yield from _functions(node, f"{prefix}{node.name}.")
        elif isinstance(node, ast.ClassDef):
            yield from _functions(node, f"{prefix}{node.name}.")
        else:
            yield from _functions(node, prefix)


def test_no_function_over_80_lines():
    long = []
    for path in sorted(HARNESS.rglob("*.py")):
        rel = path.relative_to(HARNESS).as_posix()
        for name, lines in _functions(ast.parse(path.read_text(encoding="utf-8"))):
            if lines > MAX_FUNCTION_LINES:
                long.append(f"{rel}:{name} ({lines} lines)")
    assert not long, "split into named steps: " + ", ".join(long)


def test_no_module_over_600_lines():
    long = [
        f"{path.relative_to(HARNESS).as_posix()} ({n} lines)"
        for path in sorted(HARNESS.rglob("*.py"))
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_FILE_LINES
    ]
    assert not long, "split into modules of one concern each: " + ", ".join(long)
