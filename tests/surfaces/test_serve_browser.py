"""`research serve` in headless Chromium: whole offline runs steered from the browser.

The app runs under uvicorn on 127.0.0.1 (port 0), each run in its own `research`
process as in production. One test starts a run from the form, edits a plan question
and approves, opens a citation of the rendered report at the final gate to its quote and signs it
off (require_final_approval), watches the timeline reach `completed` and opens a citation in the
audit viewer with its quote highlighted;
another rejects a plan with feedback and sees the refined revision with its tags beside
the previous one. Skipped without Chromium or Playwright (see fakes/browser.py).
"""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
import uvicorn

from fakes.browser import browser, page  # noqa: F401 - the shared headless Chromium fixtures
from fakes.workspaces import FIXTURE_QUESTION, write_fixture_corpus
from harness.contract.citations import CARD_LINK
from harness.contract.formats import sha256_bytes
from harness.contract.quotes import normalize_ws
from harness.evidence.report import rendered_from
from harness.surfaces.serve.app import ServeSettings, create_app
from harness.surfaces.serve.request import CorpusRoots

RUN_TIMEOUT_MS = 240_000  # a run's processes start Python and load the corpus; the machine may be busy


class LiveServer:
    """The app under uvicorn on 127.0.0.1 in a background thread."""

    def __init__(self, settings: ServeSettings):
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        self.server = uvicorn.Server(uvicorn.Config(create_app(settings), log_level="warning", lifespan="on"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, daemon=True)
        self.thread.start()
        while not self.server.started:
            time.sleep(0.02)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)


@pytest.fixture
def served(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the runs' processes start in the server's folder (no research.yaml there)
    corpus = write_fixture_corpus(tmp_path / "corpus")
    runs_dir = tmp_path / "runs"
    runs_dir.mkdir()
    server = LiveServer(ServeSettings(runs_dir, CorpusRoots.parse([str(tmp_path)], tmp_path), tmp_path))
    server.corpus, server.runs_dir = corpus, runs_dir
    try:
        yield server
    finally:
        server.stop()


def _wait_for_no_process(server, run_id: str) -> dict:
    """The run's state once no process works on it (its children have ended)."""
    deadline = time.monotonic() + RUN_TIMEOUT_MS / 1000
    while time.monotonic() < deadline:
        d = httpx.get(f"{server.url}/api/runs/{run_id}").json()
        if not d["live"]:
            return d
        time.sleep(0.2)
    raise AssertionError(f"run {run_id} still has a process working on it")


def _validate(run_dir: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "harness", "validate", str(run_dir)], capture_output=True, text=True, timeout=300
    )


