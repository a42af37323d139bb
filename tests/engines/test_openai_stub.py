"""The OpenAI-compatible stub, driven by the real `langchain-openai` client (no internet).

A record of what the client makes of an OpenAI-compatible server's answers: tool calls,
arguments that are not JSON (`invalid_tool_calls`), replies cut at the length limit, errors
(503, 401, a context window exceeded) and streaming, and how the harness classifies them.
"""

from __future__ import annotations

import pytest
from langchain_core.exceptions import ContextOverflowError
from langchain_core.tools import tool

from fakes.openai_stub import (
    DEFAULT_API_KEY,
    OpenAIStub,
    clean_env,
    http_error,
    text,
    tool_calls,
)
from harness.engines.llm.faults import classify_exception, is_context_overflow, rejection


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def chat(stub: OpenAIStub, **kw):
    from langchain_openai import ChatOpenAI

    kw.setdefault("api_key", DEFAULT_API_KEY)
    return ChatOpenAI(model="stub-model", base_url=stub.base_url, max_retries=0, **kw)


def test_text_and_usage_come_back_and_the_request_carries_the_messages_and_key():
    with OpenAIStub(replies=[text("hello", prompt_tokens=12, output_tokens=3)]) as stub:
        msg = chat(stub).invoke("say hello")
        (req,) = stub.requests
    assert msg.text == "hello" and msg.usage_metadata["total_tokens"] == 15
    assert msg.response_metadata["finish_reason"] == "stop"
    assert req.path == "/v1/chat/completions" and req.api_key == DEFAULT_API_KEY
    assert req.messages == [{"role": "user", "content": "say hello"}]


def test_tool_calls_parse_and_arguments_that_are_not_json_become_invalid_tool_calls():
    with OpenAIStub(replies=[tool_calls([("add", {"a": 2, "b": 3}), ("add", '{"a": 2, "b": ')])]) as stub:
        msg = chat(stub).bind_tools([add]).invoke("2+3?")
        (req,) = stub.requests
    assert [c["args"] for c in msg.tool_calls] == [{"a": 2, "b": 3}]
    (bad,) = msg.invalid_tool_calls
    assert bad["name"] == "add" and bad["args"] == '{"a": 2, "b": '
    assert req.tool_names == ["add"]


def test_a_reply_cut_at_the_length_limit_says_so():
    with OpenAIStub(replies=[text("# Report\n\nThe first", finish_reason="length")]) as stub:
        msg = chat(stub).invoke("write")
    assert msg.response_metadata["finish_reason"] == "length"


def test_streaming_gives_the_same_message():
    with OpenAIStub(replies=[tool_calls([("add", {"a": 1, "b": 1})])]) as stub:
        chunks = list(chat(stub).bind_tools([add]).stream("1+1?"))
    msg = chunks[0]
    for c in chunks[1:]:
        msg = msg + c
    assert msg.tool_calls[0]["args"] == {"a": 1, "b": 1}


def test_errors_are_classified_an_outage_is_retried_a_rejection_is_not():
    with OpenAIStub(
        replies=[http_error(503), http_error(401, code="invalid_api_key", kind="invalid_request_error")]
    ) as stub:
        with pytest.raises(Exception) as outage:
            chat(stub).invoke("x")
        with pytest.raises(Exception) as refused:
            chat(stub).invoke("x")
    assert classify_exception(outage.value).kind == "server_error"
    assert classify_exception(refused.value) is None and rejection(refused.value).kind == "rejected"


def test_a_context_window_exceeded_is_a_context_overflow_left_to_the_harness():
    with OpenAIStub(context_chars=50) as stub:
        with pytest.raises(Exception) as exc:  # noqa: B017 - what class the client raises is what this records
            chat(stub).invoke("x" * 200)
    # langchain-openai types it ContextOverflowError only when the code is in the message; both are recognised
    assert is_context_overflow(exc.value) and not isinstance(exc.value, ContextOverflowError)
    assert classify_exception(exc.value) is None and rejection(exc.value) is None


def test_an_unreachable_endpoint_is_a_connection_fault():
    stub = OpenAIStub().start()
    url = stub.base_url
    stub.close()
    from langchain_openai import ChatOpenAI

    with pytest.raises(Exception) as exc:
        ChatOpenAI(model="m", base_url=url, api_key="k", max_retries=0, timeout=5).invoke("x")
    assert classify_exception(exc.value).kind == "connection"


def test_azure_openai_through_its_usual_variables(monkeypatch):
    from harness.engines.llm.models import resolve_model

    with OpenAIStub(replies=[text("from azure")]) as stub:
        clean_env(monkeypatch, api_key=None)
        monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", stub.base_url.removesuffix("/v1"))
        monkeypatch.setenv("AZURE_OPENAI_API_KEY", "test-key-azure")
        monkeypatch.setenv("OPENAI_API_VERSION", "2024-10-21")
        assert resolve_model("azure_openai:my-deployment").invoke("hi").text == "from azure"
        (req,) = stub.requests
    assert req.path.startswith("/openai/deployments/my-deployment/chat/completions?api-version=2024-10-21")
    assert req.headers.get("api-key") == "test-key-azure"
