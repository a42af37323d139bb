"""The Gemini stub, driven by the real ``ChatGoogleGenerativeAI`` client (no internet).

These tests double as a record of how langchain-google-genai 4.4 / google-genai 3.6
behave against Gemini-shaped answers: where the base URL comes from, which endpoint
``invoke`` and ``stream`` use, how usage and tool calls come back, and what errors,
timeouts, empty answers and MALFORMED_FUNCTION_CALL look like to the caller.
"""

from __future__ import annotations

import asyncio
import time

import httpx2
import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool

from fakes.gemini_stub import (
    DEFAULT_API_KEY,
    GeminiStub,
    ScriptedResponder,
    chat_model,
    delay,
    drop_connection,
    empty_reply,
    function_call_reply,
    gemini_stub,  # noqa: F401 - pytest fixture
    http_error,
    malformed_function_call,
    point_env_at_stub,
    raw_reply,
    text_reply,
)


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
def lookup(term: str) -> str:
    """Look a term up in the glossary."""
    return f"definition of {term}"


# --------------------------------------------------------------------------- wiring


def test_plain_invoke_returns_text_and_usage(gemini_stub):
    gemini_stub.script([text_reply("Hello from the stub.", prompt_tokens=12, output_tokens=4)])
    msg = chat_model(gemini_stub).invoke("Say hello")

    assert isinstance(msg, AIMessage)
    # Gemini 3 models get list-of-blocks content; `.text` is the joined text.
    assert msg.content == [{"type": "text", "text": "Hello from the stub."}]
    assert msg.text == "Hello from the stub."
    assert msg.usage_metadata["input_tokens"] == 12
    assert msg.usage_metadata["output_tokens"] == 4
    assert msg.usage_metadata["total_tokens"] == 16
    assert msg.response_metadata["finish_reason"] == "STOP"
    assert msg.response_metadata["model_name"] == "gemini-3.5-flash"

    (req,) = gemini_stub.requests
    assert req.method == "POST"
    assert req.route == "/v1/models/gemini-3.5-flash:generateContent"  # google-genai 3.6 default version is v1
    assert req.model == "gemini-3.5-flash" and not req.stream
    assert req.api_key == DEFAULT_API_KEY and req.api_key_source == "header"
    assert req.contents == [{"role": "user", "parts": [{"text": "Say hello"}]}]
    gemini_stub.assert_no_errors()


def test_env_var_points_an_unconfigured_client_at_the_stub(monkeypatch, gemini_stub):
    """GOOGLE_GEMINI_BASE_URL + GOOGLE_API_KEY alone route a plain client to the stub."""
    from langchain_google_genai import ChatGoogleGenerativeAI

    point_env_at_stub(monkeypatch, gemini_stub, api_key="test-key-from-env")
    gemini_stub.script([text_reply("via env")])
    model = ChatGoogleGenerativeAI(model="gemini-3.5-flash", max_retries=1)
    assert model.invoke("hi").text == "via env"
    assert gemini_stub.last_request.api_key == "test-key-from-env"


def test_chat_model_refuses_to_fall_back_to_the_real_api(monkeypatch, gemini_stub):
    monkeypatch.delenv("GOOGLE_GEMINI_BASE_URL", raising=False)
    with pytest.raises(ValueError, match="real Gemini API"):
        chat_model(gemini_stub, base_url=None)
    point_env_at_stub(monkeypatch, gemini_stub)
    assert chat_model(gemini_stub, base_url=None).invoke("hi").text == "ok"


def test_legacy_client_options_dict_also_sets_the_base_url(gemini_stub):
    gemini_stub.script([text_reply("via client_options")])
    model = chat_model(gemini_stub, base_url=None, client_options={"api_endpoint": gemini_stub.base_url})
    assert model.invoke("hi").text == "via client_options"


def test_stub_rejects_requests_without_api_key():
    with GeminiStub(replies=[text_reply("never")]) as stub:
        import httpx

        r = httpx.post(
            f"{stub.base_url}/v1beta/models/gemini-3.5-flash:generateContent", json={"contents": []}, trust_env=False
        )
        assert r.status_code == 403 and r.json()["error"]["status"] == "PERMISSION_DENIED"
        r = httpx.post(
            f"{stub.base_url}/v1beta/models/gemini-3.5-flash:generateContent?key=q-key",
            json={"contents": []},
            trust_env=False,
        )
        assert r.status_code == 200 and r.json()["candidates"][0]["content"]["parts"][0]["text"] == "never"
        assert stub.requests[1].api_key == "q-key" and stub.requests[1].api_key_source == "query"
        assert stub.requests[1].api_version == "v1beta"


