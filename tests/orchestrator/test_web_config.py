"""--web's preflight and the fetch settings: flags over research.yaml's `fetch:`, recorded for resume."""

from __future__ import annotations

import sys

import pytest

from harness.errors import UsageError
from harness.orchestrator.config import build_config, config_from_snapshot


def test_flags_go_over_the_fetch_section_and_land_in_the_snapshot(tmp_path):
    data = {"web": True, "fetch": {"robots": False, "cache_ttl": 0, "per_host": 3}}
    cfg = build_config("q?", config_data=data, web_allow_private=True, engine="offline", runs_dir=str(tmp_path))
    assert cfg.fetch == {"robots": False, "cache_ttl": 0, "per_host": 3, "allow_private": True}
    cfg = build_config("q?", config_data=data, web_robots=True, engine="offline", runs_dir=str(tmp_path))
    assert cfg.fetch["robots"] is True and "allow_private" not in cfg.fetch
    again = config_from_snapshot("q?", cfg.snapshot(), cfg.budget)
    assert again.fetch == cfg.fetch and again.web


def test_a_bad_fetch_key_is_one_line_naming_the_field(tmp_path):
    with pytest.raises(UsageError, match=r"config: field /fetch.*per_hosts"):
        build_config("q?", config_data={"fetch": {"per_hosts": 2}}, runs_dir=str(tmp_path))
    with pytest.raises(UsageError, match=r"field /fetch/cache_ttl"):
        build_config("q?", config_data={"fetch": {"cache_ttl": -1}}, runs_dir=str(tmp_path))


def test_web_is_refused_at_preflight_when_the_extractor_does_not_import(tmp_path, monkeypatch):
    """As after a fresh install that resolved an lxml without lxml.html.clean: trafilatura is present but does
    not import. The run is refused before any work, in one line naming what to install."""
    monkeypatch.setitem(sys.modules, "lxml.html.clean", None)
    with pytest.raises(UsageError) as err:
        build_config("q?", web=True, engine="offline", runs_dir=str(tmp_path))
    line = str(err.value)
    assert line.startswith("--web: the web tools do not import: lxml.html.clean")
    assert "pip install 'research-harness[web]'" in line and "\n" not in line
    assert not (tmp_path / "runs").exists()


def test_the_cli_takes_the_fetch_flags(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from harness.surfaces import cli

    seen = {}

    def fake_start(cfg, **kw):
        seen["fetch"] = cfg.fetch
        raise SystemExit(0)

    monkeypatch.setattr("harness.orchestrator.lifecycle.start_run", fake_start)
    result = CliRunner().invoke(
        cli.app,
        ["run", "q?", "--web", "--web-allow-private", "--web-ignore-robots", "--runs-dir", str(tmp_path), "--quiet"],
    )
    assert result.exit_code == 0, result.output
    assert seen["fetch"] == {"allow_private": True, "robots": False}