def test_a_whole_offline_run_in_the_browser(served, page):  # noqa: F811 - the fixture
    page.goto(served.url + "/#/new")
    page.fill("#f-question", FIXTURE_QUESTION)
    page.fill("#f-corpus", str(served.corpus))
    page.check("#f-require_final_approval")
    page.click("#start")
    # the plan gate waits for the browser: edit one question, then approve
    gate = page.locator("#plan-gate")
    gate.wait_for(timeout=RUN_TIMEOUT_MS)
    run_id = re.search(r"#/run/(.+)$", page.url).group(1)
    run_dir = served.runs_dir / run_id
    first = gate.locator("tr.q").first
    qid = first.get_attribute("data-qid")
    edited_text = first.locator(".q-text").input_value() + " Compare their latest release versions."
    first.locator(".q-text").fill(edited_text)
    assert "awaiting_plan_approval" in page.locator("#run-head").inner_text().replace(" ", "_")
    page.click("#approve-plan")
    # the final gate: the passing draft and its sha256; the sign-off sends that hash
    final = page.locator("#final-gate")
    final.wait_for(timeout=RUN_TIMEOUT_MS)
    draft_path = final.locator("h3").inner_text().removeprefix("Final gate: ").strip()
    shown_sha = page.locator("#draft-sha").inner_text()
    assert shown_sha == sha256_bytes((run_dir / draft_path).read_bytes())
    assert normalize_ws(final.locator("pre.draft").text_content()) == normalize_ws(
        (run_dir / draft_path).read_text(encoding="utf-8")
    )
    # it is signed from the report the sign-off prints: a citation there opens its card's quote in the source
    report = final.locator("#final-report")
    citations = report.locator("a.cite")
    assert citations.count() >= 1 and report.locator("h1, h2").first.inner_text().strip() != ""  # the viewer's render
    assert final.locator("#quote-panel").is_hidden()
    cited = citations.first
    card_id = cited.get_attribute("data-href").removeprefix("source-cards/").removesuffix(".json")
    assert cited.get_attribute("href") == f"/runs/{run_id}/source-cards/{card_id}.json"  # the run's file, if opened
    card = json.loads((run_dir / "source-cards" / f"{card_id}.json").read_text(encoding="utf-8"))
    cited.click()
    quote = final.locator("#quote-panel mark.quote")
    quote.wait_for()
    assert normalize_ws(quote.text_content()) == normalize_ws(card["quote"])
    snapshot = (run_dir / "sources" / f"{card['source_id']}.txt").read_text(encoding="utf-8")
    context = final.locator("#quote-panel .quote-context").text_content().strip("…")
    assert context in snapshot and card["quote"] in context  # the quote where it stands in its source
    assert card_id in final.locator("#quote-panel h4").inner_text()
    labels = citations.evaluate_all("links => links.map(a => a.textContent)")  # citations, then Evidence's cards
    shown_citations = sum(bool(re.fullmatch(r"C\d+.*", label)) for label in labels)
    page.click("#sign-off")
    page.locator("#stage .badge.b-completed").wait_for(timeout=RUN_TIMEOUT_MS)
    final_report = (run_dir / "final-report.md").read_text(encoding="utf-8")
    assert rendered_from(final_report) == (draft_path, shown_sha)  # the report signed is the report printed
    assert len(CARD_LINK.findall(final_report)) == shown_citations
    # the timeline: each branch's status and cards, the budget meters, the review rounds, the trace
    branches = page.locator("#branches tr")
    assert branches.count() >= 1 and "completed" in branches.first.inner_text()
    assert int(re.search(r"(\d+) card", branches.first.locator(".cards").inner_text()).group(1)) > 0
    assert page.locator("#budget meter").count() >= 2
    assert page.locator('#budget tr[data-dim="llm_calls"]').count() == 0  # an offline run shows no model meters
    assert page.locator("#reviews .review").count() >= 1
    review_links = page.locator("#reviews a").evaluate_all("links => links.map(a => a.getAttribute('href'))")
    assert review_links and all(h.startswith(f"/runs/{run_id}/") for h in review_links)  # into the audit viewer
    assert page.locator('#events li[data-event="status"]').filter(has_text="completed").count() >= 1
    # the run folder is the record: the edit, the approval and the sign-off, bound to their hashes
    plan = json.loads((run_dir / "plan.json").read_text(encoding="utf-8"))
    assert next(q for q in plan["questions"] if q["id"] == qid)["text"] == edited_text
    manifest = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    assert [(d["gate"], d["decision"]) for d in manifest["decisions"]] == [("plan", "edited"), ("final", "approved")]
    assert manifest["final_approval"]["sha256"] == shown_sha and manifest["status"] == "completed"
    assert _validate(run_dir).returncode == 0
    # the audit viewer opens from the same app: a citation shows its quote highlighted in the source
    page.click("#open-viewer")
    page.wait_for_url(f"{served.url}/runs/{run_id}/")
    citation = next(
        a for a in page.locator('.report a[href^="source-cards/"]').all() if re.fullmatch(r"C\d+.*", a.inner_text())
    )
    card_id = citation.get_attribute("href").removeprefix("source-cards/").removesuffix(".json")
    card = json.loads((run_dir / "source-cards" / f"{card_id}.json").read_text(encoding="utf-8"))
    citation.click()
    mark = page.locator("#v-panel mark.quote")
    assert mark.count() == 1 and mark.is_visible()
    assert normalize_ws(mark.text_content()) == normalize_ws(card["quote"])
    assert page.errors == [] and page.offsite == []


