"""Any provider, any endpoint: a full run through the real langchain-openai client against a local
OpenAI-compatible server, and the one-line refusals before any work (exit 2).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from fakes.openai_stub import DEFAULT_API_KEY, OpenAIStub, clean_env, start_llm_run
from fakes.realistic import DOCS, Quirks, realistic_policies
from fakes.scripted import OpenAIDispatch
from fakes.workspaces import manifest, write_docs
from harness.engines.llm.models import LOCAL_SERVER_KEY, preflight
from harness.errors import UsageError
from harness.orchestrator.config import build_config
from harness.workspace.validate import validate_workspace

QUESTION = "How do asyncio.TaskGroup and asyncio.gather differ when a task fails?"


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return write_docs(tmp_path / "corpus", DOCS)


def cli(monkeypatch, capsys, *argv: str) -> tuple[int, str]:
    from harness.surfaces.cli import main

    monkeypatch.setattr(sys, "argv", ["research", *argv])
    with pytest.raises(SystemExit) as exc:
        main()
    return exc.value.code, capsys.readouterr().err.strip()


def test_a_full_run_through_the_real_openai_client_at_a_local_server_with_no_key(tmp_path, corpus, monkeypatch):
    dispatch = OpenAIDispatch(realistic_policies(Quirks(quote="sentence", natural=True)))
    with OpenAIStub(dispatch) as stub:
        clean_env(monkeypatch, api_key=None)  # a self-hosted server (vLLM, Ollama, LM Studio) checks no key
        result = start_llm_run(
            tmp_path / "runs", corpus, model="openai:qwen2.5-7b-instruct", base_url=stub.base_url, question=QUESTION
        )
        requests, url = stub.requests, stub.base_url
    assert result.status == "completed", (result.status, result.reason)
    assert validate_workspace(result.run_dir) == []
    assert set(dispatch.seen) == {"planner", "researcher", "analyst", "writer", "reviewer"}
    assert {r.api_key for r in requests} == {LOCAL_SERVER_KEY}
    assert {r.body["model"] for r in requests} == {"qwen2.5-7b-instruct"}
    assert any(r.tool_names and "record_evidence" in r.tool_names for r in requests)
    m = manifest(result.run_dir)
    assert m["config"]["base_urls"] == {role: url for role in m["config"]["engines"]}
    assert m["config"]["models"]["writer"] == "openai:qwen2.5-7b-instruct"


def test_base_url_per_role_in_research_yaml_and_the_flag_over_it(tmp_path, corpus, monkeypatch):
    clean_env(monkeypatch)
    with OpenAIStub() as a, OpenAIStub() as b:
        data = {"engine": "llm", "model": "openai:m", "base_url": {"writer": a.base_url, "reviewer": b.base_url}}
        cfg = build_config(QUESTION, corpus=str(corpus), config_data=data)
        assert cfg.roles["writer"].base_url == a.base_url and cfg.roles["reviewer"].base_url == b.base_url
        assert cfg.roles["planner"].base_url is None
        cfg = build_config(QUESTION, corpus=str(corpus), config_data=data, model_base_url=b.base_url)
        assert {c.base_url for c in cfg.roles.values()} == {b.base_url}
        one = build_config(QUESTION, corpus=str(corpus), config_data={**data, "base_url": a.base_url})
        assert {c.base_url for c in one.roles.values()} == {a.base_url}


def test_an_unreachable_endpoint_fails_in_one_line_before_any_work(tmp_path, corpus, monkeypatch, capsys):
    clean_env(monkeypatch)
    stub = OpenAIStub().start()
    url = stub.base_url
    stub.close()  # nothing listens there now
    runs = tmp_path / "runs"
    code, err = cli(
        monkeypatch, capsys, "run", QUESTION, "--corpus", str(corpus), "--runs-dir", str(runs), "--yes",
        "--model", "openai:m", "--model-base-url", url, "--quiet",
    )  # fmt: skip
    assert code == 2 and len(err.splitlines()) == 1
    assert err.startswith(f"research: error: --model-base-url: the model endpoint {url} is unreachable")
    assert not runs.exists() or not any(runs.iterdir())
    monkeypatch.setenv("OPENAI_BASE_URL", url)  # the client's own variable is checked the same way
    with pytest.raises(UsageError, match=r"^OPENAI_BASE_URL \(for openai:m\): the model endpoint .* is unreachable"):
        preflight("openai:m")


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--model-base-url", "ftp://x"], "--model-base-url 'ftp://x': not an http(s) URL"),
        (
            ["--model-base-url", "http://user:pw@127.0.0.1:9/v1"],
            "--model-base-url: put the key in the provider's variable",
        ),
        (["--model", "vllm:qwen"], "unknown provider 'vllm'"),
        (["--model", "groq:llama-3.3-70b"], "the groq provider is not installed: pip install langchain-groq"),
        (
            ["--model", "huggingface:gpt2"],
            "the huggingface provider is not installed: pip install langchain-huggingface",
        ),
        (
            ["--model", "azure_openai:my-deployment"],
            "set AZURE_OPENAI_ENDPOINT and OPENAI_API_VERSION in the environment",
        ),
        (["--model", "openai:gpt-5-mini"], "set OPENAI_API_KEY in the environment (no API key found)"),
    ],
)
def test_each_model_configuration_mistake_is_one_line_naming_what_to_set_or_install(
    tmp_path, corpus, monkeypatch, capsys, argv, message
):
    clean_env(monkeypatch, api_key=None)
    runs = tmp_path / "runs"
    base = ["run", QUESTION, "--corpus", str(corpus), "--runs-dir", str(runs), "--yes", "--quiet"]
    if "--model" not in argv:
        argv = [*argv, "--model", "openai:m"]
    code, err = cli(monkeypatch, capsys, *base, *argv)
    assert code == 2 and len(err.splitlines()) == 1 and message in err, err
    assert not runs.exists() or not any(runs.iterdir())


def test_every_provider_init_chat_model_knows_is_accepted_with_its_package_named(monkeypatch):
    from harness.engines.llm.models import langchain_providers, provider_of

    providers = langchain_providers()
    assert {"openai", "azure_openai", "anthropic", "ollama", "openrouter", "bedrock", "xai"} <= set(providers)
    for name in providers:
        assert provider_of(name).package.startswith("langchain-")


def test_a_key_is_sent_to_an_endpoint_that_checks_one(tmp_path, corpus, monkeypatch):
    from harness.engines.llm.models import resolve_model

    clean_env(monkeypatch, api_key=DEFAULT_API_KEY)
    with OpenAIStub(expected_api_key=DEFAULT_API_KEY) as stub:
        assert resolve_model("openai:m", stub.base_url).invoke("hi").text == "ok"
        assert stub.requests[0].body["max_completion_tokens"] == 16384  # the output bound the budget reserves
