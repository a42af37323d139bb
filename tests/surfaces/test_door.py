"""The doors into a run, attacked: nothing outside the roots is read, no input takes the server down,
limits hold, and the app needs its token everywhere.

Each symlink the audit of `research serve` planted is planted again here, through every door that
can meet it: a corpus load (the CLI, the Python API, `research serve`), the audit viewer, the raw-file
route, the run's private folder and the runs folder. Non-finite and absurd numbers are sent through
the CLI, research.yaml, the Python API and the app's form; odd requests (a NUL byte, an oversized
question or header, a long Last-Event-ID, random JSON) must get a 4xx, never a 500.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

import harness
from fakes.workspaces import FIXTURE_QUESTION, trace, write_fixture_corpus
from harness.sources.corpus import OUTSIDE, load_corpus
from harness.surfaces.serve.app import ServeSettings, create_app
from harness.surfaces.serve.limits import ServerLimits
from harness.surfaces.serve.request import CorpusRoots
from harness.surfaces.viewer import render_viewer

REPO = Path(__file__).resolve().parents[2]
BASE = "http://127.0.0.1:8000"
CHANGE = {"X-Research-Request": "1"}
SECRET = "The current stable release of ghostlib is version 9.9 and the password is hunter2.\n"


def make_client(tmp_path: Path, runs_dir: Path, **settings) -> TestClient:
    config = ServeSettings(runs_dir, CorpusRoots.parse([str(tmp_path)], tmp_path), tmp_path, **settings)
    return TestClient(create_app(config), base_url=BASE)


def linked_corpus(tmp_path: Path) -> Path:
    """The fixture corpus with a file symlink and a folder symlink to a secret outside it, and one link inside."""
    corpus = write_fixture_corpus(tmp_path / "corpus")
    outside = tmp_path / "outside"
    (outside / "folder").mkdir(parents=True)
    (outside / "secret.md").write_text(SECRET, encoding="utf-8")
    (outside / "folder" / "also-secret.md").write_text(SECRET, encoding="utf-8")
    (corpus / "filelink").mkdir()
    (corpus / "filelink" / "secret.md").symlink_to(outside / "secret.md")
    (corpus / "folderlink").symlink_to(outside / "folder")
    (corpus / "inside.md").symlink_to(corpus / "fastjson" / "overview.md")
    return corpus


def no_secret_in(run_dir: Path) -> None:
    for path in run_dir.rglob("*"):
        if path.is_file():
            assert b"hunter2" not in path.read_bytes(), path


def skipped_and_traced(run_dir: Path) -> None:
    manifest = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    skipped = {s["path"]: s["reason"] for s in manifest["corpus"]["skipped"]}
    assert skipped == {"filelink/secret.md": OUTSIDE, "folderlink": OUTSIDE}
    [event] = [e for e in trace(run_dir) if e.get("decision") == "corpus_files_skipped"]
    assert {f["path"] for f in event["detail"]["files"]} == {"filelink/secret.md", "folderlink"}


# ---- 1. nothing outside the roots is read ---------------------------------------------------------


def test_a_corpus_load_reads_nothing_a_symlink_points_at_outside_the_folder(tmp_path):
    """A file or folder symlink out of a corpus folder is skipped and named; a link inside it is read."""
    warnings: list[str] = []
    corpus = load_corpus(linked_corpus(tmp_path), warn=warnings.append)
    assert not any("hunter2" in d.text for d in corpus.documents)
    assert {s["path"] for s in corpus.skipped} == {"filelink/secret.md", "folderlink"}
    assert len(warnings) == 2 and all(OUTSIDE in w for w in warnings)
    assert corpus.duplicates == 1  # inside.md is read: it is fastjson/overview.md, once


def test_a_symlink_out_of_the_corpus_never_reaches_a_run_through_the_cli(tmp_path):
    """`research run --corpus` over a folder whose file links to a secret: the run never sees it."""
    corpus, runs = linked_corpus(tmp_path), tmp_path / "runs"
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    argv = [sys.executable, "-m", "harness", "run", FIXTURE_QUESTION, "--corpus", str(corpus), "--yes"]
    proc = subprocess.run(
        [*argv, "--runs-dir", str(runs)], env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    assert proc.returncode in (0, 3), proc.stderr
    assert sum(OUTSIDE in line for line in proc.stderr.splitlines()) == 2, proc.stderr
    [run_dir] = [p for p in runs.iterdir() if not p.name.startswith(".")]
    skipped_and_traced(run_dir)
    no_secret_in(run_dir)


def test_a_symlink_out_of_the_corpus_never_reaches_a_run_through_the_python_api(tmp_path):
    result = harness.run(FIXTURE_QUESTION, corpus=linked_corpus(tmp_path), runs_dir=tmp_path / "runs", yes=True)
    assert result.status == "completed", result.reason
    skipped_and_traced(result.run_dir)
    no_secret_in(result.run_dir)


def test_a_symlink_out_of_the_corpus_never_reaches_a_run_started_by_the_app(tmp_path, runs_dir):
    corpus = linked_corpus(tmp_path)
    with make_client(tmp_path, runs_dir) as client:
        res = client.post("/api/runs", json={"question": FIXTURE_QUESTION, "corpus": str(corpus)}, headers=CHANGE)
        assert res.status_code == 201, res.text
        run_id = res.json()["run_id"]
        deadline = time.monotonic() + 120
        while client.get(f"/api/runs/{run_id}").json()["status"] != "awaiting_plan_approval":
            assert time.monotonic() < deadline, client.get(f"/api/runs/{run_id}").json()
            time.sleep(0.2)
        while client.get(f"/api/runs/{run_id}").json()["live"]:
            assert time.monotonic() < deadline
            time.sleep(0.2)
    skipped_and_traced(runs_dir / run_id)
    no_secret_in(runs_dir / run_id)


@pytest.mark.parametrize("planted", ["snapshot", "draft", "trace"])
def test_the_audit_viewer_shows_no_file_a_symlink_in_the_run_points_at(built_ws, tmp_path, planted):
    """A source snapshot, a draft or the trace replaced by a link to an outside file: the viewer shows none of it,
    and the raw-file route refuses the same file."""
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET, encoding="utf-8")
    rel = {
        "snapshot": next(p.relative_to(built_ws.root).as_posix() for p in built_ws.root.glob("sources/*.txt")),
        "draft": "drafts/draft-1.md",
        "trace": "trace.jsonl",
    }[planted]
    (built_ws.root / rel).unlink()
    (built_ws.root / rel).symlink_to(secret)
    assert "hunter2" not in render_viewer(built_ws.root)
    with make_client(tmp_path, built_ws.root.parent) as client:
        page = client.get(f"/runs/{built_ws.run_id}/")
        assert page.status_code == 200 and "hunter2" not in page.text
        raw = client.get(f"/runs/{built_ws.run_id}/{rel}")
        assert raw.status_code == 404 and "hunter2" not in raw.text


def test_a_symlink_into_the_runs_private_folder_is_not_served(built_ws, tmp_path):
    private = built_ws.root / ".harness"
    (private / "notes.md").write_text("private journal hunter2", encoding="utf-8")
    (built_ws.root / "drafts" / "draft-2.md").symlink_to(private / "notes.md")
    (built_ws.root / "private").symlink_to(private)
    assert "hunter2" not in render_viewer(built_ws.root)
    with make_client(tmp_path, built_ws.root.parent) as client:
        for rel in ("drafts/draft-2.md", "private/notes.md", "private/run.lock", ".harness/notes.md"):
            r = client.get(f"/runs/{built_ws.run_id}/{rel}")
            assert r.status_code == 404 and "hunter2" not in r.text, rel
        assert "hunter2" not in client.get(f"/runs/{built_ws.run_id}/").text


def test_a_run_id_shaped_folder_symlink_in_the_runs_folder_is_not_a_run(built_ws, tmp_path):
    """A link in the runs folder, named like a run, to a run folder elsewhere: not listed, not served."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    outside_ws = harness_workspace(elsewhere)
    (outside_ws.root / "secret.md").write_text(SECRET, encoding="utf-8")
    fake_id = built_ws.run_id[:-1] + ("0" if built_ws.run_id[-1] != "0" else "1")
    (built_ws.root.parent / fake_id).symlink_to(outside_ws.root)
    with make_client(tmp_path, built_ws.root.parent) as client:
        assert [r["run_id"] for r in client.get("/api/runs").json()["runs"]] == [built_ws.run_id]
        for path in (
            f"/runs/{fake_id}/",
            f"/runs/{fake_id}/secret.md",
            f"/api/runs/{fake_id}",
            f"/runs/{fake_id}/run.json",
        ):
            r = client.get(path)
            assert r.status_code == 404 and "hunter2" not in r.text, path


