"""An OpenAI-compatible HTTP stub, so tests drive the real `langchain-openai` client offline.

What vLLM, Ollama's `/v1`, LM Studio, OpenRouter and Azure OpenAI have in common: `POST
.../chat/completions` with `messages` and `tools`, answered with a `chat.completion` whose
message may carry `tool_calls` (each `function.arguments` a JSON *string*, which is where a
weak model goes wrong) and a `finish_reason` (`stop`, `tool_calls`, `length`). The stub serves
any path ending in `/chat/completions` (so `http://127.0.0.1:PORT/v1` as an OpenAI base URL and
`http://127.0.0.1:PORT` as an Azure endpoint both work), `GET .../models`, and streaming
(`"stream": true`, Server-Sent Events ending `data: [DONE]`).

A responder (`Callable[[ChatRequest], Reply]`) answers each request; `ScriptedResponder`
plays a list. Reply builders: `text`, `tool_calls` (arguments as objects or as raw strings),
`http_error`, `context_overflow`, `drop`. `OpenAIStub.down()` / `up()` turn the whole endpoint
into 503s and back (an outage), and `close()` makes it unreachable.
"""

from __future__ import annotations

import json
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any

from fakes.http_stub import LocalServer, ServedStub

DEFAULT_API_KEY = "test-key-openai-stub"


@dataclass(frozen=True)
class ChatRequest:
    """One chat completions request, parsed."""

    index: int
    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages") or [])

    @property
    def system(self) -> str:
        return "\n".join(_text(m.get("content")) for m in self.messages if m.get("role") in ("system", "developer"))

    @property
    def tool_names(self) -> list[str]:
        return [t.get("function", {}).get("name", "") for t in self.body.get("tools") or []]

    @property
    def api_key(self) -> str | None:
        auth = self.headers.get("authorization", "")
        return auth.removeprefix("Bearer ").strip() or self.headers.get("api-key")

    @property
    def chars(self) -> int:
        """Characters of every message's content and tool-call arguments (a stand-in for prompt tokens)."""
        n = 0
        for m in self.messages:
            n += len(_text(m.get("content")))
            for c in m.get("tool_calls") or []:
                n += len(str(c.get("function", {}).get("arguments", "")))
        return n


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


@dataclass(frozen=True)
class Reply:
    status: int = 200
    body: Any = None
    drop: bool = False  # close the connection without an answer


def _completion(
    message: dict[str, Any],
    finish_reason: str,
    prompt_tokens: int,
    output_tokens: int,
    cached_tokens: int = 0,
    reasoning_tokens: int = 0,
) -> dict:
    """A chat.completion; `prompt_tokens` include the `cached_tokens`, `output_tokens` the `reasoning_tokens`."""
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": "stub-model",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason, "logprobs": None}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": output_tokens,
            "total_tokens": prompt_tokens + output_tokens,
            "prompt_tokens_details": {"cached_tokens": cached_tokens},
            "completion_tokens_details": {"reasoning_tokens": reasoning_tokens},
        },
    }


def text(
    content: str,
    *,
    finish_reason: str = "stop",
    prompt_tokens: int = 10,
    output_tokens: int = 5,
    cached_tokens: int = 0,
    reasoning_tokens: int = 0,
) -> Reply:
    """An assistant message holding text."""
    return Reply(
        body=_completion(
            {"role": "assistant", "content": content},
            finish_reason,
            prompt_tokens,
            output_tokens,
            cached_tokens,
            reasoning_tokens,
        )
    )


def tool_calls(
    calls: Iterable[tuple[str, dict | str]],
    *,
    content: str | None = None,
    finish_reason: str = "tool_calls",
    prompt_tokens: int = 10,
    output_tokens: int = 5,
    cached_tokens: int = 0,
    reasoning_tokens: int = 0,
) -> Reply:
    """An assistant message calling tools; an argument given as a str is sent verbatim (e.g. invalid JSON)."""
    wire = [
        {
            "id": f"call_{uuid.uuid4().hex[:12]}",
            "type": "function",
            "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)},
        }
        for name, args in calls
    ]
    message = {"role": "assistant", "content": content, "tool_calls": wire}
    return Reply(
        body=_completion(message, finish_reason, prompt_tokens, output_tokens, cached_tokens, reasoning_tokens)
    )


