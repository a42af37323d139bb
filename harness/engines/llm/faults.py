"""Provider faults: what a failed model call or an unusable reply stands for.

`classify_exception` and `classify_reply` turn an exception or a reply into a `Fault`
(`kind` is one of `FAULT_KINDS`; see `retry.py` for which kinds are retried and how
often), `rejection` names a refusal no retry can fix, and `ProviderError` is the one-line
reason a step stops with once the retry bound is reached: a `ProviderOutage` (transport
faults: the run waits, `interrupted`, and resumes) or a plain one (the step fails).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from langchain.agents.middleware.types import ExtendedModelResponse, ModelResponse
from langchain_core.messages import AIMessage

from harness.errors import HarnessError, ProviderUnavailable
from harness.runtime.budget import DelegationTimeout

TRANSPORT_FAULTS = ("rate_limit", "server_error", "timeout", "connection", "invalid_response")
CONTENT_FAULTS = ("empty_reply", "malformed_function_call")
FAULT_KINDS = TRANSPORT_FAULTS + CONTENT_FAULTS
DETAIL_CHARS = 240


@dataclass(frozen=True)
class Fault:
    kind: str  # one of FAULT_KINDS
    detail: str  # one line, e.g. "503 UNAVAILABLE: backend exploded"
    retry_after: float | None = None  # the server's own hint, seconds

    def __str__(self) -> str:
        return self.detail


class ProviderError(HarnessError):
    """A provider fault persisted past the retry bound: the step fails with this one-line reason."""

    def __init__(self, fault: Fault, attempts: int, note: str = ""):
        self.fault = fault
        self.attempts = attempts
        super().__init__(f"provider error after {attempts} attempt{'s' if attempts != 1 else ''}: {fault.detail}{note}")

    @staticmethod
    def of(fault: Fault, attempts: int, note: str = "") -> ProviderError:
        """The error for a fault past its bound: an outage (the run waits, resumable) for a transport fault,
        a plain ProviderError (the step fails) for what another attempt later would not fix."""
        cls = ProviderOutage if fault.kind in TRANSPORT_FAULTS else ProviderError
        return cls(fault, attempts, note)


class ProviderOutage(ProviderError, ProviderUnavailable):
    """429, 5xx, timeouts, dropped connections past the retry bound: the provider is down, not the request wrong."""


def _one_line(text: Any, limit: int = DETAIL_CHARS) -> str:
    s = " ".join(str(text).split())
    return s if len(s) <= limit else s[: limit - 1] + "…"


def _chain(exc: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    cur: BaseException | None = exc
    while cur is not None and cur not in out and len(out) < 6:
        out.append(cur)
        cur = cur.__cause__ or cur.__context__
    return out


def _status_code(exc: BaseException) -> int | None:
    for e in _chain(exc):
        for attr in ("code", "status_code", "http_status"):
            value = getattr(e, attr, None)
            if isinstance(value, int) and not isinstance(value, bool) and 100 <= value <= 599:
                return value
        response = getattr(e, "response", None)
        value = getattr(response, "status_code", None)
        if isinstance(value, int) and 100 <= value <= 599:
            return value
    return None


_RETRY_DELAY = re.compile(r"retryDelay['\"]?\s*[:=]\s*['\"]?(\d+(?:\.\d+)?)s")


def _retry_after(exc: BaseException) -> float | None:
    """The server's retry hint: Gemini's RetryInfo.retryDelay, or a Retry-After header (seconds)."""
    for e in _chain(exc):
        details = getattr(e, "details", None)
        m = _RETRY_DELAY.search(json.dumps(details) if isinstance(details, (dict, list)) else str(details or ""))
        m = m or _RETRY_DELAY.search(str(e))
        if m:
            return float(m.group(1))
        headers = getattr(getattr(e, "response", None), "headers", None)
        try:
            value = headers.get("retry-after") if headers is not None else None
        except Exception:  # noqa: BLE001 - a header object we do not know
            value = None
        if value:
            try:
                return float(value)
            except ValueError:
                return None
    return None


def _http_detail(exc: BaseException, code: int) -> str:
    for e in _chain(exc):
        status, message = getattr(e, "status", None), getattr(e, "message", None)
        if isinstance(status, str) and status and (message or getattr(e, "code", None) == code):
            return _one_line(f"{code} {status}: {message or ''}".rstrip(": "))
    text = str(exc)
    return _one_line(text if text.startswith(str(code)) else f"{code} {type(exc).__name__}: {text}")


def _names(exc: BaseException) -> set[str]:
    return {c.__name__ for c in type(exc).__mro__}


_TIMEOUT_NAMES = {
    "TimeoutException",
    "ReadTimeout",
    "WriteTimeout",
    "ConnectTimeout",
    "PoolTimeout",
    "APITimeoutError",
    "ModelTimeoutError",
    "Timeout",
    "DeadlineExceeded",
}
_CONNECTION_NAMES = {
    "NetworkError",
    "ConnectError",
    "ReadError",
    "WriteError",
    "RemoteProtocolError",
    "LocalProtocolError",
    "APIConnectionError",
    "ModelConnectionError",
    "ServerDisconnectedError",
    "ClientConnectionError",
    "IncompleteRead",
    "ChunkedEncodingError",
    "ConnectionError",
}


def classify_exception(exc: BaseException) -> Fault | None:
    """The provider fault an exception from a model call stands for, or None when it must not be retried."""
    if isinstance(exc, (HarnessError, DelegationTimeout)) or not isinstance(exc, Exception):
        return None  # the harness's own stops (budget, deadline, refused writes) are never retried
    from langchain_core.exceptions import ModelError

    name = type(exc).__name__
    code = _status_code(exc)
    if isinstance(exc, ModelError) and not exc.is_retryable and code not in (408, 429) and not (code and code >= 500):
        return None  # 400/401/403/404, context overflow, refusal: another attempt gets the same answer
    if code == 429:
        return Fault("rate_limit", _http_detail(exc, code), _retry_after(exc))
    if code is not None and code >= 500:
        return Fault("server_error", _http_detail(exc, code), _retry_after(exc))
    if code == 408 or isinstance(exc, TimeoutError) or _names(exc) & _TIMEOUT_NAMES:
        return Fault("timeout", _one_line(f"timeout: {name}: {exc}" if str(exc) else f"timeout: {name}"))
    if isinstance(exc, ConnectionError) or _names(exc) & _CONNECTION_NAMES:
        return Fault(
            "connection", _one_line(f"connection failed: {name}: {exc}" if str(exc) else f"connection failed: {name}")
        )
    if isinstance(exc, json.JSONDecodeError):
        return Fault("invalid_response", _one_line(f"invalid response: {name}: {exc}"))
    if isinstance(exc, ModelError) and exc.is_retryable:
        return Fault("server_error", _one_line(f"{name}: {exc}"))
    return None


def is_context_overflow(exc: BaseException) -> bool:
    """The prompt did not fit the model's context window ("maximum context length", "context_length_exceeded",
    "prompt is too long", ...): recognised exactly as deepagents' summarization recognises it, so what it
    compacts and retries is what the harness leaves to it."""
    from langchain_core.exceptions import ContextOverflowError

    if isinstance(exc, ContextOverflowError):
        return True
    try:
        from deepagents.middleware.summarization import _is_context_overflow
    except ImportError:  # a deepagents without it: the typed error only
        return False
    return isinstance(exc, Exception) and _is_context_overflow(exc)


def rejection(exc: BaseException) -> Fault | None:
    """A provider's refusal that no retry can fix (HTTP 400/401/403/404...), as a `rejected` fault.

    None for everything else, and for a context overflow, which must reach the
    summarization middleware unchanged (it compacts the history and tries again).
    """
    if isinstance(exc, (HarnessError, DelegationTimeout)) or not isinstance(exc, Exception) or is_context_overflow(exc):
        return None
    code = _status_code(exc)
    if code is None or not 400 <= code < 500:
        return None
    return Fault("rejected", _http_detail(exc, code))


def _finish_reason(message: Any) -> str | None:
    meta = getattr(message, "response_metadata", None) or {}
    reason = meta.get("finish_reason") or meta.get("stop_reason")
    return str(getattr(reason, "name", reason)) if reason else None


def is_empty_message(message: Any) -> bool:
    """No text and no tool call."""
    if message is None:
        return True
    return (
        not getattr(message, "tool_calls", None)
        and not getattr(message, "invalid_tool_calls", None)
        and not (getattr(message, "text", "") or "").strip()
    )


def classify_reply(message: Any) -> Fault | None:
    """The content fault a model reply stands for (MALFORMED_FUNCTION_CALL, empty), or None when usable."""
    reason = _finish_reason(message)
    if (
        message is not None
        and reason
        and "MALFORMED_FUNCTION_CALL" in reason
        and not getattr(message, "tool_calls", None)
    ):
        return Fault(
            "malformed_function_call",
            "MALFORMED_FUNCTION_CALL: the model's tool call could not be parsed (empty content, no tool call)",
        )
    if not is_empty_message(message):
        return None
    why = []
    if reason:
        why.append(f"finish_reason {reason}")
    feedback = (
        ((getattr(message, "response_metadata", None) or {}).get("prompt_feedback") or {})
        if message is not None
        else {}
    )
    if isinstance(feedback, dict) and feedback.get("block_reason"):
        why.append(f"blocked: {getattr(feedback['block_reason'], 'name', feedback['block_reason'])}")
    return Fault("empty_reply", "empty reply: no text and no tool call" + (f" ({', '.join(why)})" if why else ""))


def ai_message(response: Any) -> AIMessage | None:
    """The AIMessage of a model response, whatever wrapper langchain put around it."""
    if isinstance(response, ExtendedModelResponse):
        response = response.model_response
    if isinstance(response, AIMessage):
        return response
    if isinstance(response, ModelResponse):
        return next((m for m in response.result if isinstance(m, AIMessage)), None)
    return None