def test_expected_api_key_mismatch_is_an_invalid_request():
    from langchain_google_genai.chat_models import GoogleInvalidRequestError

    with GeminiStub(expected_api_key="test-key-right") as stub:
        with pytest.raises(GoogleInvalidRequestError, match="API key not valid"):
            chat_model(stub, google_api_key="test-key-wrong").invoke("hi")
        assert chat_model(stub, google_api_key="test-key-right").invoke("hi").text == "ok"
        assert stub.api_keys == {"test-key-wrong", "test-key-right"}


# --------------------------------------------------------------------------- tools


def test_function_call_reply_becomes_tool_calls(gemini_stub):
    gemini_stub.script([function_call_reply([("add", {"a": 2, "b": 3})], ids=["fc-1"])])
    msg = chat_model(gemini_stub).bind_tools([add]).invoke("What is 2+3?")

    assert msg.tool_calls == [{"name": "add", "args": {"a": 2, "b": 3}, "id": "fc-1", "type": "tool_call"}]
    assert msg.invalid_tool_calls == []


def test_two_function_calls_in_one_reply_give_two_tool_calls(gemini_stub):
    # Without an `id` in the functionCall (the usual Developer API answer) the client
    # invents a uuid4 per call.
    gemini_stub.script([function_call_reply([("add", {"a": 1, "b": 2}), ("lookup", {"term": "TaskGroup"})])])
    msg = chat_model(gemini_stub).bind_tools([add, lookup]).invoke("Do both.")

    assert [(tc["name"], tc["args"]) for tc in msg.tool_calls] == [
        ("add", {"a": 1, "b": 2}),
        ("lookup", {"term": "TaskGroup"}),
    ]
    ids = [tc["id"] for tc in msg.tool_calls]
    assert all(ids) and len(set(ids)) == 2


def test_thought_signature_round_trips_to_the_next_request(gemini_stub):
    gemini_stub.script(
        [function_call_reply([("add", {"a": 1, "b": 2})], thought_signature=b"sig-bytes"), text_reply("3")]
    )
    model = chat_model(gemini_stub).bind_tools([add])
    ai = model.invoke("1+2?")
    model.invoke([HumanMessage("1+2?"), ai, ToolMessage("3", tool_call_id=ai.tool_calls[0]["id"], name="add")])

    model_turn = gemini_stub.last_request.contents[1]
    assert model_turn["role"] == "model"
    assert model_turn["parts"][0]["functionCall"]["name"] == "add"
    assert model_turn["parts"][0]["thoughtSignature"] == "c2lnLWJ5dGVz"  # base64 of b"sig-bytes"


def test_request_carries_system_instruction_history_and_tool_declaration(gemini_stub):
    gemini_stub.script([text_reply("5")])
    model = chat_model(gemini_stub).bind_tools([add])
    model.invoke([SystemMessage("You are a careful calculator."), HumanMessage("What is 2+3?")])

    req = gemini_stub.last_request
    assert req.system_instruction == "You are a careful calculator."
    assert req.roles == ["user"] and req.last_user_text == "What is 2+3?"
    assert req.tool_names == ["add"]
    decl = req.function_declarations[0]
    assert decl["description"] == "Add two integers."
    assert decl["parameters"]["type"] == "OBJECT"
    assert decl["parameters"]["properties"] == {"a": {"type": "INTEGER"}, "b": {"type": "INTEGER"}}
    assert sorted(decl["parameters"]["required"]) == ["a", "b"]


