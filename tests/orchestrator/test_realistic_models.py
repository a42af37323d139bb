"""The whole pipeline driven by scripted models that behave like real ones (tests/fakes/realistic.py).

They quote one sentence with the passage's offsets, drop Markdown marks, use curly quotes,
search more often than their budget allows, reply in text instead of writing, read files
one per turn, cite card ids that do not exist, and write natural drafts they fix from the
harness's feedback. Each scenario asserts a validated final report, or a defined status
with a clear reason where the scenario must fail. No test reaches the internet.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from fakes.realistic import DOCS, Quirks, RealisticUsage, realistic_policies
from fakes.scripted import GeminiDispatch, scripted_models
from fakes.searxng_web import StaticSearch
from fakes.workspaces import delegations, manifest, trace, write_docs
from harness.contract.quotes import normalize_ws
from harness.orchestrator.config import build_config
from harness.orchestrator.lifecycle import resume_run, start_run
from harness.workspace.validate import validate_workspace

QUESTION = "How do asyncio.TaskGroup and asyncio.gather differ when a task fails?"


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return write_docs(tmp_path / "corpus", DOCS)


def run(tmp_path: Path, corpus: Path, quirks: Quirks, *, usage=None, **kw):
    kw.setdefault("yes", True)
    cfg = build_config(
        QUESTION, corpus=str(corpus), runs_dir=str(tmp_path / "runs"), engine="llm", model="scripted:fake", **kw
    )
    models = scripted_models(realistic_policies(quirks), usage=usage)
    return start_run(cfg, models=models), models


def assert_completed(result) -> dict:
    assert result.status == "completed", (result.status, result.reason)
    assert (result.run_dir / "final-report.md").is_file()
    assert validate_workspace(result.run_dir) == []
    return manifest(result.run_dir)


def cards(run_dir: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((run_dir / "source-cards").glob("*.json"))]


def tool_results(model, name: str) -> list[str]:
    """What each `name` call answered, once per call (the same answer recurs in every later message list)."""
    seen: dict[str, str] = {}
    for msgs in model.calls:
        for m in msgs:
            if getattr(m, "name", None) == name and getattr(m, "tool_call_id", None):
                seen.setdefault(m.tool_call_id, str(m.content))
    return list(seen.values())


def notes(run_dir: Path, agent: str) -> list[str]:
    return [n for e in delegations(run_dir, agent) for n in (e.get("detail") or {}).get("notes", [])]


@pytest.mark.parametrize("style", ["sentence", "offset", "no_marks", "curly"])
def test_quotes_are_located_whatever_span_and_typography_the_model_gives(tmp_path, corpus, style):
    result, _ = run(tmp_path, corpus, Quirks(quote=style))
    assert_completed(result)
    got = cards(result.run_dir)
    assert got
    for card in got:  # the card keeps the snapshot's own text at its true span
        text = (result.run_dir / f"sources/{card['source_id']}.txt").read_text()
        assert text[card["span"]["start"] : card["span"]["end"]] == card["quote"]
        assert "\n\n" not in card["quote"]  # one sentence, not the whole passage
    if style in ("no_marks", "curly"):
        assert any("located by typography" in n for n in notes(result.run_dir, "researcher"))
        assert any("`" in c["quote"] or "**" in c["quote"] or '"' in c["quote"] for c in got)


def test_a_model_that_paraphrases_first_fixes_its_quote_from_the_closest_passage(tmp_path, corpus):
    result, models = run(tmp_path, corpus, Quirks(quote="sentence", fabricate_first=True))
    assert_completed(result)
    refusals = [r for r in tool_results(models["researcher"], "record_evidence") if "quote not found" in r]
    assert refusals and all("The closest passage is at" in r for r in refusals)
    assert cards(result.run_dir)


@pytest.mark.parametrize("k", [5, 20])
def test_searching_past_the_step_budget_is_told_and_the_branch_completes(tmp_path, corpus, k):
    result, models = run(tmp_path, corpus, Quirks(searches=12, k=k))
    m = assert_completed(result)
    assert all(b["status"] == "completed" for b in m["branches"].values())
    refused = [r for r in tool_results(models["researcher"], "search") if r.startswith("No search was made")]
    assert refused and all("step budget for searches is exhausted (8 of 8)" in r for r in refused)
    assert all("[search" in r for r in tool_results(models["researcher"], "search") if not r.startswith("No search"))
    spent = [e["budget"] for e in delegations(result.run_dir, "researcher")]
    assert spent and m["budget"]["spent"]["searches"] == 8 * len(spent)


def test_planner_and_writer_that_reply_in_text_get_their_documents_written(tmp_path, corpus):
    result, _ = run(tmp_path, corpus, Quirks(plan_in_text_first=True, draft_in_text_first=True))
    assert_completed(result)
    assert any("plan.json: written from the planner's reply" in n for n in notes(result.run_dir, "planner"))
    assert any("written from the writer's reply" in n for n in notes(result.run_dir, "writer"))


def test_a_natural_draft_converges_within_one_writer_delegation(tmp_path, corpus):
    result, models = run(tmp_path, corpus, Quirks(natural=True))
    assert_completed(result)
    assert sorted(p.name for p in (result.run_dir / "drafts").iterdir()) == ["draft-1.md"]
    checks = tool_results(models["writer"], "check_draft")
    assert checks and "missing_citation" in checks[0] and "No error defects" in checks[-1]
    report = (result.run_dir / "final-report.md").read_text()
    assert "| Question | What the sources say |" in report and "](source-cards/" in report
    assert "3.11" not in report.split("---")[0]  # the version no evidence carried was dropped, not cited


def test_an_analyst_reading_one_file_per_turn_over_25_cards_and_a_long_claim_table(tmp_path, corpus):
    quirks = Quirks(
        quote="sentence", research_questions=5, cards=6, at_once=True, k=20, piecemeal=True, read_claims=True
    )
    result, models = run(tmp_path, corpus, quirks)
    assert_completed(result)
    assert len(cards(result.run_dir)) >= 25
    (analyst,) = delegations(result.run_dir, "analyst")
    assert analyst["llm_calls"] == 20  # its limit: told at the last call, it wrote the table from its brief
    claims_text = (result.run_dir / "claims.json").read_text()
    n_claims = len(json.loads(claims_text)["claims"])
    assert n_claims >= 25 and claims_text.count("\n") > 100
    draft = (result.run_dir / "drafts/draft-1.md").read_text()
    assert all(f"[@C{i}]" in draft for i in range(1, n_claims + 1))  # read whole: no claim was cut off


def test_an_analyst_citing_three_unknown_cards_fixes_them_in_one_retry(tmp_path, corpus):
    result, models = run(tmp_path, corpus, Quirks(unknown_cards_first=True))
    assert_completed(result)
    refused = [r for r in tool_results(models["analyst"], "write_file") if "refused" in r]
    assert len(refused) == 1 and refused[0].count("does not exist in source-cards/") == 3
    (analyst,) = delegations(result.run_dir, "analyst")
    assert analyst["retries"] == 1


def test_a_stray_other_error_is_fixed_in_a_revise_round(tmp_path, corpus):
    result, _ = run(tmp_path, corpus, Quirks(stray_other_first=True))
    assert_completed(result)
    assert sorted(p.name for p in (result.run_dir / "reviews").iterdir()) == ["review-1.json", "review-2.json"]
    assert manifest(result.run_dir)["stats"]["revisions"] == 1


def test_a_human_route_ends_the_run_needs_human_with_the_reason(tmp_path, corpus):
    result, _ = run(tmp_path, corpus, Quirks(human_route=True))
    assert result.status == "needs_human" and "has defects only a human can resolve" in result.reason
    assert validate_workspace(result.run_dir) == []


def test_a_researcher_route_sends_the_question_back_with_its_defects_and_cards(tmp_path, corpus):
    result, models = run(tmp_path, corpus, Quirks(research_more_first=True))
    assert_completed(result)
    second = [e for e in delegations(result.run_dir, "researcher") if e["delegation_id"] == "researcher-Q2-r1"]
    assert second
    briefs = [
        m.content
        for msgs in models["researcher"].calls
        for m in msgs[:2]
        if "Why you are researching again" in str(m.content)
    ]
    assert briefs and "Q2 needs a second source." in briefs[0] and "q2-src-" in briefs[0]


def test_realistic_token_usage_stays_within_the_default_budgets_on_a_five_question_plan(tmp_path, corpus):
    result, _ = run(
        tmp_path, corpus, Quirks(research_questions=5, searches=3, natural=True), usage=RealisticUsage(seed=7)
    )
    m = assert_completed(result)
    metrics = json.loads((result.run_dir / "metrics.json").read_text())
    assert all(metrics["roles"][r]["thinking_tokens"] > 0 for r in ("planner", "researcher", "analyst", "writer"))
    assert all(r["thinking_tokens"] < r["tokens"] for r in metrics["roles"].values() if r["tokens"])
    assert m["budget"]["spent"]["tokens"] <= m["budget"]["limits"]["tokens"]


class _Pages(BaseHTTPRequestHandler):
    PAGE = (
        "<html><head><title>TaskGroup notes</title></head><body><article><h1>TaskGroup notes</h1>"
        "<p>When one task in an asyncio TaskGroup fails, the group cancels every remaining task. "
        "The exceptions are then raised together in an ExceptionGroup.</p></article></body></html>"
    )

    def do_GET(self):  # noqa: N802 - http.server's name
        body = self.PAGE.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_a_web_run_whose_plan_allows_the_web_completes_against_a_local_server(tmp_path, corpus, monkeypatch):
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Pages)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/taskgroup"
    monkeypatch.setattr(
        "harness.sources.search.ddgs.DdgsSearch.search",
        lambda self, q, n: StaticSearch(
            [{"title": "TaskGroup notes", "url": url, "snippet": "TaskGroup cancels"}], "ddgs"
        ).search(q, n),
    )
    try:
        result, models = run(tmp_path, corpus, Quirks(web=True), web=True, web_allow_private=True)
    finally:
        server.shutdown()
    assert_completed(result)
    planner_brief = str(models["planner"].calls[0][1].content)
    assert "The web is ON for this run" in planner_brief and "Today is " in planner_brief
    got = cards(result.run_dir)
    records = [json.loads((result.run_dir / f"sources/{c['source_id']}.json").read_text()) for c in got]
    assert got and all(r.get("url", "").startswith("http://127.0.0.1:") for r in records)
    assert not any(
        e["event"] == "delegation" and e["agent"] == "researcher" and e["stop_reason"] != "completed"
        for e in trace(result.run_dir)
    )


def test_a_run_stopped_by_its_own_budget_resumes_with_a_larger_one_and_keeps_everything(tmp_path, corpus):
    result, _ = run(tmp_path, corpus, Quirks(), budget={"llm_calls": 8})
    assert result.status == "budget_exhausted" and "run budget for llm_calls is exhausted" in result.reason
    kept = sorted(
        p.relative_to(result.run_dir).as_posix() for p in result.run_dir.rglob("*.json") if ".harness" not in p.parts
    )
    assert validate_workspace(result.run_dir) == []
    same = resume_run(result.run_dir, models=scripted_models(realistic_policies(Quirks())))
    assert same.status == "budget_exhausted" and "--budget-" in same.reason  # no raise: it stays where it is
    done = resume_run(result.run_dir, budget={"llm_calls": 200}, models=scripted_models(realistic_policies(Quirks())))
    m = assert_completed(done)
    assert m["budget"]["limits"]["llm_calls"] == 200
    after = {
        p.relative_to(result.run_dir).as_posix() for p in result.run_dir.rglob("*.json") if ".harness" not in p.parts
    }
    assert set(kept) <= after  # nothing it had was lost
    raised = [e for e in trace(result.run_dir) if e.get("decision") == "budget_raised"]
    assert raised and raised[0]["detail"]["to"] == {"llm_calls": 200}


@pytest.mark.parametrize("style", ["sentence", "offset", "no_marks", "curly"])
def test_quotes_through_the_real_gemini_client_against_the_local_stub(tmp_path, corpus, monkeypatch, style):
    from fakes.gemini_stub import GeminiStub, point_env_at_stub

    dispatch = GeminiDispatch(realistic_policies(Quirks(quote=style)))
    with GeminiStub(dispatch) as stub:
        point_env_at_stub(monkeypatch, stub)
        cfg = build_config(
            QUESTION,
            corpus=str(corpus),
            runs_dir=str(tmp_path / "runs"),
            engine="llm",
            model="google_genai:gemini-3.5-flash",
            yes=True,
        )
        result = start_run(cfg)
    assert_completed(result)
    for card in cards(result.run_dir):
        text = (result.run_dir / f"sources/{card['source_id']}.txt").read_text()
        assert normalize_ws(text[card["span"]["start"] : card["span"]["end"]]) == normalize_ws(card["quote"])
    assert dispatch.seen["researcher"] and cards(result.run_dir)


def test_a_role_that_only_talks_ends_the_run_with_its_words_as_the_reason_never_none(tmp_path, corpus):
    from fakes.scripted import Say

    cfg = build_config(
        QUESTION, corpus=str(corpus), runs_dir=str(tmp_path / "runs"), engine="llm", model="scripted:fake", yes=True
    )
    models = scripted_models(realistic_policies(Quirks(), writer=lambda t: Say("I cannot write this draft.")))
    result = start_run(cfg, models=models)
    assert result.status == "failed" and "None" not in result.reason
    assert result.reason == "writer: wrote no drafts/draft-1.md; its last reply: I cannot write this draft."
    assert len(models["writer"].calls) == 2  # its reply, then one nudge naming the missing draft


def test_a_non_critical_branch_that_spends_its_searches_does_not_stop_the_run(tmp_path, corpus):
    """fan_in used to check budgets before criticality: one branch's own search budget ended the whole run."""
    result, _ = run(tmp_path, corpus, Quirks(research_questions=3, searches=20))
    m = assert_completed(result)
    plan = json.loads((result.run_dir / "plan.json").read_text())
    assert [q["critical"] for q in plan["questions"] if q["kind"] == "research"] == [True, False, False]
    assert all(b["status"] == "completed" for b in m["branches"].values())