@pytest.mark.parametrize("planted", ["snapshot", "draft", "trace", "private"])
def test_the_cli_and_the_python_api_show_no_file_a_symlink_in_the_run_points_at(built_ws, tmp_path, planted):
    """A snapshot, a draft or the trace linked to an outside file, or a draft linked into `.harness/`: `research
    view`, `inspect` and `validate`, `harness.open_run` and the agents' evidence read none of it."""
    from harness.surfaces.agent_door import evidence

    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET, encoding="utf-8")
    (built_ws.root / ".harness" / "notes.md").write_text("private journal hunter2", encoding="utf-8")
    snapshot = next(p.relative_to(built_ws.root).as_posix() for p in built_ws.root.glob("sources/*.txt"))
    rel, target = {
        "snapshot": (snapshot, secret),
        "draft": ("drafts/draft-1.md", secret),
        "trace": ("trace.jsonl", secret),
        "private": ("drafts/draft-1.md", built_ws.root / ".harness" / "notes.md"),
    }[planted]
    (built_ws.root / rel).unlink()
    (built_ws.root / rel).symlink_to(target)
    for command in ("view", "inspect", "validate"):
        proc = research(command, str(built_ws.root), cwd=tmp_path)
        assert proc.returncode in (0, 1) and "hunter2" not in proc.stdout + proc.stderr, (command, proc.stderr)
    assert "hunter2" not in (built_ws.root / "index.html").read_text(encoding="utf-8")
    reader = harness.open_run(built_ws.root)
    assert reader.read_text(rel) is None and reader.read_bytes(rel) is None
    assert "hunter2" not in json.dumps(reader.events()) + json.dumps(evidence(built_ws.root, "C1"))
    if planted == "snapshot":  # the card's quote can no longer be checked against what the link points at
        assert [c["verbatim"] for c in evidence(built_ws.root, "C1")["cards"]] == [False]