def test_tool_results_are_sent_back_as_function_responses(gemini_stub):
    gemini_stub.script([text_reply("It is 5.")])
    history = [
        HumanMessage("What is 2+3?"),
        AIMessage("", tool_calls=[{"name": "add", "args": {"a": 2, "b": 3}, "id": "t1"}]),
        ToolMessage("5", tool_call_id="t1", name="add"),
    ]
    chat_model(gemini_stub).bind_tools([add]).invoke(history)

    req = gemini_stub.last_request
    assert req.roles == ["user", "model", "user"]
    assert req.function_calls == [{"name": "add", "args": {"a": 2, "b": 3}}]
    (resp,) = req.function_responses
    assert resp["name"] == "add" and "5" in str(resp["response"])


# --------------------------------------------------------------------------- streaming


def test_stream_uses_sse_endpoint_and_sums_usage(gemini_stub):
    gemini_stub.script([text_reply("streamed answer text", stream_pieces=3, prompt_tokens=8, output_tokens=6)])
    chunks = list(chat_model(gemini_stub).stream("hi"))
    full = chunks[0]
    for c in chunks[1:]:
        full = full + c

    assert full.text == "streamed answer text"
    # Gemini streams cumulative usage; the client converts it to per-chunk deltas.
    assert full.usage_metadata["input_tokens"] == 8
    assert full.usage_metadata["output_tokens"] == 6
    req = gemini_stub.last_request
    assert req.stream and req.query == {"alt": "sse"}
    assert req.route == "/v1/models/gemini-3.5-flash:streamGenerateContent"


def test_stream_function_call(gemini_stub):
    gemini_stub.script([function_call_reply([("add", {"a": 1, "b": 1})], ids=True)])
    full = None
    for c in chat_model(gemini_stub).bind_tools([add]).stream("1+1?"):
        full = c if full is None else full + c
    assert full.tool_calls == [{"name": "add", "args": {"a": 1, "b": 1}, "id": "call_1", "type": "tool_call"}]


def test_async_invoke(gemini_stub):
    gemini_stub.script([text_reply("async ok")])
    msg = asyncio.run(chat_model(gemini_stub).ainvoke("hi"))
    assert msg.text == "async ok"


# --------------------------------------------------------------------------- faults


@pytest.mark.parametrize("status", [500, 503])
def test_server_error_raises_with_retries_disabled(gemini_stub, status):
    from google.genai.errors import ServerError
    from langchain_core.exceptions import ModelAPIError
    from langchain_google_genai.chat_models import GoogleAPIError

    gemini_stub.script([http_error(status, "backend exploded"), text_reply("never reached")])
    with pytest.raises(GoogleAPIError, match="backend exploded") as ei:
        chat_model(gemini_stub).invoke("hi")
    # GoogleAPIError is both the SDK's ServerError and LangChain's ModelAPIError.
    assert isinstance(ei.value, ServerError) and isinstance(ei.value, ModelAPIError)
    assert ei.value.code == status
    assert len(gemini_stub.requests) == 1  # max_retries=1: no retry


def test_rate_limit_raises_classified_error(gemini_stub):
    from langchain_core.exceptions import ModelRateLimitError
    from langchain_google_genai.chat_models import ChatGoogleGenerativeAIError, GoogleRateLimitError

    gemini_stub.script([http_error(429, "Quota exceeded", retry_delay=7)])
    with pytest.raises(GoogleRateLimitError, match="RESOURCE_EXHAUSTED") as ei:
        chat_model(gemini_stub).invoke("hi")
    assert isinstance(ei.value, ModelRateLimitError) and isinstance(ei.value, ChatGoogleGenerativeAIError)
    assert "retryDelay" in str(ei.value)  # the server's hint is only in the message text


def test_stream_error_surfaces_when_iterated(gemini_stub):
    from langchain_google_genai.chat_models import GoogleAPIError

    gemini_stub.script([http_error(500, "stream broke")])
    with pytest.raises(GoogleAPIError, match="stream broke"):
        list(chat_model(gemini_stub).stream("hi"))


def test_sdk_retries_with_per_call_retry_options(gemini_stub):
    """Retries are the SDK's (tenacity); zero delays keep the test fast."""
    gemini_stub.script([http_error(503), http_error(429), text_reply("third time lucky")])
    fast = {"retry_options": {"attempts": 3, "initial_delay": 0, "jitter": 0}}
    msg = chat_model(gemini_stub).invoke("hi", http_options=fast)
    assert msg.text == "third time lucky"
    assert len(gemini_stub.requests) == 3