def test_a_rejected_plan_comes_back_refined_with_its_tags_beside_the_previous_revision(served, page):  # noqa: F811
    page.goto(served.url + "/#/new")
    page.fill("#f-question", FIXTURE_QUESTION)
    page.fill("#f-corpus", str(served.corpus))
    page.click("#start")
    gate = page.locator("#plan-gate")
    gate.wait_for(timeout=RUN_TIMEOUT_MS)
    run_id = re.search(r"#/run/(.+)$", page.url).group(1)
    before = [t.input_value() for t in gate.locator(".q-text").all()]
    assert "revision 1" in page.locator("#plan-title").inner_text()
    # an edit that does not validate is refused beside its question, and nothing is written
    plan_before = (served.runs_dir / run_id / "plan.json").read_bytes()
    first = gate.locator("tr.q").first
    first.locator(".q-text").fill("ab")
    page.click("#approve-plan")
    error = first.locator(".q-error")
    error.filter(has_text="plan.json:/questions/0/text").wait_for(timeout=30_000)
    assert "row-error" in first.get_attribute("class")
    assert (served.runs_dir / run_id / "plan.json").read_bytes() == plan_before
    first.locator(".q-text").fill(before[0])
    page.fill("#feedback", "Also cover licensing.")
    page.click("#reject-plan")
    page.locator("#plan-title", has_text="revision 2").wait_for(timeout=RUN_TIMEOUT_MS)
    previous = page.locator("#previous-revision")
    assert "Previous revision (1)" in previous.inner_text()
    assert [r.locator("td").nth(2).inner_text() for r in previous.locator("tr").all()] == before
    rows = page.locator("#current-revision tr.q")
    tags = {r.get_attribute("data-qid"): r.locator(".badge").all_inner_texts() for r in rows.all()}
    new = [q for q, t in tags.items() if "NEW" in t]
    assert len(new) == 1
    assert "licensing" in page.locator(f'#current-revision tr.q[data-qid="{new[0]}"] .q-text').input_value()
    for box in page.locator("#current-revision .q-text").all():  # the refined plan's questions read whole
        size = box.evaluate("e => [e.tagName, e.clientWidth, e.scrollHeight - e.clientHeight]")
        assert size[0] == "TEXTAREA" and size[1] >= 200 and size[2] <= 2, size
    assert "Also cover licensing." in page.locator("#refinement blockquote").inner_text()
    assert page.locator("#refinement .badge", has_text="NEW").count() == 1
    manifest = json.loads((served.runs_dir / run_id / "run.json").read_text(encoding="utf-8"))
    assert [d["decision"] for d in manifest["decisions"]] == ["rejected"]
    assert manifest["decisions"][0]["feedback"] == "Also cover licensing."
    assert _wait_for_no_process(served, run_id)["gate"] == "plan"
    # the refined plan is edited where it is read: a longer question still reads whole, and the edit is approved
    box = page.locator(f'#current-revision tr.q[data-qid="{new[0]}"] .q-text')
    longer = (
        box.input_value()
        + " Name the licence of each library, where its documentation states one, and when it changed."
    )
    box.fill(longer)
    page.wait_for_function(  # the box grows with its text: wait for it rather than for a frame
        "e => e.scrollHeight - e.clientHeight <= 2", arg=box.element_handle(), timeout=10_000
    )
    page.click("#approve-plan")
    page.locator("#plan-gate").wait_for(state="detached", timeout=RUN_TIMEOUT_MS)
    plan = json.loads((served.runs_dir / run_id / "plan.json").read_text(encoding="utf-8"))
    assert plan["revision"] == 2 and next(q for q in plan["questions"] if q["id"] == new[0])["text"] == longer
    manifest = json.loads((served.runs_dir / run_id / "run.json").read_text(encoding="utf-8"))
    assert [d["decision"] for d in manifest["decisions"]] == ["rejected", "edited"]
    assert _wait_for_no_process(served, run_id)["status"] == "completed"
    assert [re.search(r"status of (\d+)", e).group(1) for e in page.errors] == ["400"]  # the refused edit
    assert page.offsite == []


def test_two_browsers_watching_one_run_see_the_same_events(served, browser):  # noqa: F811
    r = httpx.post(
        f"{served.url}/api/runs",
        json={"question": FIXTURE_QUESTION, "corpus": str(served.corpus)},
        headers={"X-Research-Request": "1"},
        timeout=RUN_TIMEOUT_MS / 1000,
    )
    assert r.status_code == 201, r.text
    run_id = r.json()["run_id"]
    pages = [browser.new_context().new_page() for _ in range(2)]
    for pg in pages:
        pg.goto(f"{served.url}/#/run/{run_id}")
        pg.locator("#plan-gate").wait_for(timeout=RUN_TIMEOUT_MS)
    pages[0].click("#approve-plan")
    for pg in pages:
        pg.locator("#stage .badge.b-completed").wait_for(timeout=RUN_TIMEOUT_MS)
        pg.locator('#events li[data-event="status"]', has_text="completed").wait_for(timeout=RUN_TIMEOUT_MS)
    seen = [pg.locator("#events li").all_inner_texts() for pg in pages]
    assert seen[0] == seen[1] and len(seen[0]) == len(
        (served.runs_dir / run_id / "trace.jsonl").read_text(encoding="utf-8").splitlines()
    )
    for pg in pages:
        pg.context.close()


