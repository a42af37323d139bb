"""An optional extra that is not installed is named in one line, with its install command, before any work.

`harness.errors.require_extra` is the one check; each command that needs an extra calls it (or, where a module can
also fail while importing, `extra_missing` formats the same line). A module is hidden by `sys.modules[name] = None`,
which makes both `find_spec` and `import` fail as if it were absent.
"""

from __future__ import annotations

import sys

import pytest

from harness.errors import EXIT_USAGE, UsageError, extra_missing, install_hint, module_installed, require_extra


def test_an_installed_module_passes_and_a_missing_one_is_named_with_its_install_command(monkeypatch):
    require_extra("research serve", "serve", ("json", "os.path"))
    monkeypatch.setitem(sys.modules, "uvicorn", None)
    with pytest.raises(UsageError) as caught:
        require_extra("research serve", "serve", ("json", "uvicorn", "no_such_package.sub"))
    line = str(caught.value)
    assert line == (
        "research serve needs the 'serve' extra (uvicorn, no_such_package.sub missing): "
        "pip install 'research-harness[serve]'"
    )
    assert caught.value.exit_code == EXIT_USAGE


def test_a_dotted_name_whose_parent_is_missing_is_not_installed():
    assert module_installed("json.decoder")
    assert not module_installed("no_such_package.sub")
    assert not module_installed("no_such_package")


def test_every_message_ends_with_the_same_install_command():
    assert install_hint("web") == "pip install 'research-harness[web]'"
    line = str(extra_missing("--format pdf", "export", "weasyprint"))
    assert line.endswith(install_hint("export")) and "--format pdf" in line and "weasyprint" in line


def test_research_serve_without_its_extra_exits_2_in_one_line(monkeypatch, capsys, tmp_path):
    from harness.surfaces import cli

    monkeypatch.setitem(sys.modules, "sse_starlette", None)
    monkeypatch.setattr(sys, "argv", ["research", "serve", "--runs-dir", str(tmp_path / "runs"), "--port", "0"])
    with pytest.raises(SystemExit) as exited:
        cli.main()
    assert exited.value.code == EXIT_USAGE
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "research serve needs the 'serve' extra (sse_starlette missing)" in err
    assert err.endswith(install_hint("serve"))
    assert not (tmp_path / "runs").exists()


def test_mcp_servers_in_research_yaml_without_the_mcp_extra_are_refused_at_config(monkeypatch):
    from harness.orchestrator.config import check_mcp_installed

    check_mcp_installed()  # installed here (dev extra)
    monkeypatch.setitem(sys.modules, "mcp", None)
    with pytest.raises(UsageError, match=r"^research.yaml mcp needs the 'mcp' extra \(mcp missing\)"):
        check_mcp_installed()


def test_a_literature_provider_without_its_client_or_the_bibliography_renderer_is_refused_at_config(
    monkeypatch, tmp_path
):
    from harness.orchestrator.config import build_config

    question = "How do replicated state machines elect a leader?"
    build_config(question, runs_dir=str(tmp_path), web=True, search="arxiv,openalex")  # installed (dev extra)
    monkeypatch.setitem(sys.modules, "citeproc", None)
    with pytest.raises(UsageError, match=r"^--search arxiv,openalex needs the 'papers' extra \(citeproc missing\)"):
        build_config(question, runs_dir=str(tmp_path), web=True, search="arxiv,openalex")
    monkeypatch.setitem(sys.modules, "pyalex", None)
    with pytest.raises(
        UsageError, match=r"^--search openalex: its client is not installed: pip install 'research-harness\[papers\]'$"
    ):
        build_config(question, runs_dir=str(tmp_path), web=True, search="arxiv,openalex")


def test_the_bibtex_export_without_pybtex_is_named_in_one_line(monkeypatch):
    from harness.evidence.bibliography import bibtex

    monkeypatch.setitem(sys.modules, "pybtex", None)
    with pytest.raises(UsageError, match=r"^--format bibtex needs the 'papers' extra \(pybtex missing\)"):
        bibtex([{"id": "src-000000000001", "type": "article", "title": "T"}])
