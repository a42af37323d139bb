"""A Gemini-compatible HTTP stub, so tests can drive the real Gemini client offline.

The real ``langchain_google_genai.ChatGoogleGenerativeAI`` (langchain-google-genai
4.4 on google-genai 3.6) talks to the Gemini Developer API over plain HTTPS+JSON, so
a tiny local HTTP server that answers like Gemini lets a test exercise the whole
client stack (message conversion, tool declarations, response parsing, error
mapping, retries, timeouts) without the internet.

Pointing the client at the stub
-------------------------------
Either of these works (both verified in ``test_gemini_stub.py``):

* ``GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:PORT`` in the environment *before* the
  model is constructed.  ``google.genai.Client`` reads it (``google/genai/_base_url.py``)
  whenever ``HttpOptions.base_url`` is not given.  This is what code under test that
  builds its own model will pick up; use :func:`point_env_at_stub` (monkeypatch).
* ``ChatGoogleGenerativeAI(base_url=...)`` (alias ``client_options``, which may also
  be the legacy ``{"api_endpoint": url}`` dict).  It becomes ``HttpOptions.base_url``
  and wins over the env var.  :func:`chat_model` uses this.

Either way a LangSmith gateway setting (``LANGSMITH_GATEWAY``) would override the
env var, and ``GOOGLE_GENAI_USE_VERTEXAI`` would switch to the Vertex URL scheme;
:func:`point_env_at_stub` removes both.

What the client calls
---------------------
``POST {base}/{version}/models/{model}:generateContent`` for ``invoke``/``ainvoke``
and ``POST {base}/{version}/models/{model}:streamGenerateContent?alt=sse`` for
``stream``/``astream`` (and for ``invoke`` when a streaming callback is attached,
e.g. a LangGraph run with ``stream_mode="messages"``).  ``version`` is ``v1`` by
default in google-genai 3.6 (``v1beta`` if ``GOOGLE_GENAI_API_VERSION=beta``; any
value via ``api_version=``); the stub accepts any version segment.  The API key is
sent as the ``x-goog-api-key`` header.  The stub serves both endpoints; a non-200
reply on the streaming endpoint is sent as a plain JSON error before any event,
as Gemini does.

Scripting
---------
A :class:`GeminiStub` asks its *responder* (``Callable[[StubRequest], StubReply]``)
for every generate request.  :class:`ScriptedResponder` plays a list of replies in
order; when the list is exhausted it answers HTTP 400 ``FAILED_PRECONDITION`` with a
message starting ``GeminiStub:`` and records the problem in ``stub.errors`` (400 so
that a client with retries enabled does not retry it), unless constructed with
``when_exhausted="repeat_last"``.  Script entries may also be callables taking the
:class:`StubRequest`, for replies that depend on what was sent.

Reply builders: :func:`text_reply`, :func:`function_call_reply`, :func:`http_error`,
:func:`delay`, :func:`empty_reply`, :func:`malformed_function_call`,
:func:`drop_connection`, :func:`raw_reply`.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from fakes.http_stub import LocalServer, ServedStub

__all__ = [
    "DEFAULT_MODEL",
    "DEFAULT_API_KEY",
    "GeminiStub",
    "ScriptedResponder",
    "StubReply",
    "StubRequest",
    "chat_model",
    "delay",
    "drop_connection",
    "empty_reply",
    "function_call_reply",
    "gemini_stub",
    "http_error",
    "malformed_function_call",
    "point_env_at_stub",
    "raw_reply",
    "text_reply",
]

DEFAULT_MODEL = "gemini-3.5-flash"
DEFAULT_API_KEY = "test-key-gemini-stub"

# Environment variables that would send the client somewhere other than the stub.
_ENV_TO_CLEAR = (
    "GOOGLE_GENAI_USE_VERTEXAI",
    "GOOGLE_GENAI_USE_ENTERPRISE",
    "GOOGLE_VERTEX_BASE_URL",
    "GOOGLE_CLOUD_PROJECT",
    "GOOGLE_CLOUD_LOCATION",
    "GEMINI_API_KEY",
    "LANGSMITH_GATEWAY",
    "LANGSMITH_GATEWAY_API_KEY",
    "GOOGLE_GENAI_HTTP_CLIENT",
)

_STATUS_NAMES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    408: "DEADLINE_EXCEEDED",
    409: "ABORTED",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    501: "NOT_IMPLEMENTED",
    502: "UNAVAILABLE",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


# --------------------------------------------------------------------------- requests


@dataclass(frozen=True)
class StubRequest:
    """One HTTP request the stub received, parsed.

    ``headers`` has lower-cased names.  ``body`` is the parsed JSON body (``None`` if
    the body was empty or not JSON; ``raw_body`` has the bytes).  ``model`` is the
    bare model name (``"gemini-3.5-flash"``), ``action`` the method after the colon
    (``"generateContent"`` / ``"streamGenerateContent"``), ``stream`` is true for the
    SSE endpoint.  ``api_key`` is the key sent in ``x-goog-api-key`` or ``?key=``.
    """

    index: int
    method: str
    path: str
    route: str
    query: dict[str, str]
    headers: dict[str, str]
    raw_body: bytes
    body: Any
    api_version: str | None
    model: str | None
    action: str | None
    api_key: str | None
    api_key_source: str | None

    @property
    def stream(self) -> bool:
        return self.action == "streamGenerateContent"

    @property
    def is_generate(self) -> bool:
        return self.action in ("generateContent", "streamGenerateContent")

    # --- convenience views of a generateContent body --------------------------------

    def _b(self) -> dict:
        return self.body if isinstance(self.body, dict) else {}

    @property
    def contents(self) -> list[dict]:
        """The ``contents`` turns: ``[{"role": "user"|"model", "parts": [...]}, ...]``."""
        return list(self._b().get("contents") or [])

    @property
    def system_instruction(self) -> str:
        """All text parts of ``systemInstruction`` joined with newlines ("" if none)."""
        si = self._b().get("systemInstruction") or {}
        return "\n".join(p["text"] for p in si.get("parts") or [] if "text" in p)

    @property
    def roles(self) -> list[str]:
        return [c.get("role", "") for c in self.contents]

    def texts(self, role: str | None = None) -> list[str]:
        """Text parts of ``contents`` in order, optionally only for one role."""
        return [
            p["text"]
            for c in self.contents
            if role is None or c.get("role") == role
            for p in c.get("parts") or []
            if "text" in p
        ]

    @property
    def last_user_text(self) -> str | None:
        t = self.texts("user")
        return t[-1] if t else None

    @property
    def function_declarations(self) -> list[dict]:
        """Every ``functionDeclarations`` entry across ``tools``."""
        return [d for t in self._b().get("tools") or [] for d in t.get("functionDeclarations") or []]

    @property
    def tool_names(self) -> list[str]:
        return [d.get("name", "") for d in self.function_declarations]

    @property
    def function_calls(self) -> list[dict]:
        """``functionCall`` parts found in the history (earlier model turns)."""
        return [p["functionCall"] for c in self.contents for p in c.get("parts") or [] if "functionCall" in p]

    @property
    def function_responses(self) -> list[dict]:
        """``functionResponse`` parts (tool results sent back): ``{"name", "response"}``."""
        return [p["functionResponse"] for c in self.contents for p in c.get("parts") or [] if "functionResponse" in p]

    @property
    def generation_config(self) -> dict:
        return dict(self._b().get("generationConfig") or {})

    @property
    def tool_config(self) -> dict:
        return dict(self._b().get("toolConfig") or {})


# --------------------------------------------------------------------------- replies


@dataclass(frozen=True)
class StubReply:
    """What the stub sends back.

    ``body`` is a dict (sent as JSON), ``str``/``bytes`` (sent verbatim) or ``None``.
    On the streaming endpoint a 200 reply is sent as Server-Sent Events: one
    ``data:`` event per entry of ``stream_chunks`` if given, else one event holding
    ``body``.  Non-200 replies are sent as plain bodies on both endpoints.
    ``delay`` seconds are waited before anything is sent (the wait ends early when
    the stub closes).  ``drop`` closes the connection without any response.
    """

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    stream_chunks: tuple[dict, ...] | None = None
    delay: float = 0.0
    drop: bool = False
    label: str = ""


def _usage(prompt_tokens: int, output_tokens: int, thoughts_tokens: int = 0, cached_tokens: int = 0) -> dict:
    """Gemini's usageMetadata: the prompt count includes what was read from the cache (``cachedContentTokenCount``)."""
    u: dict[str, Any] = {
        "promptTokenCount": prompt_tokens,
        "totalTokenCount": prompt_tokens + output_tokens + thoughts_tokens,
    }
    if output_tokens:
        u["candidatesTokenCount"] = output_tokens
    if thoughts_tokens:
        u["thoughtsTokenCount"] = thoughts_tokens
    if cached_tokens:
        u["cachedContentTokenCount"] = cached_tokens
    return u


