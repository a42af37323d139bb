"""The built-in python-docs corpus: real content, deterministic, and built without importing anything."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harness.sources.pythondocs import python_docs_documents, python_docs_fingerprint

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def docs() -> list[tuple[str, str, str]]:
    return python_docs_documents()


@pytest.fixture(scope="module")
def by_path(docs) -> dict[str, tuple[str, str]]:
    return {path: (title, text) for path, title, text in docs}


def test_shape_sorted_and_unique(docs):
    paths = [path for path, _, _ in docs]
    assert paths == sorted(paths)
    assert len(paths) == len(set(paths))
    for path, title, text in docs:
        assert isinstance(title, str) and title and isinstance(text, str) and text.strip()
        assert "\r" not in text
        assert path.split("/", 1)[0] in {"topics", "stdlib", "dist"}


def test_deterministic(docs):
    assert python_docs_documents() == docs


def test_language_reference_topics(by_path):
    title, text = by_path["topics/with"]
    assert title.startswith("Python reference:") and "with" in title
    assert "context manager" in text and "__enter__" in text


def test_stdlib_taskgroups_has_class_and_signatures(by_path):
    title, text = by_path["stdlib/asyncio.taskgroups"]
    assert "asyncio.taskgroups" in title
    assert "class TaskGroup" in text
    assert "def TaskGroup.create_task(self, coro, *, name=None, context=None)" in text


def test_stdlib_tasks_documents_gather(by_path):
    _, text = by_path["stdlib/asyncio.tasks"]
    assert "def gather(*coros_or_futures, return_exceptions=False)" in text
    assert "return_exceptions" in text.split("def gather(", 1)[1]


def test_packages_and_skipped_folders(by_path):
    assert "stdlib/asyncio" in by_path  # asyncio/__init__.py
    stdlib = [p for p in by_path if p.startswith("stdlib/")]
    for path in stdlib:
        parts = path.removeprefix("stdlib/").split(".")
        assert not {"test", "tests", "idlelib", "lib2to3", "turtledemo", "site-packages"} & set(parts), path
        assert all(not p.startswith("_") for p in parts if p != "__future__"), path


def test_installed_distributions(by_path):
    dists = [p for p in by_path if p.startswith("dist/")]
    assert dists
    assert "dist/pytest" in by_path  # the test runner itself is always installed
    title, text = by_path["dist/pytest"]
    assert title.startswith("pytest ") and title.endswith("(package description)")
    assert len(text) > 200
    assert all(p == p.lower() and "_" not in p and "." not in p for p in dists)  # PEP 503 names


def test_building_imports_and_runs_nothing():
    """In a fresh interpreter, so modules other tests imported cannot hide or fake the result."""
    probe = (
        "import sys\n"
        "assert 'antigravity' not in sys.modules and 'this' not in sys.modules\n"
        "from harness.sources.pythondocs import python_docs_documents\n"
        "docs = python_docs_documents()\n"
        "assert any(p == 'stdlib/antigravity' for p, _, _ in docs)\n"
        "assert 'antigravity' not in sys.modules and 'this' not in sys.modules, 'imported'\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""  # `import this` would have printed the Zen of Python


def test_fingerprint_stable():
    first = python_docs_fingerprint()
    assert first == python_docs_fingerprint()
    assert len(first) == 64 and int(first, 16) >= 0