def http_error(status: int, message: str = "", *, code: str | None = None, kind: str = "server_error") -> Reply:
    """An OpenAI-style error body: {"error": {"message", "type", "param", "code"}}."""
    return Reply(
        status=status,
        body={
            "error": {
                "message": message or f"OpenAIStub scripted HTTP {status}",
                "type": kind,
                "param": None,
                "code": code,
            }
        },
    )


def context_overflow(limit: int, got: int) -> Reply:
    """What an OpenAI-compatible server answers when the prompt does not fit the model's context window."""
    return http_error(
        400,
        f"This model's maximum context length is {limit} tokens. However, your messages resulted in {got} tokens. "
        "Please reduce the length of the messages.",
        code="context_length_exceeded",
        kind="invalid_request_error",
    )


def drop() -> Reply:
    return Reply(drop=True)


Responder = Callable[[ChatRequest], Reply]


class ScriptedResponder:
    """Plays `replies` in order (callables take the request); past the end, an HTTP 400 naming the stub."""

    def __init__(self, replies: Iterable[Reply | Responder]):
        self._replies = list(replies)
        self._pos = 0
        self._lock = threading.Lock()

    def __call__(self, req: ChatRequest) -> Reply:
        with self._lock:
            if self._pos >= len(self._replies):
                return http_error(400, f"OpenAIStub: script exhausted after {len(self._replies)} replies", kind="stub")
            entry = self._replies[self._pos]
            self._pos += 1
        return entry(req) if callable(entry) else entry


class OpenAIStub(ServedStub):
    """A local OpenAI-compatible server on 127.0.0.1 (ephemeral port). `base_url` ends in /v1.

    `expected_api_key`: another key gets HTTP 401 `invalid_api_key`. `context_chars`: a request
    whose messages hold more characters answers 400 `context_length_exceeded` (a small context
    window). Every request is kept in `requests`; stub-side problems in `errors`.
    """

    def __init__(
        self,
        responder: Responder | None = None,
        *,
        replies: Iterable[Reply | Responder] | None = None,
        expected_api_key: str | None = None,
        context_chars: int | None = None,
    ):
        self._responder = responder or (ScriptedResponder(replies) if replies is not None else lambda _r: text("ok"))
        self.expected_api_key = expected_api_key
        self.context_chars = context_chars
        self._lock = threading.Lock()
        self._requests: list[ChatRequest] = []
        self.errors: list[str] = []
        self.outage: Reply | None = None
        self._server: LocalServer | None = None
        self._name = "openai-stub"

    @property
    def base_url(self) -> str:
        assert self._server is not None, "OpenAIStub is not running"
        return f"http://127.0.0.1:{self._server.port}/v1"

    @property
    def requests(self) -> list[ChatRequest]:
        with self._lock:
            return list(self._requests)

    def set_responder(self, responder: Responder) -> None:
        self._responder = responder

    def down(self, reply: Reply | None = None) -> None:
        """Every request from now on gets `reply` (default: HTTP 503), as in a provider outage."""
        self.outage = reply or http_error(503, "The server is overloaded or not ready yet.")

    def up(self) -> None:
        self.outage = None

    # ---- handling --------------------------------------------------------------------

    def _handle(self, h: BaseHTTPRequestHandler) -> None:
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length) if length else b""
        path = h.path.split("?", 1)[0]
        if h.command == "GET" and path.endswith("/models"):
            return self._send(h, Reply(body={"object": "list", "data": [{"id": "stub-model", "object": "model"}]}))
        if h.command != "POST" or not path.endswith("/chat/completions"):
            self.errors.append(f"unexpected request {h.command} {h.path}")
            return self._send(h, http_error(404, f"OpenAIStub: no route {h.command} {path}", kind="not_found"))
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            return self._send(h, http_error(400, "OpenAIStub: body is not JSON", kind="invalid_request_error"))
        with self._lock:
            req = ChatRequest(len(self._requests), h.path, {k.lower(): v for k, v in h.headers.items()}, body)
            self._requests.append(req)
        self._send(h, self._reply_for(req), stream=bool(body.get("stream")))

    def _reply_for(self, req: ChatRequest) -> Reply:
        if self.outage is not None:
            return self.outage
        if self.expected_api_key is not None and req.api_key != self.expected_api_key:
            return http_error(401, "Incorrect API key provided.", code="invalid_api_key", kind="invalid_request_error")
        if self.context_chars is not None and req.chars > self.context_chars:
            return context_overflow(self.context_chars // 4, req.chars // 4)
        try:
            reply = self._responder(req)
        except Exception as exc:  # noqa: BLE001 - reported to the test
            self.errors.append(f"request #{req.index}: {type(exc).__name__}: {exc}")
            return http_error(400, f"OpenAIStub: {exc}", kind="stub")
        return reply

    def _send(self, h: BaseHTTPRequestHandler, reply: Reply, stream: bool = False) -> None:
        try:
            if reply.drop:
                h.close_connection = True
                try:
                    h.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                return
            if stream and reply.status == 200:
                return self._send_sse(h, reply.body)
            data = json.dumps(reply.body).encode()
            h.send_response(reply.status)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(data)))
            h.end_headers()
            h.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass

    @staticmethod
    def _send_sse(h: BaseHTTPRequestHandler, completion: dict) -> None:
        """The completion as chunks: the message's delta, then the finish reason, then usage."""
        choice = completion["choices"][0]
        message = choice["message"]
        delta: dict[str, Any] = {"role": "assistant", "content": message.get("content")}
        if message.get("tool_calls"):
            delta["tool_calls"] = [{"index": i, **c} for i, c in enumerate(message["tool_calls"])]
        base = {k: completion[k] for k in ("id", "created", "model")} | {"object": "chat.completion.chunk"}
        chunks = [
            {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
            {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}]},
            {**base, "choices": [], "usage": completion["usage"]},
        ]
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.end_headers()
        for chunk in chunks:
            h.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
        h.wfile.write(b"data: [DONE]\n\n")
        h.wfile.flush()