def test_a_run_id_shaped_folder_symlink_is_no_run_for_the_agents_door_either(built_ws, tmp_path):
    """`research mcp`'s desk, given the id of a link in its runs folder to a run elsewhere: no such run."""
    from harness.surfaces.agent_door import ArgumentError
    from harness.surfaces.mcp_server.desk import ResearchDesk

    (tmp_path / "elsewhere").mkdir()
    outside_ws = harness_workspace(tmp_path / "elsewhere")
    fake_id = built_ws.run_id[:-1] + ("0" if built_ws.run_id[-1] != "0" else "1")
    (built_ws.root.parent / fake_id).symlink_to(outside_ws.root)
    desk = ResearchDesk(built_ws.root.parent, CorpusRoots.parse([str(tmp_path)], tmp_path), tmp_path, "tester")
    try:
        assert desk.status(built_ws.run_id)["run_id"] == built_ws.run_id
        with pytest.raises(ArgumentError, match="no such run"):
            desk.status(fake_id)
    finally:
        desk.close()


def harness_workspace(runs: Path):
    from harness.workspace.store import Workspace

    return Workspace.create(runs, "What is elsewhere?")


# ---- 2. no input takes the server down --------------------------------------------------------------


def research(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    argv = [sys.executable, "-m", "harness", *args]
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120, cwd=cwd, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("value", ["nan", "inf", "1e999", "-inf", "9999999999"])
def test_a_non_finite_or_absurd_budget_on_the_command_line_is_refused_in_one_line(tmp_path, fixture_corpus, value):
    runs = tmp_path / "runs"
    proc = research(
        "run", "q?", "--corpus", str(fixture_corpus), "--runs-dir", str(runs), "--budget-seconds", value, cwd=tmp_path
    )
    assert proc.returncode == 2
    [line] = proc.stderr.strip().splitlines()
    assert line.startswith("research: error: --budget-seconds ") and "from 0 to 2592000" in line, line
    assert not runs.exists() or not any(runs.iterdir())


@pytest.mark.parametrize(
    ("yaml_text", "flag"),
    [
        ("concurrency: 100000\n", "concurrency"),
        ("max_revisions: 1e9\n", "max_revisions"),
        ("budget: {wall_seconds: .nan}\n", "--budget-seconds"),
        ("budget: {wall_seconds: .inf}\n", "wall_seconds"),
        ("budget: {tokens: 100000000000000}\n", "tokens"),
    ],
)
def test_absurd_numbers_in_research_yaml_are_refused_naming_the_field(tmp_path, fixture_corpus, yaml_text, flag):
    (tmp_path / "research.yaml").write_text(yaml_text, encoding="utf-8")
    proc = research("run", "q?", "--corpus", str(fixture_corpus), "--runs-dir", str(tmp_path / "runs"), cwd=tmp_path)
    assert proc.returncode == 2
    [line] = proc.stderr.strip().splitlines()
    assert line.startswith("research: error: ") and flag in line, line


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"budget": {"wall_seconds": float("nan")}}, "--budget-seconds nan"),
        ({"budget": {"llm_calls": float("inf")}}, "--budget-llm-calls inf"),
        ({"concurrency": 100000}, "--concurrency 100000"),
        ({"max_revisions": 10**9}, "--max-revisions 1000000000"),
        ({"budget": [1, 2]}, "budget: expected an object"),
    ],
)
def test_absurd_numbers_through_the_python_api_are_refused_before_any_work(tmp_path, fixture_corpus, kwargs, message):
    runs = tmp_path / "runs"
    with pytest.raises(harness.HarnessError, match="^" + message.replace("[", r"\[")):
        harness.run("q?", corpus=fixture_corpus, runs_dir=runs, **kwargs)
    assert not runs.exists() or not any(runs.iterdir())


def test_a_nul_byte_in_a_corpus_path_is_refused_in_one_line_through_the_python_api(tmp_path, fixture_corpus):
    runs = tmp_path / "runs"
    with pytest.raises(harness.HarnessError, match=r"^--corpus: .* holds a NUL byte"):
        harness.run("What is fastjson?", corpus=f"{fixture_corpus}\x00/../x", runs_dir=runs)
    assert not runs.exists() or not any(runs.iterdir())


def test_absurd_numbers_in_a_langgraph_server_request_are_refused(tmp_path, fixture_corpus):
    from harness.surfaces.langgraph_server import _config_from_request

    req = {"question": "q?", "corpus": str(fixture_corpus), "runs_dir": str(tmp_path / "runs")}
    with pytest.raises(harness.HarnessError, match="^--budget-seconds inf"):
        _config_from_request({**req, "budget": {"wall_seconds": float("inf")}})
    with pytest.raises(harness.HarnessError, match="^--concurrency 100000"):
        _config_from_request({**req, "concurrency": 100000})


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ('{"question": "q?", "budget": {"wall_seconds": NaN}}', "budget.wall_seconds"),
        ('{"question": "q?", "budget": {"wall_seconds": Infinity}}', "budget.wall_seconds"),
        ('{"question": "q?", "budget": {"tokens": 1e999}}', "budget.tokens"),
        ('{"question": "q?", "concurrency": 100000}', "concurrency"),
        ('{"question": "q?", "max_revisions": 1000000000}', "max_revisions"),
        ('{"question": "q?", "corpus": "docs\\u0000/../x"}', "corpus"),
        ('{"question": "q?\\u0000"}', "question"),
    ],
)
def test_absurd_numbers_and_nul_bytes_from_the_app_get_a_400_beside_their_field(tmp_path, runs_dir, raw, field):
    with make_client(tmp_path, runs_dir) as client:
        r = client.post("/api/runs", content=raw, headers={**CHANGE, "Content-Type": "application/json"})
        assert r.status_code == 400 and r.json()["field"] == field, r.text
        assert "\n" not in r.json()["error"]
    assert list(runs_dir.iterdir()) == []


