"""`research serve`'s JSON API (harness/surfaces/serve/), through Starlette's TestClient.

Every endpoint and its errors: listing and reading runs, new-run requests checked like
`research run`'s flags (the same one-line messages), a corpus outside the allowed roots,
the plan, final and resume decisions refused when the run is not at that gate (a stale
final hash among them), the token when not on the loopback address, CSRF, path traversal,
and the event stream read from trace.jsonl and run.json. Runs that really go through the
gates are in test_serve_browser.py and test_serve_restart.py.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from fakes.workspaces import CARD_ID
from harness.contract.formats import sha256_text
from harness.contract.quotes import normalize_ws
from harness.evidence.report import rendered_from
from harness.orchestrator.approvals import record_decision
from harness.surfaces.serve.app import ServeSettings, create_app
from harness.surfaces.serve.events import run_events
from harness.surfaces.serve.fragments import trace_html
from harness.surfaces.serve.request import CorpusRoots
from harness.surfaces.serve.states import ACTIVE, GATES, RESUMABLE, STATUSES, TERMINAL
from harness.surfaces.viewer.collect import collect
from harness.surfaces.viewer.model import Event
from harness.surfaces.viewer.page.common import badge
from harness.surfaces.viewer.page.drafts import review_block
from harness.surfaces.viewer.page.metrics import budget_meters
from harness.surfaces.viewer.page.plan import branches_table
from harness.surfaces.viewer.page.report import report_body
from harness.surfaces.viewer.page.timeline import trace_line

BASE = "http://127.0.0.1:8000"
CHANGE = {"X-Research-Request": "1"}


def make_client(
    tmp_path: Path, runs_dir: Path, roots: list[str] | None = None, token: str | None = None, loopback: bool = True
) -> TestClient:
    roots_ = CorpusRoots.parse(roots or [str(tmp_path)], tmp_path)
    settings = ServeSettings(runs_dir, roots_, tmp_path, token, loopback=loopback)
    return TestClient(create_app(settings), base_url=BASE)


@pytest.fixture
def client(tmp_path, runs_dir):
    with make_client(tmp_path, runs_dir) as c:
        yield c


def set_status(ws, status: str, **config) -> None:
    def change(m):
        m["status"] = status
        m["config"].update(config)

    ws.update_manifest(change)


def test_statuses_come_from_the_run_schema_and_partition_it():
    assert "budget_exhausted" in RESUMABLE and set(GATES) == {"awaiting_plan_approval", "awaiting_final_approval"}
    assert TERMINAL | set(GATES) | RESUMABLE | ACTIVE == set(STATUSES)
    assert not (ACTIVE & (TERMINAL | RESUMABLE | set(GATES)))


def test_meta_and_runs_list_read_the_runs_folder(client, built_ws, tmp_path):
    meta = client.get("/api/meta").json()
    assert meta["statuses"] == list(STATUSES) and meta["corpus_roots"] == [str(tmp_path.resolve())]
    runs = client.get("/api/runs").json()["runs"]
    assert [r["run_id"] for r in runs] == [built_ws.run_id]
    row = runs[0]
    assert row["question"] == built_ws.manifest["question"] and row["status"] == "created" and row["live"] is False
    assert row["resumable"] is True  # created, and no process works on it: cut off before it began
    assert client.get("/api/runs?status=completed").json()["runs"] == []
    assert len(client.get("/api/runs?status=created").json()["runs"]) == 1
    bad = client.get("/api/runs?status=bogus")
    assert bad.status_code == 400 and bad.json()["error"].startswith("status bogus: not a run status")


def test_get_run_shows_the_plan_with_its_hash_and_404s_otherwise(client, built_ws):
    d = client.get(f"/api/runs/{built_ws.run_id}").json()
    assert d["plan"]["questions"] and len(d["plan_sha256"]) == 64 and d["gate"] is None
    assert d["reviews"][0]["verdict"] == "pass" and d["drafts"] == ["drafts/draft-1.md"]
    for bad in ("20990101T000000Z-abcdef", "nope", "..", "%2e%2e"):
        r = client.get(f"/api/runs/{bad}")
        assert r.status_code == 404 and "error" in r.json()


def test_get_run_carries_the_viewers_typed_view_of_the_run(client, built_ws):
    view = client.get(f"/api/runs/{built_ws.run_id}").json()["view"]
    assert view == json.loads(json.dumps(collect(built_ws.root).as_json()))  # the viewer's own view, serialized
    assert [c["claim_id"] for c in view["claims"]] == ["C1"] and view["cards"][0]["id"] == CARD_ID
    assert [(q["id"], q["kind"]) for q in view["plan"]["questions"]] == [("Q1", "research"), ("Q2", "deliverable")]
    assert view["reviews"][0]["verdict"] == "pass" and view["facts"]["run_id"] == built_ws.run_id


def test_what_the_run_page_shows_is_rendered_by_the_viewers_sections(client, built_ws):
    """serve.js draws none of a run's parts itself: the server sends them rendered by viewer/page (fragments.py)."""
    d = client.get(f"/api/runs/{built_ws.run_id}").json()
    view = collect(built_ws.root)
    parts = d["fragments"]
    assert parts["reviews"] == str(review_block(view.reviews[0])) and 'class="review"' in parts["reviews"]
    assert parts["branches"] == str(branches_table(view)) and '<tr data-qid="Q1">' in parts["branches"]
    assert "1 card(s)" in parts["branches"]
    assert parts["budget"] == str(budget_meters(view)) and parts["budget"].startswith('<table id="budget">')
    assert parts["status"] == str(badge(d["status"]))
    listed = client.get("/api/runs").json()["runs"]
    assert listed[0]["fragments"]["status"] == str(badge(listed[0]["status"]))


