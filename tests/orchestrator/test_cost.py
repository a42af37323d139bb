"""Dollars a user can see and cap: every model call priced from the usage the provider reports (the real Gemini
and OpenAI clients against local stubs), cached input at its cached price; dollars per role, run and verified
claim in metrics.json, `research inspect` and the run's end line; a dollar budget that stops a run before it
passes its limit and resumes with a raised one; an unknown price shown as unknown and refused for a budget."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from genai_prices import Usage, calc_price

from fakes.gemini_stub import GeminiStub, chat_model
from fakes.openai_stub import OpenAIStub, clean_env
from fakes.scripted import GeminiDispatch, OpenAIDispatch, role_policies
from fakes.workspaces import ASYNCIO_DOCS, delegations, manifest, write_docs
from harness.contract.specs import ROLES
from harness.errors import UsageError
from harness.orchestrator.config import build_config
from harness.orchestrator.lifecycle import resume_run, start_run
from harness.surfaces.summary import cost_line, dollars, summarize
from harness.workspace.validate import validate_workspace

QUESTION = "How do failures propagate in asyncio task groups, timeouts and gather?"
GEMINI = "google_genai:gemini-3.5-flash"
# What every stub reply reports: 1000 prompt tokens of which 600 read from the cache, 100 answer and 20 thinking.
USAGE = {"prompt_tokens": 1000, "cached_tokens": 600, "output_tokens": 100}


@pytest.fixture(autouse=True)
def _offline_env(tmp_path, monkeypatch):
    monkeypatch.setenv("RESEARCH_CACHE_DIR", str(tmp_path / "cache"))
    for key in ("GOOGLE_API_KEY", "GEMINI_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GEMINI_BASE_URL"):
        monkeypatch.delenv(key, raising=False)


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return write_docs(tmp_path / "corpus", ASYNCIO_DOCS)


def config(tmp_path: Path, corpus: Path, **kw):
    kw.setdefault("yes", True)
    kw.setdefault("model", GEMINI)
    return build_config(QUESTION, corpus=str(corpus), runs_dir=str(tmp_path / "runs"), engine="llm", **kw)


def metrics(run_dir: Path) -> dict:
    return json.loads((run_dir / "metrics.json").read_text(encoding="utf-8"))


def gemini_call_usd(**usage: int) -> float:
    """One call's price by the table itself (not through the harness): Gemini's prompt count includes the cache,
    its output count (as LangChain reports it) the thinking."""
    table = Usage(
        input_tokens=usage["prompt_tokens"],
        cache_read_tokens=usage.get("cached_tokens", 0),
        output_tokens=usage["output_tokens"] + usage.get("thoughts_tokens", 0),
    )
    return float(calc_price(table, "gemini-3.5-flash", provider_id="google").total_price)


def test_dollars_through_the_real_gemini_client_from_its_usage_metadata_with_cached_tokens(tmp_path, corpus):
    usage = {**USAGE, "thoughts_tokens": 20}
    dispatch = GeminiDispatch(role_policies(n_research=2), usage=usage)
    with GeminiStub(responder=dispatch) as stub:
        result = start_run(config(tmp_path, corpus), models={role: chat_model(stub) for role in ROLES})
        stub.assert_no_errors()
    run = result.run_dir
    assert result.status == "completed", result.reason
    assert validate_workspace(run) == []

    per_call = gemini_call_usd(**usage)
    assert per_call < gemini_call_usd(prompt_tokens=1000, output_tokens=120)  # cached input costs less
    m = metrics(run)
    calls = 0
    for role in ROLES:
        r = m["roles"][role]
        assert r["llm_calls"] > 0
        assert r["cached_tokens"] == 600 * r["llm_calls"]
        assert r["thinking_tokens"] == 20 * r["llm_calls"]
        assert r["usd"] == pytest.approx(per_call * r["llm_calls"], rel=1e-6)
        calls += r["llm_calls"]
    cost = m["cost"]
    assert cost["usd"] == pytest.approx(per_call * calls, rel=1e-6)
    assert cost["price_unknown"] == []
    verified = sum(
        1
        for c in json.loads((run / "claims.json").read_text())["claims"]
        if c["status"] in ("verified", "verified_with_limit")
    )
    assert cost["verified_claims"] == verified > 0
    assert cost["usd_per_verified_claim"] == pytest.approx(cost["usd"] / verified, rel=1e-4)
    # run.json's budget holds the same dollars, per role too
    budget = manifest(run)["budget"]
    assert budget["spent"]["usd"] == pytest.approx(cost["usd"], rel=1e-4)
    assert budget["roles"]["writer"]["spent"]["usd"] == pytest.approx(m["roles"]["writer"]["usd"], rel=1e-4)
    # what a person reads: inspect's summary and the run's end line
    assert summarize(run)["cost"]["usd"] == pytest.approx(cost["usd"])
    # the viewer and research serve's run page show the same dollars
    from harness.surfaces.serve.runs import detail
    from harness.surfaces.viewer import render_viewer

    page = render_viewer(run)
    assert "Cost per role" in page and dollars(m["roles"]["writer"]["usd"]) in page
    shown = detail(run, live=False)["cost"]
    assert shown["usd"] == pytest.approx(cost["usd"]) and shown["shown"]["writer"] == dollars(
        m["roles"]["writer"]["usd"]
    )
    # a stable prefix for implicit caching: each role's system prompt and tool schemas are the same on every call
    for role, reqs in dispatch.seen.items():
        assert len({r.system_instruction for r in reqs}) == 1, role
        assert len({json.dumps(r.body.get("tools"), sort_keys=True) for r in reqs}) == 1, role
    line = cost_line(run)
    assert f"${cost['usd']:.2f}" in line if cost["usd"] >= 0.01 else f"${cost['usd']:.4f}" in line
    assert f"{verified} verified claim(s)" in line and "cached" in line


def test_dollars_through_the_real_openai_client_at_a_local_server_priced_by_research_yaml(
    tmp_path, corpus, monkeypatch
):
    prices = {"openai:qwen-local": {"input": 2.0, "cached_input": 0.5, "output": 8.0, "thinking": 16.0}}
    dispatch = OpenAIDispatch(role_policies(n_research=1), usage={**USAGE, "reasoning_tokens": 40})
    with OpenAIStub(dispatch) as stub:
        clean_env(monkeypatch)
        cfg = build_config(
            QUESTION,
            corpus=str(corpus),
            runs_dir=str(tmp_path / "runs"),
            engine="llm",
            model="openai:qwen-local",
            model_base_url=stub.base_url,
            yes=True,
            config_data={"prices": prices},
        )
        result = start_run(cfg)
    assert result.status == "completed", result.reason
    per_call = (400 * 2.0 + 600 * 0.5 + 60 * 8.0 + 40 * 16.0) / 1_000_000
    m = metrics(result.run_dir)
    for role in ROLES:
        r = m["roles"][role]
        assert r["cached_tokens"] == 600 * r["llm_calls"]
        assert r["usd"] == pytest.approx(per_call * r["llm_calls"], rel=1e-6)
    assert manifest(result.run_dir)["config"]["prices"] == prices  # a resume prices the same way


def test_an_unknown_price_is_shown_as_unknown_never_guessed(tmp_path, corpus, monkeypatch):
    with OpenAIStub(OpenAIDispatch(role_policies(n_research=1))) as stub:
        clean_env(monkeypatch)
        cfg = config(tmp_path, corpus, model="openai:qwen-local", model_base_url=stub.base_url)
        result = start_run(cfg)
    assert result.status == "completed", result.reason
    m = metrics(result.run_dir)
    assert all(m["roles"][role]["usd"] is None for role in ROLES)
    assert m["cost"]["usd"] is None and m["cost"]["usd_per_verified_claim"] is None
    assert m["cost"]["price_unknown"] == sorted(ROLES)
    assert all(e["unpriced_calls"] == e["llm_calls"] for e in delegations(result.run_dir))
    assert "price unknown" in cost_line(result.run_dir) and "$" not in cost_line(result.run_dir)


def test_a_dollar_budget_is_refused_in_one_line_when_a_price_is_unknown(tmp_path, corpus, monkeypatch, capsys):
    from harness.surfaces.cli import main

    clean_env(monkeypatch)
    with pytest.raises(UsageError, match=r"^--budget-usd 1.0: the price of openai:qwen-local is unknown"):
        config(tmp_path, corpus, model="openai:qwen-local", model_base_url="http://127.0.0.1:9/v1", budget={"usd": 1.0})
    argv = ["research", "run", QUESTION, "--corpus", str(corpus), "--runs-dir", str(tmp_path / "runs")]
    argv += ["--engine", "llm", "--model", "ollama:qwen3", "--budget-usd", "2", "--yes", "--quiet"]
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit) as exc:
        main()
    err = capsys.readouterr().err.strip()
    assert exc.value.code == 2 and len(err.splitlines()) == 1
    assert "price of ollama:qwen3 is unknown" in err and "prices:" in err
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def test_the_offline_engine_costs_nothing_and_says_so(tmp_path, corpus, monkeypatch, capsys):
    from harness.surfaces.cli import main

    cfg = build_config(QUESTION, corpus=str(corpus), runs_dir=str(tmp_path / "runs"), engine="offline", yes=True)
    result = start_run(cfg)
    m = metrics(result.run_dir)
    assert all(m["roles"][role]["usd"] == 0 for role in ROLES)
    assert m["cost"]["usd"] == 0 and m["cost"]["price_unknown"] == []
    assert cost_line(result.run_dir).startswith("cost: $0.00;")
    monkeypatch.setattr(sys, "argv", ["research", "inspect", str(result.run_dir)])
    with pytest.raises(SystemExit) as exc:
        main()
    assert exc.value.code == 0
    shown = capsys.readouterr().out
    assert "cost: $0.00;" in shown and "by role: planner $0.00" in shown and "price unknown" not in shown


def test_a_dollar_budget_stops_the_run_before_it_passes_its_limit_and_a_raised_one_completes(tmp_path, corpus):
    # dear input (set under prices:), and a prompt count that follows what was sent, as a tokenizer's would
    prices = {GEMINI: {"input": 150.0, "output": 9.0}}

    def usage(req) -> dict[str, int]:
        return {"prompt_tokens": len(req.raw_body) // 6, "output_tokens": 100}

    def charged(req) -> float:
        return (usage(req)["prompt_tokens"] * 150.0 + 100 * 9.0) / 1_000_000

    limit = 2.0
    dispatch = GeminiDispatch(role_policies(n_research=2), usage=usage)
    with GeminiStub(responder=dispatch) as stub:
        models = {role: chat_model(stub) for role in ROLES}
        cfg = config(tmp_path, corpus, budget={"usd": limit}, concurrency=1, config_data={"prices": prices})
        result = start_run(cfg, models=models)
        run = result.run_dir
        assert result.status == "budget_exhausted", result.reason
        assert "usd" in result.reason
        spent = manifest(run)["budget"]["spent"]["usd"]
        assert spent <= limit
        seen = stub.generate_requests
        assert spent == pytest.approx(sum(charged(r) for r in seen), rel=1e-4)  # every call the provider saw
        assert not (run / "final-report.md").exists()
        assert validate_workspace(run) == []

        resumed = resume_run(run, budget={"usd": 100.0}, models=models)
        seen = stub.generate_requests
    assert resumed.status == "completed", resumed.reason
    budget = manifest(run)["budget"]
    assert budget["limits"]["usd"] == 100.0 and limit < budget["spent"]["usd"] <= 100.0
    assert budget["spent"]["usd"] == pytest.approx(sum(charged(r) for r in seen), rel=1e-4)
    assert metrics(run)["cost"]["usd"] == pytest.approx(budget["spent"]["usd"], rel=1e-4)
    assert validate_workspace(run) == []


def test_a_resume_raising_the_dollar_budget_of_an_unpriced_run_is_refused_before_run_json_changes(
    tmp_path, corpus, monkeypatch
):
    with OpenAIStub(OpenAIDispatch(role_policies(n_research=1))) as stub:
        clean_env(monkeypatch)
        result = start_run(
            config(
                tmp_path,
                corpus,
                model="openai:qwen-local",
                model_base_url=stub.base_url,
                budget={"llm_calls": 6},
                concurrency=1,
            )
        )
        assert result.status == "budget_exhausted"
        before = (result.run_dir / "run.json").read_bytes()
        with pytest.raises(UsageError, match=r"research resume --budget-usd 5.0: the price of openai:qwen-local"):
            resume_run(result.run_dir, budget={"usd": 5.0, "llm_calls": 100})
    assert (result.run_dir / "run.json").read_bytes() == before


def test_research_serve_takes_a_dollar_budget_and_refuses_it_for_an_unknown_price(tmp_path, corpus):
    from harness.surfaces.serve.request import CorpusRoots, RequestError, check_budget_request, run_flags

    roots = CorpusRoots((corpus.resolve(),), builtin=False)
    body = {"question": QUESTION, "corpus": str(corpus), "engine": "offline", "budget": {"usd": 0.5}}
    flags = run_flags(body, roots, tmp_path, tmp_path / "runs")
    assert flags[flags.index("--budget-usd") + 1] == "0.5"
    with pytest.raises(RequestError, match=r"^--budget-usd 2.0: the price of ollama:qwen3 is unknown") as exc:
        run_flags({**body, "engine": "llm", "model": "ollama:qwen3", "budget": {"usd": 2.0}}, roots, tmp_path, tmp_path)
    assert exc.value.field == "budget.usd"
    assert check_budget_request({"usd": 3.5}) == {"usd": 3.5}