def test_a_raise_at_resume_must_be_finite_too(tmp_path, built_ws):
    from harness.orchestrator.lifecycle import raise_budget

    with make_client(tmp_path, built_ws.root.parent) as client:
        raw = '{"budget": {"wall_seconds": Infinity}}'
        r = client.post(f"/api/runs/{built_ws.run_id}/resume", content=raw, headers=CHANGE)
        assert r.status_code == 400 and r.json()["field"] == "budget.wall_seconds", r.text
    with pytest.raises(harness.HarnessError, match="^--budget-seconds nan"):
        raise_budget(built_ws, {"wall_seconds": float("nan")})
    assert built_ws.manifest["budget"]["limits"].get("wall_seconds") != "nan"
    proc = research("resume", str(built_ws.root), "--budget-llm-calls", "99999999999", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.startswith("research: error: --budget-llm-calls 99999999999"), (
        proc.stderr
    )


def test_an_oversized_question_gets_a_400_not_an_argument_list_too_long(tmp_path, runs_dir, built_ws):
    question = "Why " + "very " * 30_000 + "long?"  # over 128 KiB: once, this became one argv item
    with make_client(tmp_path, runs_dir) as client:
        r = client.post("/api/runs", json={"question": question}, headers=CHANGE)
        assert r.status_code == 400 and r.json()["field"] == "question" and "10000" in r.json()["error"]
        set_completed(built_ws)
        r = client.post(f"/api/runs/{built_ws.run_id}/ask", json={"question": question}, headers=CHANGE)
        assert r.status_code == 400 and r.json()["field"] == "question"
    proc = research("run", "x" * 10_001, "--runs-dir", str(runs_dir), cwd=tmp_path)
    assert proc.returncode == 2 and "more than the 10000" in proc.stderr


def set_completed(ws) -> None:
    ws.update_manifest(lambda m: m.__setitem__("status", "completed"))


def test_a_long_or_odd_last_event_id_gets_a_400(tmp_path, built_ws):
    with make_client(tmp_path, built_ws.root.parent) as client:
        for value in ("9" * 5000, "1e3", "-1", "١٢".encode()):
            r = client.get(f"/api/runs/{built_ws.run_id}/events", headers={"Last-Event-ID": value})
            assert r.status_code == 400 and "Last-Event-ID" in r.json()["error"], value


def test_the_runs_list_shows_an_unreadable_run_folder_as_broken_and_answers_for_the_others(tmp_path, built_ws):
    """A run.json holding NaN (a budget accepted before) and a half-copied run folder: listed as broken, never a 500."""
    runs_dir = built_ws.root.parent
    ids = []
    for n, text in enumerate(
        [
            (built_ws.root / "run.json").read_text(encoding="utf-8").replace('"limits": {', '"limits": {"x": NaN, ', 1),
            json.dumps({**built_ws.manifest, "status": "awaiting_plan_approval"}),  # no plan.json
            "{ torn",
        ]
    ):
        run_id = built_ws.run_id[:-2] + (f"9{n}" if not built_ws.run_id.endswith(f"9{n}") else f"8{n}")  # never its own
        (runs_dir / run_id).mkdir()
        (runs_dir / run_id / "run.json").write_text(text, encoding="utf-8")
        ids.append(run_id)
    with make_client(tmp_path, runs_dir) as client:
        listed = client.get("/api/runs")
        assert listed.status_code == 200, listed.text
        rows = {r["run_id"]: r for r in listed.json()["runs"]}
        assert rows[built_ws.run_id]["status"] != "broken"
        for run_id in ids:
            assert rows[run_id]["status"] == "broken" and rows[run_id]["broken"], rows[run_id]
            for path in (f"/api/runs/{run_id}", f"/api/runs/{run_id}/events"):
                r = client.get(path)
                assert r.status_code == 409 and "cannot be read" in r.json()["error"], (path, r.text)
            r = client.post(f"/api/runs/{run_id}/resume", json={}, headers=CHANGE)
            assert r.status_code == 409, r.text
        assert client.get("/api/runs?status=completed").status_code == 200


def test_the_duration_leaves_out_the_time_a_run_waits_for_a_person(tmp_path, built_ws):
    """A run that worked 17 s over two hours, waiting an hour at each gate: its duration is 17 s, in the list and
    in the API; a run still waiting at a gate stops counting when it got there."""
    from harness.surfaces.serve.runs import working_seconds

    def at(clock: str) -> str:
        return f"2026-01-01T{clock}Z"

    steps = [
        ("status", "planning", "10:00:00"),
        ("status", "awaiting_plan_approval", "10:00:05"),
        ("decision", None, "10:59:59"),  # the person decides; the run goes on when it resumes
        ("resume", None, "11:00:00"),
        ("status", "researching", "11:00:00.5"),
        ("status", "awaiting_final_approval", "11:00:10"),
        ("resume", None, "12:00:00"),
        ("status", "completed", "12:00:02"),
    ]
    events = [{"event": e, "status": st, "ts": at(clock)} for e, st, clock in steps]
    assert working_seconds(events, at("10:00:00"), at("12:00:02")) == 17.0
    assert working_seconds(events[:3], at("10:00:00"), at("10:59:59")) == 5.0  # waiting still: 5 s so far
    budget_stop = [*events[:5], {"event": "status", "status": "budget_exhausted", "ts": at("11:00:03")}]
    assert working_seconds(budget_stop, at("10:00:00"), at("13:00:00")) == 8.0  # waits for a raised budget
    manifest = json.loads((built_ws.root / "run.json").read_text(encoding="utf-8"))
    manifest.update(created_at=at("10:00:00"), updated_at=at("12:00:02"), status="completed")
    (built_ws.root / "run.json").write_text(json.dumps(manifest), encoding="utf-8")
    (built_ws.root / "trace.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    with make_client(tmp_path, built_ws.root.parent) as client:
        [listed] = client.get("/api/runs").json()["runs"]
        assert listed["duration_seconds"] == 17.0  # not the 7202 s from creation to the last change
        assert client.get(f"/api/runs/{built_ws.run_id}").json()["duration_seconds"] == 17.0


class NoProcesses:
    """A launcher that starts nothing (the property test must not fork a run per example); a start is refused."""

    def __init__(self, *_args):
        self.resumed: list[str] = []

    async def start(self, args, command=("run",)):
        from harness.surfaces.serve.launcher import LaunchError

        raise LaunchError("this test starts no process")

    def resume(self, run_dir, flags):
        self.resumed.append(run_dir.name)

    def live(self, run_dir):
        return False

    def error(self, run_id):
        return None

    def position(self, run_id):
        return None

    def queued(self):
        return []

    def close(self):
        pass


SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12)
    | st.sampled_from(["approve", "reject", "edit", "python-docs", "offline", "-", "..", "\x00", "a" * 300])
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
KEYS = st.sampled_from(
    [
        "question",
        "corpus",
        "engine",
        "model",
        "web",
        "search",
        "budget",
        "max_revisions",
        "concurrency",
        "require_final_approval",
        "decision",
        "plan",
        "feedback",
        "version",
        "yes",
        "runs_dir",
    ]
) | st.text(max_size=10)
BODIES = st.one_of(
    st.dictionaries(KEYS, JSON, max_size=5),
    st.fixed_dictionaries(
        {"decision": st.sampled_from(["approve", "reject", "edit"])}, optional={"plan": JSON, "feedback": JSON}
    ),
    st.fixed_dictionaries(
        {"budget": st.dictionaries(st.sampled_from(["llm_calls", "tokens", "searches", "wall_seconds"]), SCALARS)}
    ),
    JSON,
)
POSTS = ["/api/runs", "/api/runs/{id}/plan", "/api/runs/{id}/final", "/api/runs/{id}/resume", "/api/runs/{id}/ask"]
GETS = [
    "/api/runs",
    "/api/runs?status={text}",
    "/api/runs/{id}",
    "/api/runs/{id}/export/{text}",
    "/runs/{id}/",
    "/runs/{id}/{text}",
    "/api/meta",
    "/",
]


def test_random_json_to_every_endpoint_never_gets_a_500(tmp_path, built_ws, specs):
    """Random JSON (NaN, huge numbers, nesting, unknown fields) posted to every endpoint, and random ids and paths
    read from every route: always an answer below 500, and always JSON with a one-line error from the API."""
    from harness.surfaces.serve.app import create_app as make_app

    runs_dir = built_ws.root.parent
    gate = harness_workspace(runs_dir)
    gate.write("plan.json", json.loads((built_ws.root / "plan.json").read_text()), specs["planner"].policy)
    gate.update_manifest(lambda m: m.__setitem__("status", "awaiting_plan_approval"))
    ids = [built_ws.run_id, gate.run_id]
    settings_ = ServeSettings(runs_dir, CorpusRoots.parse([str(tmp_path)], tmp_path), tmp_path)
    with TestClient(make_app(settings_, NoProcesses()), base_url=BASE) as client:

        @settings(max_examples=int(os.environ.get("RESEARCH_DOOR_EXAMPLES", "150")), deadline=None)
        @given(
            route=st.sampled_from([(True, p) for p in POSTS] + [(False, p) for p in GETS]),
            run_id=st.sampled_from(ids) | st.text(max_size=30),
            text=st.text(max_size=30),
            body=BODIES,
        )
        def probe(route, run_id, text, body):
            post, path = route
            url = path.replace("{id}", quote(run_id, safe="")).replace("{text}", quote(text, safe=""))
            if post:
                raw = json.dumps(body, allow_nan=True)
                r = client.post(url, content=raw, headers={**CHANGE, "Content-Type": "application/json"})
            else:
                r = client.get(url)
            assert r.status_code < 500, (url, body, r.text[:300])
            if url.startswith("/api/") and r.status_code >= 400:
                assert "\n" not in r.json()["error"], r.text

        probe()


def test_a_follow_up_question_beginning_with_a_dash_reaches_its_run_as_a_question(tmp_path, runs_dir, fixture_corpus):
    """The question goes to the child `research ask` after `--`: `-v …` is a question, not an option."""
    from harness.orchestrator.config import build_config
    from harness.orchestrator.lifecycle import start_run

    parent = start_run(build_config(FIXTURE_QUESTION, corpus=str(fixture_corpus), runs_dir=str(runs_dir), yes=True))
    assert parent.status == "completed", parent.reason
    question = "--version -v: which fastjson release is current?"
    with make_client(tmp_path, runs_dir) as client:
        res = client.post(f"/api/runs/{parent.run_dir.name}/ask", json={"question": question}, headers=CHANGE)
        assert res.status_code == 201, res.text
        child = res.json()["run_id"]
        deadline = time.monotonic() + 120
        while client.get(f"/api/runs/{child}").json()["live"]:
            assert time.monotonic() < deadline
            time.sleep(0.2)
        # follow-ups link both ways on the run pages
        assert client.get(f"/api/runs/{child}").json()["parent"] == {
            "run_id": parent.run_dir.name,
            "question": FIXTURE_QUESTION,
        }
        assert client.get(f"/api/runs/{parent.run_dir.name}").json()["children"] == [
            {"run_id": child, "question": question}
        ]
    manifest = json.loads((runs_dir / child / "run.json").read_text(encoding="utf-8"))
    assert manifest["question"] == question and manifest["status"] == "awaiting_plan_approval"


# ---- 3. headers -----------------------------------------------------------------------------------------


def test_no_page_of_the_app_can_be_framed_and_no_answer_sniffed(tmp_path, built_ws):
    """frame-ancestors 'none' as a real header on every answer, the audit viewer included; nosniff on the API."""
    with make_client(tmp_path, built_ws.root.parent) as client:
        for path in (
            "/",
            f"/runs/{built_ws.run_id}/",
            f"/runs/{built_ws.run_id}/plan.json",
            "/api/runs",
            f"/api/runs/{built_ws.run_id}",
            "/api/meta",
            "/static/serve.js",
            "/api/runs/nope",
        ):
            r = client.get(path)
            policies = r.headers.get_list("content-security-policy")
            assert "frame-ancestors 'none'" in policies, (path, policies)
            assert r.headers["x-frame-options"] == "DENY" and r.headers["x-content-type-options"] == "nosniff", path
        refused = client.get("/api/runs", headers={"Host": "attacker.example"})
        assert refused.status_code == 403 and refused.headers["x-content-type-options"] == "nosniff"


def test_research_view_serve_cannot_be_framed_either(built_ws):
    import urllib.request

    from harness.surfaces.viewer import build_viewer
    from harness.surfaces.viewer.server import serve

    build_viewer(built_ws.root)
    server, url = serve(built_ws.root)
    try:
        with urllib.request.urlopen(url) as r:  # noqa: S310 - 127.0.0.1, served by the test
            assert r.headers["Content-Security-Policy"] == "frame-ancestors 'none'"
            assert r.headers["X-Frame-Options"] == "DENY"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(
    "url",
    [
        "/\\evil.example",
        "\\/evil.example",
        "\\\\evil.example",
        " /\\evil.example",
        "/\\/evil.example",
        "//evil.example",
    ],
)
def test_a_link_a_browser_reads_as_protocol_relative_is_refused(url):
    from harness.surfaces.viewer.markup import safe_href

    assert safe_href(url) is None
    assert safe_href("/runs/x/plan.json") == "/runs/x/plan.json" and safe_href("#c1") == "#c1"


# ---- 4. limits ------------------------------------------------------------------------------------------


@pytest.fixture
def live_server(tmp_path, built_ws):
    """The app over built_ws's runs folder on a real uvicorn (h11) server on 127.0.0.1, with short deadlines."""
    import socket
    import threading

    import uvicorn

    from harness.surfaces.serve.limits import ServerLimits, uvicorn_settings

    limits = ServerLimits(head_seconds=0.5, body_seconds=0.5, max_head_bytes=8 * 1024)
    app_settings = ServeSettings(
        built_ws.root.parent, CorpusRoots.parse([str(tmp_path)], tmp_path), tmp_path, limits=limits
    )
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(create_app(app_settings), log_level="warning", lifespan="on", **uvicorn_settings(limits))
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive()
        time.sleep(0.05)
    yield sock.getsockname()[1]
    server.should_exit = True
    thread.join(30)


def exchange(port: int, *chunks: bytes) -> bytes:
    """Send `chunks` on one connection, then read until the server closes it (30 s at most, never reached)."""
    import socket

    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        for chunk in chunks:
            s.sendall(chunk)
        data = b""
        while True:
            try:
                got = s.recv(65536)
            except ConnectionResetError:
                break
            if not got:
                break
            data += got
    return data


def test_a_request_head_too_large_is_refused_with_a_4xx(live_server):
    huge = b"GET /api/meta HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * (1024 * 1024) + b"\r\n\r\n"
    answer = exchange(live_server, huge)
    assert answer.startswith(b"HTTP/1.1 4"), answer[:80]


def test_a_slow_head_or_body_is_cut_off_with_a_408(live_server):
    """A head sent slowly (part of it, then nothing) and a body that never arrives: the server closes both."""
    head = exchange(live_server, b"GET /api/meta HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
    assert head.startswith(b"HTTP/1.1 408"), head[:80]
    body = exchange(
        live_server,
        b"POST /api/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Research-Request: 1\r\nContent-Type: application/json\r\n"
        b'Content-Length: 100\r\n\r\n{"question":',
    )
    assert body.startswith(b"HTTP/1.1 408") or body == b"", body[:80]
    ok = exchange(live_server, b"GET /api/meta HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    assert ok.startswith(b"HTTP/1.1 401") or ok.startswith(b"HTTP/1.1 200"), ok[:80]


def test_runs_beyond_the_limit_wait_in_a_queue_and_start_in_order(tmp_path, runs_dir, fixture_corpus):
    """With at most one run at once: the second and third wait, are listed as queued, and start in order."""
    questions = [f"{FIXTURE_QUESTION} ({n})" for n in "ABC"]
    app_settings = ServeSettings(
        runs_dir,
        CorpusRoots.parse([str(tmp_path)], tmp_path),
        tmp_path,
        limits=ServerLimits(max_active_runs=1),
    )
    with TestClient(create_app(app_settings), base_url=BASE) as client:
        answers = [
            client.post("/api/runs", json={"question": q, "corpus": str(fixture_corpus)}, headers=CHANGE)
            for q in questions
        ]
        assert [a.status_code for a in answers] == [201, 202, 202], [a.text for a in answers]
        assert [a.json().get("position") for a in answers[1:]] == [1, 2]
        listed = client.get("/api/runs").json()["runs"]
        queued = [r for r in listed if r["status"] == "queued"]
        assert queued and [r["question"] for r in queued] == questions[3 - len(queued) :]  # B, C (or C once B starts)
        assert all(r["run_id"] is None and r["position"] for r in queued)
        deadline = time.monotonic() + 300
        while True:
            rows = client.get("/api/runs").json()["runs"]
            done = [r for r in rows if r["status"] == "awaiting_plan_approval" and not r["live"]]
            if len(done) == 3:
                break
            assert time.monotonic() < deadline, rows
            assert sum(r["live"] for r in rows) <= 1, rows  # never more than the limit at once
            time.sleep(0.2)
    by_start = sorted(done, key=lambda r: r["run_id"])  # run ids sort by creation time
    assert [r["question"] for r in by_start] == questions


# ---- 5. authentication by default ---------------------------------------------------------------------


def test_a_token_is_needed_on_loopback_too_and_a_decision_records_the_name_given_at_login(tmp_path, built_ws, specs):
    from harness.surfaces.serve.app import create_app as make_app

    built_ws.update_manifest(lambda m: m.__setitem__("status", "awaiting_plan_approval"))
    token = "loopback-token-" + "y" * 30
    app_settings = ServeSettings(built_ws.root.parent, CorpusRoots.parse([str(tmp_path)], tmp_path), tmp_path, token)
    with TestClient(make_app(app_settings, NoProcesses()), base_url=BASE) as client:
        for path in ("/", "/api/runs", f"/runs/{built_ws.run_id}/", f"/runs/{built_ws.run_id}/plan.json"):
            assert client.get(path).status_code == 401, path
        assert client.get("/api/runs", headers={"Host": "attacker.example"}).status_code == 403  # still loopback only
        form = client.get(f"/login?token={token}")
        assert form.status_code == 200 and 'name="name"' in form.text and "<script" not in form.text
        login = client.get(f"/login?token={token}&name=Ada%20Lovelace", follow_redirects=False)
        assert login.status_code == 303
        cookies = login.headers.get_list("set-cookie")
        assert all("httponly" in c.lower() and "samesite=strict" in c.lower() for c in cookies) and len(cookies) == 2
        assert client.get("/api/runs").status_code == 200
        r = client.post(f"/api/runs/{built_ws.run_id}/plan", json={"decision": "approve"}, headers=CHANGE)
        assert r.status_code == 202, r.text
    approval = json.loads((built_ws.root / "plan.json").read_text(encoding="utf-8"))["approval"]
    assert approval["by"].startswith("Ada Lovelace (") and "(research serve)" in approval["by"], approval


def test_the_token_file_keeps_the_token_across_starts_and_rotates_when_changed(tmp_path):
    from harness.surfaces.serve.security import token_from_file

    path = tmp_path / "token"
    first = token_from_file(path)
    assert path.stat().st_mode & 0o777 == 0o600 and len(first) >= 40
    assert token_from_file(path) == first  # the same token at the next start
    path.write_text("rotated-" + "z" * 40 + "\n", encoding="utf-8")
    assert token_from_file(path) == "rotated-" + "z" * 40
    path.write_text("short\n", encoding="utf-8")
    with pytest.raises(harness.HarnessError, match="^--token-file .*at least 16 characters"):
        token_from_file(path)


def test_certfile_and_keyfile_serve_https_with_secure_cookies(tmp_path):
    """`research serve --certfile --keyfile`: the login URL is https, the API answers over TLS, cookies are Secure."""
    import shutil
    import signal
    import ssl

    import httpx

    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make a test certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    argv = [
        sys.executable,
        "-m",
        "harness",
        "serve",
        "--runs-dir",
        str(tmp_path / "runs"),
        "--port",
        "0",
        "--certfile",
        str(cert),
        "--keyfile",
        str(key),
    ]
    proc = subprocess.Popen(argv, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("research serve: https://127.0.0.1:"), (line, proc.stderr.read() if proc.poll() else "")
        url, _, token = line.split(": ", 1)[1].strip().partition("/login?token=")
        trust = ssl.create_default_context(cafile=str(cert))
        with httpx.Client(verify=trust) as client:
            assert client.get(f"{url}/api/runs").status_code == 401
            assert client.get(f"{url}/api/runs", headers={"Authorization": f"Bearer {token}"}).status_code == 200
            login = client.get(f"{url}/login", params={"token": token, "name": "Ada"}, follow_redirects=False)
            assert login.status_code == 303
            assert all("secure" in c.lower() for c in login.headers.get_list("set-cookie"))
        with pytest.raises(httpx.HTTPError):  # plain HTTP on the TLS port gets no answer
            httpx.get(url.replace("https://", "http://") + "/api/runs", timeout=10)
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)


# ---- 6. where you sign (the part done here) --------------------------------------------------------------


def test_the_audit_viewer_served_by_the_app_links_back_to_the_runs_page(tmp_path, built_ws):
    with make_client(tmp_path, built_ws.root.parent) as client:
        page = client.get(f"/runs/{built_ws.run_id}/").text
    assert f'href="/#/run/{built_ws.run_id}"' in page and "back to the app" in page
    assert "back to the app" not in render_viewer(built_ws.root)  # the page written into the run folder has no app


def test_a_corpus_name_is_resolved_against_the_roots_and_the_form_lists_them(tmp_path):
    from harness.surfaces.serve.request import CorpusRoots

    root, other = tmp_path / "root", tmp_path / "other"
    (root / "docs").mkdir(parents=True)
    (root / ".hidden").mkdir()
    (other / "notes").mkdir(parents=True)
    (root / "out").symlink_to(tmp_path / "other", target_is_directory=True)
    roots = CorpusRoots.parse([str(root), str(other), "python-docs"], tmp_path / "elsewhere")
    assert roots.check("docs", tmp_path) == str(root / "docs")
    assert roots.check("notes", tmp_path) == str(other / "notes")
    assert [c["name"] for c in roots.listing()] == ["python-docs", "docs", "notes"]  # no hidden folder, no link out


def test_a_completed_run_is_exported_from_the_app_and_others_are_refused(tmp_path, runs_dir, fixture_corpus, built_ws):
    from harness.orchestrator.config import build_config
    from harness.orchestrator.lifecycle import start_run

    done = start_run(build_config(FIXTURE_QUESTION, corpus=str(fixture_corpus), runs_dir=str(runs_dir), yes=True))
    assert done.status == "completed", done.reason
    rid = done.run_dir.name
    with make_client(tmp_path, runs_dir) as client:
        for fmt, kind in (("html", "text/html"), ("md", "text/markdown")):
            r = client.get(f"/api/runs/{rid}/export/{fmt}")
            assert r.status_code == 200 and r.headers["content-type"].startswith(kind), r.text[:200]
            assert r.headers["content-disposition"] == f'attachment; filename="{rid}.{fmt}"'
            out = tmp_path / f"{rid}.{fmt}"
            out.write_bytes(r.content)
            check = research("validate", str(done.run_dir), "--export", str(out), cwd=tmp_path)
            assert check.returncode == 0, check.stdout + check.stderr  # the very file `research export` writes
        assert client.get(f"/api/runs/{rid}/export/exe").status_code == 404
        ieee = client.get(f"/api/runs/{rid}/export/md", params={"style": "ieee"})  # no papers cited: same report
        assert ieee.status_code == 200 and ieee.content == client.get(f"/api/runs/{rid}/export/md").content
        bad = client.get(f"/api/runs/{rid}/export/md", params={"style": "mla"})
        assert bad.status_code == 400 and bad.json()["field"] == "style", bad.text
        assert bad.json()["error"] == "style 'mla': choose one of apa, ieee, chicago-author-date"
        refused = client.get(f"/api/runs/{built_ws.run_id}/export/md")
        assert refused.status_code == 409 and "only a completed run" in refused.json()["error"]


def test_an_edit_cannot_allow_the_web_to_a_run_whose_web_is_off(tmp_path, built_ws):
    built_ws.update_manifest(lambda m: m.__setitem__("status", "awaiting_plan_approval"))
    before = (built_ws.root / "plan.json").read_bytes()
    plan = json.loads(before)
    plan["questions"][0]["allowed_sources"] = ["corpus", "web"]
    settings_ = ServeSettings(built_ws.root.parent, CorpusRoots.parse([str(tmp_path)], tmp_path), tmp_path)
    with TestClient(create_app(settings_, NoProcesses()), base_url=BASE) as client:
        r = client.post(f"/api/runs/{built_ws.run_id}/plan", json={"decision": "edit", "plan": plan}, headers=CHANGE)
        assert r.status_code == 400 and r.json()["field"] == "plan", r.text
        assert "/questions/0/allowed_sources" in r.json()["error"] and "web is off" in r.json()["error"]
    assert (built_ws.root / "plan.json").read_bytes() == before  # nothing written
    (tmp_path / "edited.json").write_text(json.dumps(plan), encoding="utf-8")
    proc = research("approve", str(built_ws.root), "--plan", str(tmp_path / "edited.json"), cwd=tmp_path)
    assert proc.returncode != 0 and "web is off" in proc.stderr
