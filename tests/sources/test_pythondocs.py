"""The built-in python-docs corpus: real content, deterministic, built without importing anything, and the same
whatever extra distributions are installed (those only with `python-docs+packages`)."""

from __future__ import annotations

import json
import os
import re
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


@pytest.fixture(scope="module")
def with_packages() -> dict[str, tuple[str, str]]:
    return {path: (title, text) for path, title, text in python_docs_documents(packages=True)}


def fake_distribution(folder: Path, name: str = "fake_extra") -> Path:
    """A distribution as pip leaves it on sys.path: a `.dist-info` folder with METADATA and a README body."""
    info = folder / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\nSummary: asyncio TaskGroup and gather helpers\n\n"
        "# fake extra\n\nThe fake extra package says how asyncio.TaskGroup and asyncio.gather differ in error "
        "handling and cancellation: a TaskGroup cancels every remaining task when one task raises an error, and "
        "gather with return_exceptions keeps the other tasks running after an error.\n",
        encoding="utf-8",
    )
    return folder


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


def test_the_default_corpus_holds_no_installed_distribution(by_path):
    assert not [p for p in by_path if p.startswith("dist/")]
    assert {p.split("/", 1)[0] for p in by_path} == {"topics", "stdlib"}


def test_installed_distributions_only_with_packages(with_packages):
    by_path = with_packages
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


def test_an_extra_distribution_changes_nothing_but_python_docs_plus_packages(tmp_path, monkeypatch, docs):
    before_fingerprint = python_docs_fingerprint()
    monkeypatch.syspath_prepend(str(fake_distribution(tmp_path / "site")))
    assert python_docs_documents() == docs
    assert python_docs_fingerprint() == before_fingerprint
    assert "dist/fake-extra" in {p for p, _, _ in python_docs_documents(packages=True)}


_VOLATILE = re.compile(r"\b(?:run-[\w-]+|\d{4}-\d\d-\d\dT[\d:.]+Z?|\d{8}T\d{6}Z?[\w-]*|S\d{3,}|src-[0-9a-f]+)\b")


def _main_job_report(tmp_path: Path, extra_site: Path | None) -> str:
    """The README's main job (`make run`) in a fresh interpreter with its own index cache, optionally with an extra
    distribution on sys.path; the final report with ids and times masked."""
    question = re.search(r"^QUESTION \?= (.+)$", (ROOT / "Makefile").read_text(encoding="utf-8"), re.M).group(1)
    env_path = f"{extra_site}" if extra_site else ""
    probe = (
        "import json, sys, harness\n"
        "r = harness.run(sys.argv[1], corpus='python-docs', runs_dir=sys.argv[2], yes=True)\n"
        "print(json.dumps([r.status, str(r.run_dir)]))\n"
    )
    env = dict(os.environ, RESEARCH_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=env_path)
    result = subprocess.run(
        [sys.executable, "-c", probe, question, str(tmp_path / "runs")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    status, run_dir = json.loads(result.stdout.strip().splitlines()[-1])
    assert status == "completed"
    return _VOLATILE.sub("<id>", (Path(run_dir) / "final-report.md").read_text(encoding="utf-8"))


def test_the_main_jobs_report_is_the_same_with_another_distribution_installed(tmp_path):
    plain = _main_job_report(tmp_path / "a", None)
    extra = _main_job_report(tmp_path / "b", fake_distribution(tmp_path / "site"))
    assert "fake extra" not in extra.lower() and "fake-extra" not in extra
    assert plain == extra


# --- documentation structure: which name a shared text goes by, which modules are deprecated ------------------


def test_a_text_several_help_keys_share_is_named_after_the_key_its_heading_names():
    from harness.sources.pythondocs import _named_key

    assert _named_key('The "if" statement', ["else", "if"]) == "if"
    assert _named_key("Integer literals", ["numbers", "integers"]) == "integers"  # no key named: the first in order
    assert _named_key("Whatever", ["only"]) == "only"


def test_every_topic_document_is_found_under_the_key_its_heading_names(by_path):
    from pydoc_data.topics import topics

    for text in topics.values():
        shared = [k for k, t in topics.items() if t == text]
        heading = text.strip().split("\n", 1)[0].lower()
        named = [k for k in shared if re.search(rf"(?<![\w-]){re.escape(k)}(?![\w-])", heading)]
        if len(shared) > 1 and named:
            assert f"topics/{named[0]}" in by_path
            assert not {f"topics/{k}" for k in shared if k not in named} & set(by_path)


def _warns(source: str, module: str = "old") -> str | None:
    import ast

    from harness.sources.pythondocs import _deprecation

    return _deprecation(ast.parse(source), module)


def test_a_module_that_warns_on_import_says_so_in_the_warnings_own_words():
    assert _warns("import warnings\nwarnings._deprecated(__name__, remove=(3, 13))") == (
        "'old' is deprecated and slated for removal in Python 3.13"
    )
    msg = "_MSG = 'The {name} module is deprecated; use new.'\nwarnings._deprecated(__name__, _MSG, remove=(3, 12))"
    assert _warns(msg) == "The old module is deprecated; use new."
    assert _warns("warnings.warn(f'module {__name__!r} is deprecated', DeprecationWarning, stacklevel=2)") == (
        "module 'old' is deprecated"
    )
    assert _warns("import warnings\nwarnings.warn('Use new instead', DeprecationWarning)") == "Use new instead"


@pytest.mark.parametrize(
    "source",
    [
        "import warnings\nwarnings.warn('soon', PendingDeprecationWarning)",  # not deprecated yet
        "import warnings\ndef f():\n    warnings.warn('old f', DeprecationWarning)",  # one function, not the module
        "import warnings\nwarnings.warn('careful', RuntimeWarning)",
        '"""A module."""\nx = 1',
    ],
)
def test_a_module_that_does_not_warn_it_is_deprecated_is_not(source):
    assert _warns(source) is None


def test_a_deprecated_module_and_the_modules_of_a_deprecated_package_say_so_after_their_docstring(by_path):
    from harness.sources.pythondocs import DEPRECATED, deprecated

    marked = {path for path, (_, text) in by_path.items() if deprecated(text)}
    assert marked, "this Python's standard library deprecates some module"
    for path in marked:
        text = by_path[path][1]
        head = re.split(r"^(?:async def|def|class) ", text, maxsplit=1, flags=re.M)[0]
        assert re.search(rf"^{DEPRECATED}\S.*\.$", head, re.M)
    for path in by_path:  # a module of a deprecated package is deprecated with it
        package = path.split(".", 1)[0]
        if package != path and package in marked:
            assert path in marked
    assert not deprecated(by_path["topics/with"][1])
    assert not any(deprecated(text) for path, (_, text) in by_path.items() if path.startswith("topics/"))