def test_a_run_stopped_by_its_budget_resumes_with_raised_limits_from_the_page(served, page):  # noqa: F811
    r = httpx.post(
        f"{served.url}/api/runs",
        json={"question": FIXTURE_QUESTION, "corpus": str(served.corpus), "budget": {"searches": 2}},
        headers={"X-Research-Request": "1"},
        timeout=RUN_TIMEOUT_MS / 1000,
    )
    assert r.status_code == 201, r.text
    run_id = r.json()["run_id"]
    page.goto(f"{served.url}/#/run/{run_id}")
    page.locator("#plan-gate").wait_for(timeout=RUN_TIMEOUT_MS)
    page.click("#approve-plan")
    panel = page.locator("#resume-panel")
    panel.wait_for(timeout=RUN_TIMEOUT_MS)
    assert "budget exhausted" in panel.inner_text() and page.locator("#r-searches").input_value() == "2"
    page.fill("#r-searches", "400")
    page.click("#resume")
    page.locator("#stage .badge.b-completed").wait_for(timeout=RUN_TIMEOUT_MS)
    manifest = json.loads((served.runs_dir / run_id / "run.json").read_text(encoding="utf-8"))
    assert manifest["budget"]["limits"]["searches"] == 400 and manifest["budget"]["spent"]["searches"] > 2
    assert _validate(served.runs_dir / run_id).returncode == 0
    # the runs page lists it, filtered by status
    page.goto(f"{served.url}/#/")
    row = page.locator(f'#runs tr[data-run="{run_id}"]')
    row.wait_for(timeout=10_000)
    assert "completed" in row.inner_text() and "offline" in row.inner_text()
    page.select_option("#status-filter", "budget_exhausted")
    row.wait_for(state="detached", timeout=10_000)
    page.select_option("#status-filter", "completed")
    row.wait_for(timeout=10_000)
    assert page.errors == [] and page.offsite == []


def test_the_form_shows_the_clis_messages_beside_their_fields_and_starts_nothing(served, page):  # noqa: F811
    page.goto(served.url + "/#/new")
    page.fill("#f-question", "asyncio?")  # a word or two is refused at the form, before any request
    page.click("#start")
    question_error = page.locator('[data-error-for="question"]')
    question_error.filter(has_text="too short").wait_for(timeout=30_000)
    assert question_error.inner_text().startswith("QUESTION: too short to research (1 word)")
    page.fill("#f-question", FIXTURE_QUESTION)
    page.fill("#f-corpus", "/etc")
    page.click("#start")
    corpus_error = page.locator('[data-error-for="corpus"]')
    corpus_error.filter(has_text="outside the allowed corpus roots").wait_for(timeout=30_000)
    assert corpus_error.inner_text().startswith("--corpus /etc: outside the allowed corpus roots")
    page.fill("#f-corpus", str(served.corpus))
    page.fill("#f-budget\\.searches", "0")
    page.click("#start")
    budget_error = page.locator('[data-error-for="budget.searches"]')
    budget_error.filter(has_text="too small").wait_for(timeout=30_000)
    assert budget_error.inner_text() == (
        "--budget-searches 0: too small for one pass (the Researcher needs at least 1 search)"
    )
    assert corpus_error.inner_text() == "" and question_error.inner_text() == ""
    assert list(served.runs_dir.iterdir()) == [] and page.url.endswith("#/new")
    # the only console lines are Chromium's notes of the two refused requests (403, then 400)
    assert [re.search(r"status of (\d+)", e).group(1) for e in page.errors] == ["403", "400"]
    assert page.offsite == []