def test_max_retries_zero_also_means_one_attempt_in_this_sdk(gemini_stub):
    # The langchain docstring says 0 means "SDK default (5 retries)", but google-genai
    # 3.6 turns attempts=0 into 1. Use max_retries=1 to be safe either way.
    from langchain_google_genai.chat_models import GoogleAPIError

    gemini_stub.script([http_error(503), text_reply("unused")])
    with pytest.raises(GoogleAPIError):
        chat_model(gemini_stub, max_retries=0).invoke("hi")
    assert len(gemini_stub.requests) == 1


def test_client_timeout_raises_transport_timeout(gemini_stub):
    # The timeout is not wrapped by langchain: the SDK's httpx2 ReadTimeout escapes.
    gemini_stub.script([delay(3, then=text_reply("too late"))])
    t0 = time.monotonic()
    with pytest.raises(httpx2.TimeoutException):
        chat_model(gemini_stub, timeout=0.3).invoke("hi")
    assert time.monotonic() - t0 < 2
    assert gemini_stub.last_request.headers["x-server-timeout"] == "1"  # ceil(0.3 s)


def test_dropped_connection_and_garbage_body_raise(gemini_stub):
    gemini_stub.script([drop_connection(), raw_reply("<html>not json</html>")])
    model = chat_model(gemini_stub)
    with pytest.raises(httpx2.RemoteProtocolError):
        model.invoke("hi")
    with pytest.raises(ValueError):  # json.JSONDecodeError, unwrapped
        model.invoke("hi")


def test_malformed_function_call_returns_empty_message_not_error(gemini_stub):
    # Observed: no exception. The client returns an AIMessage with empty content
    # (`[]` for Gemini 3 models), no tool_calls, no invalid_tool_calls,
    # response_metadata["finish_reason"] == "MALFORMED_FUNCTION_CALL" (finishMessage
    # is dropped), and usage with output_tokens == 0. An agent loop would therefore
    # stop as if the model had answered with nothing.
    gemini_stub.script(
        [
            malformed_function_call("Malformed function call: print(default_api.add(a=1))"),
            malformed_function_call(omit_content=True),
        ]
    )
    model = chat_model(gemini_stub).bind_tools([add])
    for _ in range(2):
        msg = model.invoke("1+1?")
        assert isinstance(msg, AIMessage)
        assert msg.content == [] and msg.text == ""
        assert msg.tool_calls == [] and msg.invalid_tool_calls == []
        assert msg.response_metadata["finish_reason"] == "MALFORMED_FUNCTION_CALL"
        assert "finish_message" not in msg.response_metadata
        assert msg.usage_metadata["input_tokens"] == 10 and msg.usage_metadata["output_tokens"] == 0


def test_empty_replies_return_empty_messages(gemini_stub):
    gemini_stub.script([empty_reply(), empty_reply(block_reason="SAFETY"), empty_reply("no_parts")])
    model = chat_model(gemini_stub)

    # No candidates: the client logs a warning and returns content "" with no
    # finish_reason and *no usage_metadata* (usage is dropped on this path).
    none = model.invoke("hi")
    assert none.content == "" and none.tool_calls == [] and none.usage_metadata is None
    assert "finish_reason" not in none.response_metadata

    blocked = model.invoke("hi")
    assert blocked.content == ""
    assert str(blocked.response_metadata["prompt_feedback"]["block_reason"]).endswith("SAFETY")

    # A candidate with no parts: content [] (Gemini 3), finish_reason STOP, usage kept.
    no_parts = model.invoke("hi")
    assert no_parts.content == [] and no_parts.response_metadata["finish_reason"] == "STOP"
    assert no_parts.usage_metadata["output_tokens"] == 0


# --------------------------------------------------------------------------- scripting


def test_script_exhaustion_is_a_clear_non_retryable_error(gemini_stub):
    from langchain_google_genai.chat_models import GoogleInvalidRequestError

    responder = gemini_stub.script([text_reply("only one")])
    model = chat_model(gemini_stub, max_retries=6)  # even with retries on: 400 is not retried
    assert model.invoke("a").text == "only one"
    with pytest.raises(GoogleInvalidRequestError, match="GeminiStub: script exhausted"):
        model.invoke("b")
    assert responder.remaining == 0 and len(gemini_stub.requests) == 2
    assert len(gemini_stub.errors) == 1 and "script exhausted" in gemini_stub.errors[0]


