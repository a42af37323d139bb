"""The contract folders ship inside the wheel, so an installed (non-editable) harness works anywhere."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    pytest.importorskip("hatchling")
    dist = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(dist), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    wheel = next(dist.glob("research_harness-*.whl"))
    target = tmp_path_factory.mktemp("site")
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return wheel, target


def test_wheel_bundles_agents_schemas_and_template(installed):
    wheel, _ = installed
    names = zipfile.ZipFile(wheel).namelist()
    for role in ("planner", "researcher", "analyst", "writer", "reviewer"):
        assert f"harness/_bundled/agents/{role}.md" in names
    assert "harness/_bundled/schemas/plan.schema.json" in names
    assert "harness/_bundled/schemas/examples/plan.json" in names
    assert "harness/_bundled/workspace_template/README.md" in names
    assert any(n.startswith("harness/_bundled/workspace_template/source-cards/") for n in names)
    for asset in ("index.html", "serve.js", "serve.css"):  # `research serve`'s page, no build step
        assert f"harness/surfaces/serve/static/{asset}" in names


def test_installed_harness_runs_from_an_unrelated_directory(installed, built_ws, tmp_path):
    _, target = installed
    env = {**os.environ, "PYTHONPATH": str(target)}
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "import harness, harness.contract.resources as r; print(harness.__file__); print(r.schemas_dir())",
        ],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    module_file, schemas = probe.stdout.split()
    assert module_file.startswith(str(target)) and "_bundled" in schemas
    help_ = subprocess.run(
        [sys.executable, "-m", "harness", "--help"], cwd=elsewhere, env=env, capture_output=True, text=True
    )
    assert help_.returncode == 0 and "validate" in help_.stdout
    result = subprocess.run(
        [sys.executable, "-m", "harness", "validate", str(built_ws.root)],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