def test_a_corpus_under_a_root_is_picked_by_its_name(served, page):  # noqa: F811
    """The form offers the folders under the roots; a name typed there is the folder under its root."""
    page.goto(served.url + "/#/new")
    page.locator("#f-question").wait_for()  # the form is drawn once /api/meta has answered
    options = page.locator("#corpus-roots option").evaluate_all("os => os.map(o => o.value)")
    assert "corpus" in options  # a folder under the root tmp_path
    search = page.locator('[data-field="search"]')  # only options that apply: the search provider with the web
    assert search.is_hidden()
    page.check("#f-web")
    assert search.is_visible()
    page.uncheck("#f-web")
    page.fill("#f-question", FIXTURE_QUESTION)
    page.fill("#f-corpus", "corpus")
    page.click("#start")
    page.locator("#plan-gate").wait_for(timeout=RUN_TIMEOUT_MS)
    run_id = re.search(r"#/run/(.+)$", page.url).group(1)
    manifest = json.loads((served.runs_dir / run_id / "run.json").read_text(encoding="utf-8"))
    assert manifest["config"]["corpus"] == str(served.corpus)
    assert page.errors == [] and page.offsite == []


def test_a_completed_run_is_exported_with_a_button(served, page, tmp_path):  # noqa: F811
    from harness.orchestrator.config import build_config
    from harness.orchestrator.lifecycle import start_run

    done = start_run(build_config(FIXTURE_QUESTION, corpus=str(served.corpus), runs_dir=str(served.runs_dir), yes=True))
    assert done.status == "completed", done.reason
    rid = done.run_dir.name
    page.goto(f"{served.url}/#/run/{rid}")
    for fmt in ("html", "md"):
        with page.expect_download(timeout=60_000) as download:
            page.click(f'#export a[data-format="{fmt}"]')
        assert download.value.suggested_filename == f"{rid}.{fmt}"
        saved = tmp_path / download.value.suggested_filename
        download.value.save_as(saved)
        check = subprocess.run(
            [sys.executable, "-m", "harness", "validate", str(done.run_dir), "--export", str(saved)],
            capture_output=True,
            text=True,
        )
        assert check.returncode == 0, check.stdout + check.stderr
    assert page.errors == [] and page.offsite == []


def test_a_bad_run_id_and_a_stopped_server_say_so(served, page):  # noqa: F811
    page.goto(served.url + "/#/run/20990101T000000.000000Z-abcdef")
    trouble = page.locator("#run-trouble")
    trouble.filter(has_text="no such run").wait_for(timeout=30_000)
    page.goto(served.url + "/#/")
    page.locator("#runs").wait_for(timeout=30_000)
    served.stop()
    page.get_by_text("The server does not answer").wait_for(timeout=30_000)


def test_a_follow_up_asked_from_the_page_and_its_run_link_both_ways(served, page):  # noqa: F811
    """A completed run's page asks a follow-up (a question of a word or two is refused there; one beginning with a
    dash is a question): the follow-up's page links to the run it follows, and that run's page links back."""
    from harness.orchestrator.config import build_config
    from harness.orchestrator.lifecycle import start_run

    done = start_run(build_config(FIXTURE_QUESTION, corpus=str(served.corpus), runs_dir=str(served.runs_dir), yes=True))
    assert done.status == "completed", done.reason
    parent = done.run_dir.name
    page.goto(f"{served.url}/#/run/{parent}")
    page.locator("#ask-panel").wait_for(timeout=30_000)
    page.fill("#ask-question", "Why?")
    page.click("#ask")
    page.locator("#ask-error", has_text="too short").wait_for(timeout=10_000)
    assert [p.name for p in served.runs_dir.iterdir() if not p.name.startswith(".")] == [parent]  # nothing started
    question = "-v: which fastjson release is current, and since when?"
    page.fill("#ask-question", question)
    page.click("#ask")
    page.wait_for_url(re.compile(r".*#/run/(?!" + re.escape(parent) + r"$).+$"), timeout=RUN_TIMEOUT_MS)
    child = re.search(r"#/run/(.+)$", page.url).group(1)
    back = page.locator("#parent-run a")
    back.wait_for(timeout=RUN_TIMEOUT_MS)
    assert back.inner_text() == FIXTURE_QUESTION and back.get_attribute("href") == f"#/run/{parent}"
    page.locator("#plan-gate").wait_for(timeout=RUN_TIMEOUT_MS)  # the follow-up's plan waits for the browser
    assert page.locator("#run-head h2").inner_text() == question
    back.click()
    forward = page.locator("#child-runs a", has_text=question)
    forward.wait_for(timeout=30_000)
    assert forward.get_attribute("href") == f"#/run/{child}"
    assert _wait_for_no_process(served, child)["gate"] == "plan"
    assert page.errors == [] and page.offsite == []