def test_a_runs_text_reaches_the_page_escaped_by_the_viewers_sections(client, built_ws):
    payload = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>'
    plan = json.loads((built_ws.root / "plan.json").read_text(encoding="utf-8"))
    plan["questions"][0]["text"] = payload
    (built_ws.root / "plan.json").write_text(json.dumps(plan), encoding="utf-8")
    review = json.loads((built_ws.root / "reviews/review-1.json").read_text(encoding="utf-8"))
    review["defects"] = [{"code": payload, "severity": "error", "message": payload, "route": "writer"}]
    (built_ws.root / "reviews/review-1.json").write_text(json.dumps(review), encoding="utf-8")
    parts = client.get(f"/api/runs/{built_ws.run_id}").json()["fragments"]
    shown = "".join(parts.values())
    assert "<img" not in shown and "<script" not in shown and "onerror=" not in shown.replace("onerror=&quot;", "")
    assert "&lt;img src=x onerror=&quot;window.__xss=1&quot;&gt;" in parts["branches"]
    assert "&lt;script&gt;window.__xss=2&lt;/script&gt;" in parts["reviews"]
    line = trace_html({"seq": 1, "event": "write", "agent": payload, "path": payload, "ts": "x" * 20})
    assert line.startswith('<li data-event="write">') and "<img" not in line and "<script" not in line


def test_the_plan_gate_offers_the_sources_the_run_searches(client, built_ws):
    assert client.get(f"/api/runs/{built_ws.run_id}").json()["offered_sources"] == ["corpus"]
    set_status(built_ws, "awaiting_plan_approval", web=False, search={"provider": "arxiv", "also": ["pubmed"]})
    assert client.get(f"/api/runs/{built_ws.run_id}").json()["offered_sources"] == ["corpus", "arxiv", "pubmed"]
    set_status(built_ws, "awaiting_plan_approval", web=True)
    d = client.get(f"/api/runs/{built_ws.run_id}").json()
    assert d["offered_sources"] == ["corpus", "web", "arxiv", "pubmed"]