def _split(text: str, n: int) -> list[str]:
    n = max(1, min(n, len(text) or 1))
    size = -(-len(text) // n) if text else 0
    return [text[i * size : (i + 1) * size] for i in range(n)] if text else [""]


def text_reply(
    text: str,
    *,
    prompt_tokens: int = 10,
    output_tokens: int = 5,
    thoughts_tokens: int = 0,
    finish_reason: str = "STOP",
    model_version: str = DEFAULT_MODEL,
    stream_pieces: int = 1,
    cached_tokens: int = 0,
) -> StubReply:
    """A model turn holding one text part, with ``usageMetadata``.

    On the streaming endpoint the text is split into ``stream_pieces`` events; each
    carries Gemini-style *cumulative* usage and only the last has ``finishReason``.
    """
    body = {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": finish_reason, "index": 0}
        ],
        "usageMetadata": _usage(prompt_tokens, output_tokens, thoughts_tokens, cached_tokens),
        "modelVersion": model_version,
        "responseId": "stub-text",
    }
    pieces = _split(text, stream_pieces)
    chunks = []
    for i, piece in enumerate(pieces, 1):
        last = i == len(pieces)
        cand: dict[str, Any] = {"content": {"role": "model", "parts": [{"text": piece}]}, "index": 0}
        if last:
            cand["finishReason"] = finish_reason
        out_so_far = output_tokens if last else (output_tokens * i) // len(pieces)
        chunks.append(
            {
                "candidates": [cand],
                "usageMetadata": _usage(prompt_tokens, out_so_far, thoughts_tokens, cached_tokens),
                "modelVersion": model_version,
                "responseId": "stub-text",
            }
        )
    return StubReply(body=body, stream_chunks=tuple(chunks), label=f"text_reply({text[:30]!r})")


