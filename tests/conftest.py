"""Shared fixtures: a small, valid workspace built only through the workspace API, corpora, an isolated environment.

The data and builders behind them live in `fakes/` (tests import them as `fakes.workspaces`, ...).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

from fakes.workspaces import (
    CARD_ID,
    CLAIMS,
    DRAFT,
    SOURCE_ID,
    SOURCE_TEXT,
    make_card,
    make_plan,
    source_record,
    write_fixture_corpus,
)
from harness.contract.formats import sha256_text
from harness.contract.policy import TOOLS
from harness.contract.specs import load_default_specs
from harness.workspace.store import Workspace

# Property tests draw the same examples on every run (derandomized, no example database), so a clean clone's CI
# result depends only on the commit: a strategy bug found by a new random draw once turned CI red at random.
# `HYPOTHESIS_PROFILE=explore make test` draws new examples (and remembers failures in .hypothesis/) to hunt for bugs.
settings.register_profile("repeatable", derandomize=True, database=None, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


@pytest.fixture(scope="session")
def specs():
    return load_default_specs()


@pytest.fixture
def runs_dir(tmp_path: Path) -> Path:
    d = tmp_path / "runs"
    d.mkdir()
    return d


@pytest.fixture
def built_ws(runs_dir: Path, specs) -> Workspace:
    """A complete small workspace: plan, one source, one card, claims, a draft and its review."""
    ws = Workspace.create(runs_dir, "How does asyncio.TaskGroup handle failures?")
    ws.write("plan.json", make_plan(), specs["planner"].policy)
    ws.write(f"sources/{SOURCE_ID}.txt", SOURCE_TEXT, TOOLS)
    ws.write(f"sources/{SOURCE_ID}.json", source_record(), TOOLS)
    ws.write(f"source-cards/{CARD_ID}.json", make_card(), specs["researcher"].policy)
    ws.write("claims.json", CLAIMS, specs["analyst"].policy)
    ws.write("drafts/draft-1.md", DRAFT, specs["writer"].policy)
    review = {
        "draft": "drafts/draft-1.md",
        "draft_sha256": sha256_text(DRAFT),
        "verdict": "pass",
        "defects": [],
        "reviewed_by": {"role": "reviewer", "engine": "offline", "model": None},
    }
    ws.write("reviews/review-1.json", review, specs["reviewer"].policy)
    return ws


@pytest.fixture
def fixture_corpus(tmp_path: Path) -> Path:
    return write_fixture_corpus(tmp_path / "corpus")


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path_factory, monkeypatch):
    """No test sees a real API key or the user's cache, and no proxy sits between a client and 127.0.0.1
    (httpx and requests honour the proxy variables)."""
    for key in ("GOOGLE_API_KEY", "GEMINI_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY") + PROXY_VARIABLES:
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("RESEARCH_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))
