"""Anthropic needs explicit prompt-cache markers: the real langchain-anthropic client, against a local stub of
the Messages API, is sent them on a role's call, and the cache reads and writes it reports are counted as
cached tokens and priced at the table's cache prices."""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler

import pytest
from engines.test_llm_engine import make_ctx
from genai_prices import Usage, calc_price

from fakes.http_stub import ServedStub
from fakes.workspaces import make_plan
from harness.engines.llm.agent import DeepAgentRole
from harness.engines.llm.pricing import price_for
from harness.runtime.interface import Brief

pytest_plugins = ["engines.test_llm_engine"]
langchain_anthropic = pytest.importorskip("langchain_anthropic")

MODEL = "claude-sonnet-4-5"
USAGE = {"input_tokens": 120, "output_tokens": 80, "cache_read_input_tokens": 2000, "cache_creation_input_tokens": 300}


class AnthropicStub(ServedStub):
    """POST /v1/messages answered from `replies` (Messages API `content` blocks), each with `USAGE`."""

    def __init__(self, replies: list[list[dict]]):
        self._server = None
        self.replies = list(replies)
        self.bodies: list[dict] = []

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.port}"

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        body = json.loads(handler.rfile.read(int(handler.headers.get("content-length") or 0)) or b"{}")
        self.bodies.append(body)
        content = self.replies.pop(0) if self.replies else [{"type": "text", "text": "done"}]
        tool = any(block["type"] == "tool_use" for block in content)
        reply = {
            "id": f"msg_{len(self.bodies)}",
            "type": "message",
            "role": "assistant",
            "model": MODEL,
            "content": content,
            "stop_reason": "tool_use" if tool else "end_turn",
            "stop_sequence": None,
            "usage": USAGE,
        }
        data = json.dumps(reply).encode()
        handler.send_response(200)
        handler.send_header("content-type", "application/json")
        handler.send_header("content-length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)


def test_a_role_on_an_anthropic_model_sends_cache_markers_and_counts_cached_input(ws, specs, monkeypatch):
    for name in ("ANTHROPIC_BASE_URL", "HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    spec = specs["planner"]
    brief = Brief(role="planner", task="Plan.", outputs=("plan.json",))
    write = {"type": "tool_use", "id": "toolu_1", "name": "write_file"}
    write["input"] = {"file_path": "/plan.json", "content": json.dumps(make_plan())}
    with AnthropicStub([[write]]) as stub:
        model = langchain_anthropic.ChatAnthropic(
            model=MODEL, api_key="test-key", base_url=stub.base_url, max_retries=0, max_tokens=1024
        )
        price = price_for(f"anthropic:{MODEL}")
        ctx = make_ctx(ws, spec, brief)
        result = DeepAgentRole(spec, model, price=price).run(brief, ctx)
        bodies = stub.bodies
    assert result.status == "completed" and len(bodies) == 1  # it wrote plan.json and ended
    assert "cache_control" in json.dumps(bodies[0])  # deepagents' AnthropicPromptCachingMiddleware marked it
    assert ctx.budget.cached_tokens == 2000
    expected = calc_price(
        Usage(input_tokens=120 + 2000 + 300, cache_read_tokens=2000, cache_write_tokens=300, output_tokens=80),
        MODEL,
        provider_id="anthropic",
    )
    assert ctx.budget.usd == pytest.approx(float(expected.total_price))
    uncached = calc_price(Usage(input_tokens=2420, output_tokens=80), MODEL, provider_id="anthropic")
    assert ctx.budget.usd < float(uncached.total_price)