def function_call_reply(
    calls: Sequence[tuple[str, dict] | dict],
    *,
    text: str | None = None,
    ids: Sequence[str] | bool | None = None,
    thought_signature: bytes | str | None = None,
    prompt_tokens: int = 10,
    output_tokens: int = 5,
    model_version: str = DEFAULT_MODEL,
    thoughts_tokens: int = 0,
    cached_tokens: int = 0,
) -> StubReply:
    """A model turn requesting one or more function calls (``functionCall`` parts).

    ``calls`` is a list of ``(name, args)`` pairs (or ``{"name", "args"}`` dicts).
    ``ids``: ``None`` (default) sends no ``id`` (the usual Gemini Developer API
    answer; the client then invents ``uuid4`` tool-call ids), ``True`` sends
    ``call_1``, ``call_2``..., or give explicit ids.  ``thought_signature`` (bytes or
    base64 text) is attached to the first call, as Gemini 3 does.  ``text`` adds a
    leading text part.  ``finishReason`` is ``STOP``, as Gemini sends for calls.
    """
    norm = [(c["name"], c.get("args", {})) if isinstance(c, dict) else (c[0], c[1]) for c in calls]
    if ids is True:
        id_list: list[str | None] = [f"call_{i}" for i in range(1, len(norm) + 1)]
    elif ids:
        id_list = list(ids)  # type: ignore[arg-type]
        if len(id_list) != len(norm):
            raise ValueError("function_call_reply: ids must match calls one-to-one")
    else:
        id_list = [None] * len(norm)
    sig = thought_signature
    if isinstance(sig, bytes):
        sig = base64.b64encode(sig).decode("ascii")
    parts: list[dict] = [{"text": text}] if text else []
    for i, ((name, args), cid) in enumerate(zip(norm, id_list)):
        fc: dict[str, Any] = {"name": name, "args": dict(args)}
        if cid:
            fc["id"] = cid
        part: dict[str, Any] = {"functionCall": fc}
        if sig and i == 0:
            part["thoughtSignature"] = sig
        parts.append(part)
    body = {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": _usage(prompt_tokens, output_tokens, thoughts_tokens, cached_tokens),
        "modelVersion": model_version,
        "responseId": "stub-function-call",
    }
    return StubReply(body=body, label=f"function_call_reply({[n for n, _ in norm]})")


