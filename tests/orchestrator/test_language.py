"""`--language CODE`: the llm roles are told to write in it, quotes stay verbatim, support is judged
without the word-overlap screen, and the offline engine says in one line that it writes English.

The pipeline test drives every role on scripted models (tests/fakes/scripted.py), which record
every message they were sent: the language rule must reach each role's brief.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from langchain_core.messages import HumanMessage

from fakes.scripted import role_policies, scripted_models
from fakes.workspaces import ASYNCIO_DOCS, write_docs
from harness.contract.language import judges_overlap, language_rule
from harness.contract.specs import ROLES
from harness.errors import UsageError
from harness.evidence.checks import draft_defects
from harness.evidence.support import supports
from harness.orchestrator.config import build_config, offline_language_note
from harness.orchestrator.lifecycle import start_run
from harness.workspace.validate import validate_workspace

QUESTION = "How do failures propagate in asyncio task groups, timeouts and gather?"


@pytest.fixture(autouse=True)
def _offline_env(tmp_path, monkeypatch):
    monkeypatch.setenv("RESEARCH_CACHE_DIR", str(tmp_path / "cache"))
    for key in ("GOOGLE_API_KEY", "GEMINI_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI"):
        monkeypatch.delenv(key, raising=False)


def _briefs(model) -> list[str]:
    return [str(m.content) for msgs in model.calls for m in msgs if isinstance(m, HumanMessage)]


@pytest.mark.parametrize("language", ["fr", "en"])
def test_language_reaches_every_llm_role_and_quotes_stay_verbatim(tmp_path, language):
    corpus = write_docs(tmp_path / "corpus", ASYNCIO_DOCS)
    models = scripted_models(role_policies(n_research=2))
    cfg = build_config(
        QUESTION,
        corpus=str(corpus),
        runs_dir=str(tmp_path / "runs"),
        engine="llm",
        model="scripted:fake",
        yes=True,
        language=language,
    )
    result = start_run(cfg, models=models)
    assert result.status == "completed", result.reason
    run = result.run_dir
    assert json.loads((run / "run.json").read_text())["config"]["language"] == language
    rule = language_rule("fr")
    for role in ROLES:
        briefs = _briefs(models[role])
        assert briefs, f"{role} was never called"
        if language == "fr":
            assert all(rule in b for b in briefs), f"the {role}'s brief lacks the language rule"
        else:
            assert not any("## Report language" in b for b in briefs)
    cards = [json.loads(p.read_text()) for p in sorted((run / "source-cards").glob("*.json"))]
    assert cards
    for card in cards:  # the evidence is the source's own text at its span, never a translation
        snapshot = (run / f"sources/{card['source_id']}.txt").read_text(encoding="utf-8")
        assert snapshot[card["span"]["start"] : card["span"]["end"]] == card["quote"]
    assert validate_workspace(run) == []


def test_support_is_judged_without_word_overlap_in_another_language(built_ws):
    evidence = "The first time any of the tasks belonging to the group fails, the remaining tasks are cancelled."
    french = "Quand une tâche échoue, le groupe annule toutes les autres tâches."
    assert not supports(french, evidence)
    assert supports(french, evidence, words=False)
    assert not supports("Le groupe annule 3 tâches.", evidence, words=False)  # figures still must be in evidence
    assert judges_overlap("en") and judges_overlap("en-GB") and not judges_overlap("fr")

    draft = f"# Échecs\n\n{french} [@C1].\n"
    codes = {d["code"] for d in draft_defects(built_ws.reader(), "drafts/draft-9.md", text=draft)}
    assert "citation_not_supporting" in codes  # an English run keeps the overlap screen
    built_ws.update_manifest(lambda m: m["config"].__setitem__("language", "fr"))
    codes = {d["code"] for d in draft_defects(built_ws.reader(), "drafts/draft-9.md", text=draft)}
    assert "citation_not_supporting" not in codes


def test_the_offline_engine_says_it_writes_english_in_one_line(tmp_path):
    cfg = build_config(QUESTION, runs_dir=str(tmp_path / "runs"), language="de")
    note = offline_language_note(cfg)
    assert note and "\n" not in note and "English" in note and "de" in note
    assert offline_language_note(build_config(QUESTION, runs_dir=str(tmp_path / "runs"))) is None
    with pytest.raises(UsageError, match="--language"):
        build_config(QUESTION, language="French!")
    with pytest.raises(UsageError, match="language"):
        build_config(QUESTION, config_data={"language": "Fr"})
    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "harness.surfaces.cli",
            "run",
            QUESTION,
            "--language",
            "xx_YY",
            "--runs-dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1 and "--language" in bad.stderr