def test_final_gate_shows_the_passing_draft_and_refuses_a_stale_hash(client, built_ws):
    set_status(built_ws, "awaiting_final_approval", require_final_approval=True)
    d = client.get(f"/api/runs/{built_ws.run_id}").json()
    draft_text = (built_ws.root / "drafts/draft-1.md").read_text(encoding="utf-8")
    shown = {k: d["draft"][k] for k in ("path", "sha256", "text")}
    assert d["gate"] == "final" and shown == {
        "path": "drafts/draft-1.md",
        "sha256": sha256_text(draft_text),
        "text": draft_text,
    }
    # the report its sign-off prints, and the quote of each card it cites, where it stands in its snapshot
    report = d["draft"]["report"]
    assert d["draft"]["report_error"] is None and rendered_from(report) == (
        "drafts/draft-1.md",
        sha256_text(draft_text),
    )
    assert f"[C1](source-cards/{CARD_ID}.json)" in report
    assert d["fragments"]["report"] == str(report_body(report))  # rendered as the viewer renders a report
    assert f'href="source-cards/{CARD_ID}.json"' in d["fragments"]["report"]
    quote = d["draft"]["quotes"][CARD_ID]
    snapshot = (built_ws.root / f"sources/{quote['source_id']}.txt").read_text(encoding="utf-8")
    card = json.loads((built_ws.root / f"source-cards/{CARD_ID}.json").read_text(encoding="utf-8"))
    assert quote["verbatim"] and normalize_ws(quote["quote"]) == normalize_ws(card["quote"])
    assert quote["before"] + quote["quote"] + quote["after"] in snapshot
    stale = client.post(f"/api/runs/{built_ws.run_id}/final", json={"version": "0" * 64}, headers=CHANGE)
    assert stale.status_code == 409
    assert stale.json()["error"] == (
        f"--version {'0' * 64}: stale or unknown version; drafts/draft-1.md is now {d['draft']['sha256']} "
        "(pass at least 12 hex digits)"
    )
    assert json.loads((built_ws.root / "run.json").read_text()).get("final_approval") is None
    missing = client.post(f"/api/runs/{built_ws.run_id}/final", json={}, headers=CHANGE)
    assert missing.status_code == 400 and missing.json()["field"] == "version"
    set_status(built_ws, "writing")
    elsewhere = client.post(
        f"/api/runs/{built_ws.run_id}/final", json={"version": d["draft"]["sha256"]}, headers=CHANGE
    )
    assert elsewhere.status_code == 409 and "not awaiting final approval" in elsewhere.json()["error"]


def test_plan_decisions_are_checked_and_an_invalid_edit_writes_nothing(client, built_ws):
    url = f"/api/runs/{built_ws.run_id}/plan"
    not_now = client.post(url, json={"decision": "approve"}, headers=CHANGE)
    assert not_now.status_code == 409 and not_now.json()["error"] == (
        "--plan: the run is created, not awaiting plan approval"
    )
    set_status(built_ws, "awaiting_plan_approval")
    assert client.get(f"/api/runs/{built_ws.run_id}").json()["gate"] == "plan"
    bad = client.post(url, json={"decision": "maybe"}, headers=CHANGE)
    assert bad.status_code == 400 and bad.json()["field"] == "decision"
    no_plan = client.post(url, json={"decision": "edit"}, headers=CHANGE)
    assert no_plan.status_code == 400 and no_plan.json()["field"] == "plan"
    before = (built_ws.root / "plan.json").read_bytes()
    plan = json.loads(before)
    plan["questions"][0]["kind"] = "essay"
    invalid = client.post(url, json={"decision": "edit", "plan": plan}, headers=CHANGE)
    assert invalid.status_code == 400 and invalid.json()["field"] == "plan"
    assert "plan.json:/questions/0/kind" in invalid.json()["error"] and "\n" not in invalid.json()["error"]
    assert (built_ws.root / "plan.json").read_bytes() == before
    assert json.loads((built_ws.root / "run.json").read_text())["decisions"] == []
    assert client.post(url, content=b"{not json", headers=CHANGE).status_code == 400
    assert client.post(url, json=["approve"], headers=CHANGE).status_code == 400
    huge = client.post(url, content=b" " * (5 * 1024 * 1024), headers=CHANGE)
    assert huge.status_code == 413 and huge.json()["error"] == "request body: larger than 4 MiB"
    # approved meanwhile with `research approve --plan`, not yet resumed: no second decision, a resume instead
    record_decision(built_ws.root, plan=True, by="carol")
    d = client.get(f"/api/runs/{built_ws.run_id}").json()
    assert d["status"] == "awaiting_plan_approval" and d["gate"] is None and d["resumable"] is True
    again = client.post(url, json={"decision": "approve"}, headers=CHANGE)
    assert (
        again.status_code == 409
        and again.json()["error"] == "--plan: already decided on this plan; resume the run to go on"
    )
    assert len(json.loads((built_ws.root / "run.json").read_text())["decisions"]) == 1