def http_error(
    status: int,
    message: str | None = None,
    *,
    status_name: str | None = None,
    retry_delay: float | None = None,
    headers: dict[str, str] | None = None,
) -> StubReply:
    """A Google-style JSON error: ``{"error": {"code", "message", "status"}}``.

    ``retry_delay`` (seconds) adds a ``google.rpc.RetryInfo`` detail like a real
    429 quota error.  (google-genai ignores it and uses its own backoff.)
    """
    name = status_name or _STATUS_NAMES.get(status, "UNKNOWN")
    err: dict[str, Any] = {"code": status, "message": message or f"GeminiStub scripted HTTP {status}", "status": name}
    if retry_delay is not None:
        err["details"] = [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": f"{retry_delay:g}s"}]
    return StubReply(status=status, body={"error": err}, headers=dict(headers or {}), label=f"http_error({status})")


def delay(seconds: float, then: StubReply | None = None) -> StubReply:
    """Wait ``seconds`` before sending ``then`` (default ``text_reply("delayed")``).

    With a client ``timeout`` shorter than ``seconds`` the client times out.
    """
    base = then if then is not None else text_reply("delayed")
    return replace(base, delay=seconds, label=f"delay({seconds}, {base.label})")


def empty_reply(kind: str = "no_candidates", *, block_reason: str | None = None, prompt_tokens: int = 10) -> StubReply:
    """An answer with nothing in it.

    ``kind="no_candidates"``: no ``candidates`` at all (what Gemini sends when the
    prompt is blocked; ``block_reason`` adds ``promptFeedback.blockReason``).
    ``kind="no_parts"``: one candidate whose content has a role but no parts, with
    ``finishReason: STOP``.
    """
    body: dict[str, Any] = {"usageMetadata": _usage(prompt_tokens, 0), "modelVersion": DEFAULT_MODEL}
    if kind == "no_candidates":
        if block_reason:
            body["promptFeedback"] = {"blockReason": block_reason}
    elif kind == "no_parts":
        body["candidates"] = [{"content": {"role": "model"}, "finishReason": "STOP", "index": 0}]
    else:
        raise ValueError(f"empty_reply: unknown kind {kind!r}")
    return StubReply(body=body, label=f"empty_reply({kind})")


def malformed_function_call(
    finish_message: str | None = None, *, omit_content: bool = False, prompt_tokens: int = 10
) -> StubReply:
    """``finishReason: MALFORMED_FUNCTION_CALL`` with empty content (``"content": {}``).

    That is what Gemini returns when the model produced an unparseable call; usage
    has prompt tokens only.  ``omit_content`` drops the ``content`` key entirely
    (also seen in the wild); ``finish_message`` adds ``finishMessage``.
    """
    cand: dict[str, Any] = {"finishReason": "MALFORMED_FUNCTION_CALL", "index": 0}
    if not omit_content:
        cand["content"] = {}
    if finish_message:
        cand["finishMessage"] = finish_message
    body = {"candidates": [cand], "usageMetadata": _usage(prompt_tokens, 0), "modelVersion": DEFAULT_MODEL}
    return StubReply(body=body, label="malformed_function_call()")


def drop_connection() -> StubReply:
    """Close the connection without sending any response."""
    return StubReply(drop=True, label="drop_connection()")


def raw_reply(body: str | bytes, *, status: int = 200, content_type: str = "application/json") -> StubReply:
    """Send ``body`` verbatim (e.g. invalid JSON)."""
    return StubReply(status=status, body=body, headers={"Content-Type": content_type}, label="raw_reply()")


# --------------------------------------------------------------------------- responders

Responder = Callable[[StubRequest], StubReply]
ScriptEntry = StubReply | Responder


class StubScriptError(RuntimeError):
    """The responder could not produce a reply (e.g. the script ran out)."""


class ScriptedResponder:
    """Answers generate requests with ``replies`` in order.

    When exhausted: ``when_exhausted="error"`` (default) raises
    :class:`StubScriptError`, which the stub turns into an HTTP 400 whose message
    starts ``GeminiStub:`` and records in ``stub.errors``; ``"repeat_last"`` keeps
    answering with the last entry.  Entries may be callables ``(StubRequest) ->
    StubReply``.
    """

    def __init__(self, replies: Iterable[ScriptEntry], *, when_exhausted: str = "error") -> None:
        if when_exhausted not in ("error", "repeat_last"):
            raise ValueError("when_exhausted must be 'error' or 'repeat_last'")
        self._replies = list(replies)
        self._pos = 0
        self._lock = threading.Lock()
        self.when_exhausted = when_exhausted

    @property
    def remaining(self) -> int:
        with self._lock:
            return max(0, len(self._replies) - self._pos)

    @property
    def used(self) -> int:
        with self._lock:
            return min(self._pos, len(self._replies))

    def __call__(self, request: StubRequest) -> StubReply:
        with self._lock:
            if self._pos < len(self._replies):
                entry = self._replies[self._pos]
                self._pos += 1
            elif self.when_exhausted == "repeat_last" and self._replies:
                entry = self._replies[-1]
            else:
                raise StubScriptError(
                    f"script exhausted: all {len(self._replies)} scripted replies were used, then another "
                    f"generate request arrived (stub request index {request.index}: {request.method} {request.path})"
                )
        return entry(request) if callable(entry) else entry


# --------------------------------------------------------------------------- server


def _parse_route(route: str) -> tuple[str | None, str | None, str | None]:
    """``/v1/models/gemini-x:generateContent`` -> ``("v1", "gemini-x", "generateContent")``."""
    parts = [p for p in route.split("/") if p]
    if len(parts) >= 3 and parts[-2] == "models" and ":" in parts[-1]:
        model, action = parts[-1].split(":", 1)
        version = parts[-3] if len(parts) >= 3 else None
        return version, model, action
    return None, None, None


class GeminiStub(ServedStub):
    """A local Gemini-compatible HTTP server (``127.0.0.1``, ephemeral port).

    Use as a context manager (or ``start()``/``close()``)::

        with GeminiStub(replies=[text_reply("hi")]) as stub:
            model = chat_model(stub)
            assert model.invoke("hello").text == "hi"
            assert stub.requests[0].last_user_text == "hello"

    ``responder`` answers each generate request; ``replies`` is a shortcut for
    ``ScriptedResponder(replies)``; with neither, every request gets
    ``text_reply("ok")``.  Requests without an API key get HTTP 403
    ``PERMISSION_DENIED`` (``require_api_key=False`` to allow); with
    ``expected_api_key`` a different key gets HTTP 400 ``API_KEY_INVALID``.
    Requests to paths other than ``.../models/{model}:(stream)generateContent``
    get 404 and are recorded in ``errors``.  Everything is recorded in
    ``requests`` (thread-safe snapshot list).
    """

    def __init__(
        self,
        responder: Responder | None = None,
        *,
        replies: Iterable[ScriptEntry] | None = None,
        require_api_key: bool = True,
        expected_api_key: str | None = None,
        host: str = "127.0.0.1",
    ) -> None:
        if responder is not None and replies is not None:
            raise ValueError("give either responder or replies, not both")
        if replies is not None:
            responder = ScriptedResponder(replies)
        self._responder: Responder = responder or (lambda _req: text_reply("ok"))
        self.require_api_key = require_api_key
        self.expected_api_key = expected_api_key
        self._host = host
        self._lock = threading.Lock()
        self._requests: list[StubRequest] = []
        self._errors: list[str] = []
        self._closing = threading.Event()
        self._new_request = threading.Condition(self._lock)
        self._server: LocalServer | None = None
        self._name = "gemini-stub"

    # --- lifecycle ------------------------------------------------------------------

    def close(self) -> None:
        self._closing.set()
        super().close()

    # --- public state ---------------------------------------------------------------

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("GeminiStub is not running")
        return self._server.port

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT`` - the value for ``GOOGLE_GEMINI_BASE_URL``/``base_url``."""
        return f"http://{self._host}:{self.port}"

    @property
    def requests(self) -> list[StubRequest]:
        """A snapshot of every request received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    @property
    def generate_requests(self) -> list[StubRequest]:
        return [r for r in self.requests if r.is_generate]

    @property
    def last_request(self) -> StubRequest:
        reqs = self.requests
        if not reqs:
            raise AssertionError("GeminiStub received no requests")
        return reqs[-1]

    @property
    def api_keys(self) -> set[str]:
        """Every API key value the stub has been sent."""
        return {r.api_key for r in self.requests if r.api_key}

    @property
    def errors(self) -> list[str]:
        """Problems on the stub side (script exhausted, responder crash, unknown path)."""
        with self._lock:
            return list(self._errors)

    def assert_no_errors(self) -> None:
        errs = self.errors
        if errs:
            raise AssertionError("GeminiStub errors:\n" + "\n".join(errs))

    def set_responder(self, responder: Responder) -> None:
        with self._lock:
            self._responder = responder

    def script(self, replies: Iterable[ScriptEntry], *, when_exhausted: str = "error") -> ScriptedResponder:
        """Replace the responder with a new :class:`ScriptedResponder` and return it."""
        sr = ScriptedResponder(replies, when_exhausted=when_exhausted)
        self.set_responder(sr)
        return sr

    def wait_for_requests(self, n: int, timeout: float = 5.0) -> list[StubRequest]:
        """Block until at least ``n`` requests have arrived (for async/threaded tests)."""
        with self._new_request:
            if not self._new_request.wait_for(lambda: len(self._requests) >= n, timeout=timeout):
                raise AssertionError(f"GeminiStub: expected {n} requests, got {len(self._requests)}")
            return list(self._requests)

    # --- request handling -----------------------------------------------------------

    def _record(self, h: BaseHTTPRequestHandler) -> StubRequest:
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        split = urlsplit(h.path)
        query = {k: v[-1] for k, v in parse_qs(split.query, keep_blank_values=True).items()}
        headers = {k.lower(): v for k, v in h.headers.items()}
        if headers.get("x-goog-api-key"):
            key, src = headers["x-goog-api-key"], "header"
        elif query.get("key"):
            key, src = query["key"], "query"
        else:
            key, src = None, None
        version, model, action = _parse_route(split.path)
        with self._new_request:
            req = StubRequest(
                index=len(self._requests),
                method=h.command,
                path=h.path,
                route=split.path,
                query=query,
                headers=headers,
                raw_body=raw,
                body=body,
                api_version=version,
                model=model,
                action=action,
                api_key=key,
                api_key_source=src,
            )
            self._requests.append(req)
            self._new_request.notify_all()
        return req

    def _error(self, msg: str) -> None:
        with self._lock:
            self._errors.append(msg)

    def _reply_for(self, req: StubRequest) -> StubReply:
        if self.require_api_key and not req.api_key:
            return http_error(
                403,
                "Method doesn't allow unregistered callers (callers without established "
                "identity). Please use API Key or other form of API consumer identity to call "
                "this API.",
                status_name="PERMISSION_DENIED",
            )
        if self.expected_api_key is not None and req.api_key != self.expected_api_key:
            return http_error(400, "API key not valid. Please pass a valid API key.", status_name="INVALID_ARGUMENT")
        if req.method != "POST" or not req.is_generate:
            self._error(f"unexpected request {req.method} {req.path}")
            return http_error(404, f"GeminiStub: no handler for {req.method} {req.route}", status_name="NOT_FOUND")
        with self._lock:
            responder = self._responder
        try:
            reply = responder(req)
        except Exception as exc:  # noqa: BLE001 - report any responder failure to the test
            self._error(f"request #{req.index}: {exc}")
            return http_error(400, f"GeminiStub: {exc}", status_name="FAILED_PRECONDITION")
        if not isinstance(reply, StubReply):
            self._error(f"request #{req.index}: responder returned {type(reply).__name__}, not StubReply")
            return http_error(400, "GeminiStub: responder returned a non-StubReply", status_name="FAILED_PRECONDITION")
        return reply

    def _handle(self, h: BaseHTTPRequestHandler) -> None:
        req = self._record(h)
        reply = self._reply_for(req)
        try:
            if reply.delay and self._closing.wait(reply.delay):
                return  # stub closing: abandon the request
            if reply.drop:
                h.close_connection = True
                try:
                    h.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                return
            if req.stream and reply.status == 200 and not isinstance(reply.body, (str, bytes)):
                self._send_sse(h, reply)
            else:
                self._send_plain(h, reply)
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            pass  # the client gave up (e.g. its timeout fired) - nothing to do

    @staticmethod
    def _encode(body: Any) -> bytes:
        if body is None:
            return b""
        if isinstance(body, bytes):
            return body
        if isinstance(body, str):
            return body.encode("utf-8")
        return json.dumps(body).encode("utf-8")

    def _send_plain(self, h: BaseHTTPRequestHandler, reply: StubReply) -> None:
        data = self._encode(reply.body)
        h.send_response(reply.status)
        headers = {"Content-Type": "application/json; charset=UTF-8", **reply.headers}
        for k, v in headers.items():
            h.send_header(k, v)
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)
        h.wfile.flush()

    def _send_sse(self, h: BaseHTTPRequestHandler, reply: StubReply) -> None:
        chunks: Sequence[Any] = reply.stream_chunks if reply.stream_chunks is not None else [reply.body]
        h.send_response(200)
        headers = {"Content-Type": "text/event-stream", **reply.headers}
        for k, v in headers.items():
            h.send_header(k, v)
        h.end_headers()
        for chunk in chunks:
            h.wfile.write(b"data: " + self._encode(chunk) + b"\r\n\r\n")
            h.wfile.flush()