def test_repeat_last_and_callable_entries():
    echo = lambda req: text_reply(f"echo: {req.last_user_text}")  # noqa: E731
    with GeminiStub(ScriptedResponder([text_reply("first"), echo], when_exhausted="repeat_last")) as stub:
        model = chat_model(stub)
        assert [model.invoke(t).text for t in ("x", "y", "z")] == ["first", "echo: y", "echo: z"]
        stub.assert_no_errors()


def test_unknown_path_is_404_and_recorded(gemini_stub):
    import httpx

    r = httpx.get(f"{gemini_stub.base_url}/v1/models", headers={"x-goog-api-key": "k"}, trust_env=False)
    assert r.status_code == 404
    assert gemini_stub.errors == ["unexpected request GET /v1/models"]


def test_concurrent_requests_are_all_recorded(gemini_stub):
    model = chat_model(gemini_stub)
    results = model.batch([f"q{i}" for i in range(8)], config={"max_concurrency": 8})
    assert [m.text for m in results] == ["ok"] * 8
    assert sorted(r.last_user_text for r in gemini_stub.requests) == sorted(f"q{i}" for i in range(8))
    assert [r.index for r in gemini_stub.requests] == list(range(8))


# --------------------------------------------------------------------------- agents


def test_create_agent_two_turn_loop(gemini_stub):
    from langchain.agents import create_agent

    gemini_stub.script(
        [
            function_call_reply([("add", {"a": 2, "b": 3})], prompt_tokens=20, output_tokens=4),
            text_reply("2 + 3 = 5", prompt_tokens=30, output_tokens=6),
        ]
    )
    agent = create_agent(chat_model(gemini_stub), tools=[add], system_prompt="Use the add tool for sums.")
    result = agent.invoke({"messages": [HumanMessage("What is 2+3?")]})

    msgs = result["messages"]
    assert [type(m).__name__ for m in msgs] == ["HumanMessage", "AIMessage", "ToolMessage", "AIMessage"]
    assert msgs[2].content == "5" and msgs[2].tool_call_id == msgs[1].tool_calls[0]["id"]
    assert msgs[-1].text == "2 + 3 = 5"
    assert msgs[-1].usage_metadata["input_tokens"] == 30

    first, second = gemini_stub.requests
    assert first.system_instruction == second.system_instruction == "Use the add tool for sums."
    assert first.tool_names == ["add"]
    assert second.roles == ["user", "model", "user"]
    assert second.function_responses[0]["name"] == "add"
    gemini_stub.assert_no_errors()


def test_create_agent_streaming_uses_sse_endpoint(gemini_stub):
    from langchain.agents import create_agent

    gemini_stub.script([function_call_reply([("add", {"a": 1, "b": 2})]), text_reply("three", stream_pieces=2)])
    agent = create_agent(chat_model(gemini_stub), tools=[add])
    streamed = [chunk for chunk, _meta in agent.stream({"messages": [HumanMessage("1+2?")]}, stream_mode="messages")]
    assert any(getattr(c, "tool_call_chunks", None) for c in streamed)
    assert [r.stream for r in gemini_stub.requests] == [True, True]


def test_deep_agent_two_turn_loop(gemini_stub):
    from deepagents import create_deep_agent

    gemini_stub.script(
        [
            function_call_reply([("lookup", {"term": "TaskGroup"})]),
            text_reply("A TaskGroup is a structured-concurrency helper."),
        ]
    )
    agent = create_deep_agent(model=chat_model(gemini_stub), tools=[lookup], system_prompt="You are a glossary bot.")
    result = agent.invoke({"messages": [HumanMessage("Define TaskGroup.")]})

    assert result["messages"][-1].text == "A TaskGroup is a structured-concurrency helper."
    tool_msgs = [m for m in result["messages"] if isinstance(m, ToolMessage)]
    assert [m.content for m in tool_msgs] == ["definition of TaskGroup"]
    first, second = gemini_stub.generate_requests
    assert "You are a glossary bot." in first.system_instruction
    assert "lookup" in first.tool_names
    assert second.function_responses[-1]["name"] == "lookup"
    gemini_stub.assert_no_errors()