def test_resume_is_refused_at_a_gate_and_needs_a_raise_when_the_budget_is_spent(client, built_ws):
    url = f"/api/runs/{built_ws.run_id}/resume"
    set_status(built_ws, "awaiting_plan_approval")
    at_gate = client.post(url, json={}, headers=CHANGE)
    assert at_gate.status_code == 409 and "decide at the plan gate" in at_gate.json()["error"]
    set_status(built_ws, "completed")
    assert client.post(url, json={}, headers=CHANGE).status_code == 409
    set_status(built_ws, "budget_exhausted")
    built_ws.update_manifest(lambda m: m.__setitem__("status_reason", "the run's searches budget is spent (3 of 3)"))
    same = client.post(
        url, json={"budget": {"searches": built_ws.manifest["budget"]["limits"].get("searches")}}, headers=CHANGE
    )
    assert (
        same.status_code == 400
        and same.json()["field"] == "budget"
        and "searches budget is spent" in same.json()["error"]
    )
    for body, field in (
        ({"budget": {"searches": -1}}, "budget.searches"),
        ({"budget": {"coffee": 1}}, "budget.coffee"),
        ({"budget": {"tokens": "many"}}, "budget.tokens"),
        ({"budget": 5}, "budget"),
        ({"yes": True}, "yes"),
    ):
        r = client.post(url, json=body, headers=CHANGE)
        assert r.status_code == 400 and r.json()["field"] == field, (body, r.json())
    assert client.post("/api/runs/nope/resume", json={}, headers=CHANGE).status_code == 404


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"question": "  "}, "question", "QUESTION: must not be empty"),
        ({"question": "q", "engine": "gpt"}, "engine", "--engine gpt: choose offline or llm"),
        ({"question": "q", "model": "gemini"}, "model", "--model gemini: expected PROVIDER:NAME"),
        (
            {"question": "q", "max_revisions": -1},
            "max_revisions",
            "--max-revisions -1: must be a whole number from 0 to 10",
        ),
        ({"question": "q", "max_revisions": "two"}, "max_revisions", "--max-revisions: expected an integer"),
        ({"question": "q", "web": "yes"}, "web", "--web: expected true or false"),
        ({"question": "q", "budget": {"searches": 0}}, "budget.searches", "--budget-searches 0: too small"),
        (
            {"question": "q", "budget": {"tokens": -5}},
            "budget.tokens",
            "--budget-tokens -5: must be a whole number from 0",
        ),
        ({"question": "q", "yes": True}, "yes", "yes: not a request field"),
        ({"question": "q", "agents": ["writer=python:os:system"]}, "agents", "agents: not a request field"),
        ({"question": "q", "runs_dir": "/tmp"}, "runs_dir", "runs_dir: not a request field"),
    ],
)
def test_a_bad_new_run_request_gets_the_clis_one_line_message_beside_its_field(client, runs_dir, body, field, message):
    r = client.post("/api/runs", json=body, headers=CHANGE)
    assert r.status_code == 400, r.json()
    assert r.json()["field"] == field and r.json()["error"].startswith(message)
    assert list(runs_dir.iterdir()) == []  # nothing was created