# Variables that would send an OpenAI or Azure client elsewhere, or change how it authenticates.
ENV_TO_CLEAR = (
    "OPENAI_BASE_URL",
    "OPENAI_API_BASE",
    "OPENAI_API_KEY",
    "OPENAI_ORG_ID",
    "OPENAI_PROJECT_ID",
    "AZURE_OPENAI_ENDPOINT",
    "AZURE_OPENAI_API_KEY",
    "AZURE_OPENAI_AD_TOKEN",
    "OPENAI_API_VERSION",
    "RESEARCH_MODEL_BASE_URL",
    "LANGSMITH_GATEWAY",
)


def clean_env(monkeypatch, api_key: str | None = DEFAULT_API_KEY) -> None:
    """No variable points a client anywhere; `api_key` (if any) as OPENAI_API_KEY; 127.0.0.1 bypasses proxies."""
    import os

    for name in ENV_TO_CLEAR:
        monkeypatch.delenv(name, raising=False)
    if api_key:
        monkeypatch.setenv("OPENAI_API_KEY", api_key)
    for name in ("NO_PROXY", "no_proxy"):
        current = os.environ.get(name, "")
        monkeypatch.setenv(name, ",".join(x for x in (current, "127.0.0.1", "localhost") if x))


def start_llm_run(runs_dir, corpus, *, model: str = "openai:m", base_url: str | None = None, question: str, **kw):
    """A run with every role on the llm engine, `model` at `base_url` (else where the environment says)."""
    from harness.orchestrator.config import build_config
    from harness.orchestrator.lifecycle import start_run

    cfg = build_config(
        question,
        corpus=str(corpus),
        runs_dir=str(runs_dir),
        engine="llm",
        model=model,
        model_base_url=base_url,
        yes=True,
        **kw,
    )
    return start_run(cfg)
