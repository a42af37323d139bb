"""The offline engine's meaning model is an explicit choice (`RESEARCH_MEANING`), never what happens to be installed.

`python-docs` must answer the same on every machine with the same Python (issue 23), so the default is WordLlama
whether or not the `meaning` extra is installed; `minilm` without the extra is refused in one line before any work;
a run records its model in run.json and continues only with it.
"""

from __future__ import annotations

import json
import sys

import pytest

from harness.contract.meaning import DEFAULT_MEANING, MEANING_ENV, MINILM, WORDLLAMA, chosen_meaning
from harness.engines.offline import semantic
from harness.errors import EXIT_USAGE, UsageError, install_hint
from harness.orchestrator.config import build_config, config_from_snapshot


def test_the_default_is_wordllama_even_where_minilm_is_installed(monkeypatch):
    monkeypatch.delenv(MEANING_ENV, raising=False)
    monkeypatch.setattr("harness.errors.module_installed", lambda name: True)  # the extra looks installed
    assert chosen_meaning() == DEFAULT_MEANING == WORDLLAMA
    assert not semantic.sentence_encoder()
    assert build_config("What does bisect.insort do?").snapshot()["meaning"] == WORDLLAMA


def test_minilm_is_chosen_by_the_environment_and_recorded(monkeypatch):
    monkeypatch.setenv(MEANING_ENV, MINILM)
    monkeypatch.setattr("harness.errors.module_installed", lambda name: True)
    assert semantic.sentence_encoder()
    assert build_config("What does bisect.insort do?").snapshot()["meaning"] == MINILM


def test_an_unknown_name_is_refused_with_the_valid_ones(monkeypatch):
    monkeypatch.setenv(MEANING_ENV, "bert")
    with pytest.raises(UsageError, match=rf"^{MEANING_ENV}=bert: choose one of wordllama, minilm$"):
        build_config("What does bisect.insort do?")


def test_minilm_without_its_extra_exits_2_in_one_line_and_writes_nothing(monkeypatch, capsys, tmp_path):
    from harness.surfaces import cli

    monkeypatch.setenv(MEANING_ENV, MINILM)
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    runs = tmp_path / "runs"
    monkeypatch.setattr(
        sys, "argv", ["research", "run", "What does bisect.insort do?", "--yes", "--runs-dir", str(runs)]
    )
    with pytest.raises(SystemExit) as exited:
        cli.main()
    assert exited.value.code == EXIT_USAGE
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert f"{MEANING_ENV}={MINILM} needs the 'meaning' extra (sentence_transformers" in err
    assert err.endswith(install_hint("meaning"))
    assert not runs.exists()


def test_a_run_continues_only_with_the_model_it_began_with(monkeypatch):
    monkeypatch.delenv(MEANING_ENV, raising=False)
    snapshot = json.loads(json.dumps(build_config("What does bisect.insort do?").snapshot()))
    assert config_from_snapshot("What does bisect.insort do?", snapshot, {}).meaning == WORDLLAMA
    monkeypatch.setenv(MEANING_ENV, MINILM)
    with pytest.raises(UsageError, match=rf"this run began with {MEANING_ENV}=wordllama"):
        config_from_snapshot("What does bisect.insort do?", snapshot, {})


def test_run_json_schema_lists_the_meaning_models():
    from harness.contract.meaning import MEANING_MODELS
    from harness.contract.schemas import schema

    assert tuple(schema("run.schema.json")["properties"]["config"]["properties"]["meaning"]["enum"]) == MEANING_MODELS