# --------------------------------------------------------------------------- helpers


def point_env_at_stub(monkeypatch: pytest.MonkeyPatch, stub: GeminiStub, api_key: str = DEFAULT_API_KEY) -> None:
    """Make any ``ChatGoogleGenerativeAI`` built afterwards talk to ``stub``.

    Sets ``GOOGLE_GEMINI_BASE_URL`` and ``GOOGLE_API_KEY``; removes variables that
    would redirect the client (Vertex AI, LangSmith gateway, ``GEMINI_API_KEY``);
    adds the stub host to ``NO_PROXY`` so an HTTP proxy in the environment is not
    used.  Must run before the model is constructed (the URL is read then).
    """
    for name in _ENV_TO_CLEAR:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", stub.base_url)
    monkeypatch.setenv("GOOGLE_API_KEY", api_key)
    for name in ("NO_PROXY", "no_proxy"):
        current = os.environ.get(name, "")
        monkeypatch.setenv(name, ",".join(x for x in (current, "127.0.0.1", "localhost") if x))


def chat_model(stub: GeminiStub, **kw: Any):
    """A real ``ChatGoogleGenerativeAI`` wired to ``stub``.

    Defaults: ``model="gemini-3.5-flash"``, ``google_api_key=DEFAULT_API_KEY``,
    ``base_url=stub.base_url`` (explicit, so no env var is needed and it wins over
    ``GOOGLE_GEMINI_BASE_URL``), ``max_retries=1`` (one attempt, no retries: the
    client's default ``max_retries=6`` means up to 6 attempts on 408/429/500/502/503/
    504, timeouts and connect errors, waiting ~1, 2, 4, 8, 16 s plus up to 1 s
    jitter; the library documents ``1``, not ``0``, as "disable retries"), and
    ``client_args={"trust_env": False}`` so proxy environment variables are ignored.
    For a fast retry test pass per-call options instead, e.g.
    ``model.invoke(x, http_options={"retry_options": {"attempts": 3,
    "initial_delay": 0, "jitter": 0}})``.
    Any keyword overrides these.  ``base_url=None`` relies on the env var instead
    (or on a legacy ``client_options={"api_endpoint": ...}``); as a guard against
    reaching the real API, that raises unless ``GOOGLE_GEMINI_BASE_URL`` is the stub
    (see :func:`point_env_at_stub`) or ``client_options`` names it.
    """
    from langchain_google_genai import ChatGoogleGenerativeAI

    kw.setdefault("model", DEFAULT_MODEL)
    kw.setdefault("google_api_key", DEFAULT_API_KEY)
    kw.setdefault("base_url", stub.base_url)
    kw.setdefault("max_retries", 1)
    kw.setdefault("client_args", {"trust_env": False})
    if kw["base_url"] is None:
        del kw["base_url"]
        opts = kw.get("client_options")
        target = opts.get("api_endpoint") if isinstance(opts, dict) else opts
        if (target or os.environ.get("GOOGLE_GEMINI_BASE_URL")) != stub.base_url:
            raise ValueError(
                "chat_model(base_url=None): neither client_options nor GOOGLE_GEMINI_BASE_URL points at "
                f"the stub ({stub.base_url}); the client would call the real Gemini API"
            )
    return ChatGoogleGenerativeAI(**kw)


@pytest.fixture
def gemini_stub() -> Iterator[GeminiStub]:
    """A running :class:`GeminiStub` (answers ``text_reply("ok")`` until scripted).

    Import it into a test module (``from fakes.gemini_stub import gemini_stub``) and
    script it with ``gemini_stub.script([...])``.
    """
    with GeminiStub() as stub:
        yield stub