def test_the_messages_are_the_ones_research_run_prints(client, tmp_path):
    body = {"question": "q", "engine": "gpt", "budget": {"searches": 0}}
    api = client.post("/api/runs", json=body, headers=CHANGE).json()["error"]
    cli = subprocess.run(
        [
            sys.executable,
            "-m",
            "harness",
            "run",
            "q",
            "--engine",
            "gpt",
            "--budget-searches",
            "0",
            "--runs-dir",
            str(tmp_path / "r"),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "RESEARCH_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert cli.returncode == 2 and cli.stderr.strip() == f"research: error: {api}"


def test_a_corpus_outside_the_allowed_roots_is_refused(tmp_path, runs_dir):
    inside = tmp_path / "roots" / "docs"
    inside.mkdir(parents=True)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (inside / "escape").symlink_to(outside, target_is_directory=True)
    with make_client(tmp_path, runs_dir, roots=[str(tmp_path / "roots")]) as c:
        for corpus in (
            str(outside),
            "/etc",
            str(inside / "escape"),
            str(inside / ".." / ".." / "elsewhere"),
            "python-docs",
        ):
            r = c.post("/api/runs", json={"question": "q", "corpus": corpus}, headers=CHANGE)
            assert r.status_code == 403 and r.json()["field"] == "corpus", (corpus, r.json())
            assert r.json()["error"].startswith(f"--corpus {corpus}: ")
        missing = c.post("/api/runs", json={"question": "q", "corpus": str(inside / "nope")}, headers=CHANGE)
        assert missing.status_code == 400 and missing.json()["error"].endswith("no such folder")
    assert list(runs_dir.iterdir()) == []


def test_state_changing_requests_need_the_custom_header_and_a_same_origin(client):
    body = {"question": "  "}  # invalid, so a request that passes the guard gets the 400 of validation, not a run
    assert client.post("/api/runs", json=body).status_code == 403
    assert "X-Research-Request" in client.post("/api/runs", json=body).json()["error"]
    cross = client.post("/api/runs", json=body, headers={**CHANGE, "Origin": "http://evil.example"})
    assert (
        cross.status_code == 403 and cross.json()["error"] == "Origin http://evil.example: cross-site request refused"
    )
    site = client.post("/api/runs", json=body, headers={**CHANGE, "Sec-Fetch-Site": "cross-site"})
    assert site.status_code == 403
    same = client.post("/api/runs", json=body, headers={**CHANGE, "Origin": BASE, "Sec-Fetch-Site": "same-origin"})
    assert same.status_code == 400 and same.json()["field"] == "question"


def test_on_loopback_only_loopback_host_names_are_answered(client):
    assert client.get("/api/runs").status_code == 200
    rebound = client.get("/api/runs", headers={"Host": "attacker.example:8000"})
    assert rebound.status_code == 403 and "loopback" in rebound.json()["error"]


def test_elsewhere_every_request_needs_the_token_which_login_sets_as_an_httponly_cookie(tmp_path, runs_dir, built_ws):
    token = "t0ken-" + "x" * 30
    with make_client(tmp_path, runs_dir, token=token, loopback=False) as c:
        for path in (
            "/api/runs",
            f"/api/runs/{built_ws.run_id}",
            "/",
            f"/runs/{built_ws.run_id}/plan.json",
            "/static/serve.js",
        ):
            r = c.get(path)
            assert r.status_code == 401 and "token" in r.json()["error"], path
        assert c.post("/api/runs", json={}, headers=CHANGE).status_code == 401
        assert c.get("/api/runs", headers={"Authorization": "Bearer wrong"}).status_code == 401
        assert c.get("/api/runs", headers={"Authorization": f"Bearer {token}"}).status_code == 200
        assert c.get("/login?token=wrong", follow_redirects=False).status_code == 401
        login = c.get(f"/login?token={token}&name=", follow_redirects=False)
        assert login.status_code == 303
        cookie = login.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=strict" in cookie and f"research_token={token}".lower() in cookie
        assert c.get("/api/runs").status_code == 200  # the client now sends the cookie
        assert c.post("/api/runs", json={"question": " "}).status_code == 403  # the token is no CSRF pass
        assert c.get("/api/runs", headers={"Host": "any.example"}).status_code == 200


def test_run_files_are_served_read_only_and_nothing_outside_the_run(client, built_ws, tmp_path):
    rid = built_ws.run_id
    plan = client.get(f"/runs/{rid}/plan.json")
    assert plan.status_code == 200 and plan.json()["questions"]
    snapshot = next((built_ws.root / "sources").glob("*.txt")).name
    text = client.get(f"/runs/{rid}/sources/{snapshot}")
    assert text.headers["content-type"].startswith("text/plain") and text.headers["x-content-type-options"] == "nosniff"
    viewer = client.get(f"/runs/{rid}/")
    assert viewer.status_code == 200 and "text/html" in viewer.headers["content-type"]
    assert built_ws.manifest["question"] in viewer.text and not (built_ws.root / "index.html").exists()
    (tmp_path / "secret.txt").write_text("secret", encoding="utf-8")
    (built_ws.root / "drafts" / "link.md").symlink_to(tmp_path / "secret.txt")
    for path in (
        f"/runs/{rid}/../../secret.txt",
        f"/runs/{rid}/..%2f..%2fsecret.txt",
        f"/runs/{rid}/%2e%2e/%2e%2e/secret.txt",
        f"/runs/{rid}/.harness/run.lock",
        f"/runs/{rid}/drafts/link.md",
        f"/runs/{rid}/drafts",
        f"/runs/{rid}/sources/..%5c..%5csecret.txt",
        "/runs/..%2f..%2fsecret.txt/plan.json",
        "/static/..%2f..%2fapp.py",
        "/static/index.html",
    ):
        r = client.get(path)
        assert r.status_code == 404 and "secret" not in r.text, path
    assert client.post(f"/runs/{rid}/plan.json", headers=CHANGE).status_code == 405


def test_the_page_is_plain_html_with_a_strict_content_security_policy(client):
    page = client.get("/")
    csp = page.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "default-src 'none'" in csp and "unsafe-inline" not in csp
    assert '<script src="/static/serve.js"' in page.text and "http" not in page.text.split("<body>")[0]
    js = client.get("/static/serve.js")
    assert js.headers["content-type"].startswith("text/javascript")
    assert ".innerHTML" not in js.text and "insertAdjacentHTML" not in js.text and "eval(" not in js.text
    # the server's fragments (rendered and escaped by the viewer's sections) are parsed in one place, apart from the page
    assert js.text.count("new DOMParser(") == 1 and "createContextualFragment" not in js.text


def test_the_event_stream_is_the_trace_and_run_json_and_two_watchers_see_the_same(built_ws):
    lines = (built_ws.root / "trace.jsonl").read_text(encoding="utf-8").splitlines()

    async def collect(last_id: int, rounds: int) -> list[dict]:
        calls = 0

        async def disconnected() -> bool:
            nonlocal calls
            calls += 1
            return calls > rounds

        return [
            e
            async for e in run_events(
                built_ws.root, lambda: {"status": built_ws.status}, lambda: False, disconnected, last_id
            )
        ]

    first, second = asyncio.run(collect(0, 1)), asyncio.run(collect(0, 1))
    assert first == second
    trace = [e for e in first if e["event"] == "trace"]
    assert [json.loads(e["data"])["event"] for e in trace] == [json.loads(x) for x in lines]
    lines_shown = [json.loads(e["data"])["line"] for e in trace]  # each with its line, as the viewer renders it
    assert lines_shown == [str(trace_line(Event.read(json.loads(x)))) for x in lines]
    assert lines_shown[0].startswith('<li data-event="run_created">')
    assert [e["id"] for e in trace] == [str(i) for i in range(1, len(lines) + 1)]
    assert [e["event"] for e in first].count("run") == 1
    resumed = asyncio.run(collect(len(lines) - 2, 1))
    assert [e["id"] for e in resumed if e["event"] == "trace"] == [str(len(lines) - 1), str(len(lines))]
    # a line being written (no newline yet) waits; a torn line is skipped
    with open(built_ws.root / "trace.jsonl", "a", encoding="utf-8") as fh:
        fh.write('{"broken\n{"event": "partial"')
    again = [json.loads(e["data"])["event"] for e in asyncio.run(collect(0, 1)) if e["event"] == "trace"]
    assert len(again) == len(lines)


def test_serve_prints_a_login_token_on_every_host_loopback_included(tmp_path, monkeypatch, capsys):
    import socket

    import uvicorn

    from harness.surfaces.serve import serve_command

    apps = []

    def bind_socket(config):  # never listen anywhere but 127.0.0.1 in a test, whatever --host says
        apps.append(config.app)
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        return sock

    monkeypatch.setattr(uvicorn.Config, "bind_socket", bind_socket)
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)
    monkeypatch.chdir(tmp_path)
    tokens = []
    for host in ("0.0.0.0", "127.0.0.1"):
        assert serve_command(tmp_path / "runs", host, 0, None) == 0
        out = capsys.readouterr().out.splitlines()
        pattern = rf"research serve: http://{re.escape(host)}:\d+/login\?token=([A-Za-z0-9_-]{{40,}})"
        tokens.append(re.fullmatch(pattern, out[0]).group(1))
        assert any("plain HTTP" in line for line in out) == (host == "0.0.0.0")  # off loopback: say to use TLS
        with TestClient(apps[-1], base_url=BASE) as c:
            assert c.get("/api/runs").status_code == 401
            assert c.get("/api/runs", headers={"Authorization": f"Bearer {tokens[-1]}"}).status_code == 200
    assert tokens[0] != tokens[1]  # a new token at each start


def test_a_run_is_live_while_some_process_holds_its_run_lock(client, built_ws):
    from harness.surfaces.serve.launcher import lock_held

    assert not lock_held(built_ws.root)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from harness.workspace.store import Workspace; ws = Workspace.open(sys.argv[1]); "
            "ws.acquire_run_lock(); print('held', flush=True); time.sleep(120)",
            str(built_ws.root),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        assert lock_held(built_ws.root)
        d = client.get(f"/api/runs/{built_ws.run_id}").json()
        assert d["live"] is True and d["resumable"] is False
        busy = client.post(f"/api/runs/{built_ws.run_id}/resume", json={}, headers=CHANGE)
        assert busy.status_code == 409 and "a process is working on it" in busy.json()["error"]
    finally:
        holder.kill()
        holder.wait()
    assert not lock_held(built_ws.root)
    assert client.get(f"/api/runs/{built_ws.run_id}").json()["live"] is False


def test_a_completed_run_can_be_followed_up_and_others_are_refused(tmp_path, runs_dir, built_ws):
    """POST /api/runs/{id}/ask starts `research ask`: the new run records its parent and waits at its plan gate."""
    import time

    from fakes.workspaces import FIXTURE_QUESTION, write_fixture_corpus
    from harness.orchestrator.config import build_config
    from harness.orchestrator.lifecycle import start_run

    corpus = write_fixture_corpus(tmp_path / "corpus")
    parent = start_run(build_config(FIXTURE_QUESTION, corpus=str(corpus), runs_dir=str(runs_dir), yes=True))
    assert parent.status == "completed", parent.reason
    with make_client(tmp_path, runs_dir) as client:
        # the run page carries the answer check's verdicts, as metrics.json holds them
        answers = client.get(f"/api/runs/{parent.run_dir.name}").json()["answers"]
        metrics = json.loads((parent.run_dir / "metrics.json").read_text())
        assert [(a["question_id"], a["verdict"]) for a in answers["questions"]] == [
            (a["question_id"], a["verdict"]) for a in metrics["answers"]
        ]
        assert answers["coverage"] == metrics["ratios"]["answer_coverage"]["value"]
        path = f"/api/runs/{parent.run_dir.name}/ask"
        assert client.post(path, json={}, headers=CHANGE).json()["field"] == "question"
        assert client.post(path, json={"question": "x?", "yes": True}, headers=CHANGE).status_code == 400
        refused = client.post(f"/api/runs/{built_ws.run_id}/ask", json={"question": "Why?"}, headers=CHANGE)
        assert refused.status_code == 409 and "only a completed run" in refused.json()["error"]
        assert client.post(path, json={"question": "Why?"}).status_code == 403  # CSRF header, as every change
        res = client.post(path, json={"question": "Which fastjson release is current?"}, headers=CHANGE)
        assert res.status_code == 201, res.text
        child = res.json()["run_id"]
        deadline = time.monotonic() + 120
        while client.get(f"/api/runs/{child}").json()["status"] != "awaiting_plan_approval":
            assert time.monotonic() < deadline, client.get(f"/api/runs/{child}").json()
            time.sleep(0.2)
        manifest = json.loads((runs_dir / child / "run.json").read_text())
        assert manifest["parent"]["run_id"] == parent.run_dir.name
