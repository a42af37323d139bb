"""Provider faults: classified, retried with exponential backoff and jitter, bounded, budgeted, traced.

The harness, not the provider client, owns retries (`resolve_model` turns the client's own
retries off), so every attempt goes through `BudgetGuard` (checked before it is made,
charged after, a failed attempt included) and every fault is recorded for the trace.

What counts as a provider fault (`Fault.kind`):

| kind | what the provider did | bound |
|---|---|---|
| `rate_limit` | HTTP 429 (quota, RESOURCE_EXHAUSTED) | `attempts` |
| `server_error` | HTTP 5xx (500 INTERNAL, 503 UNAVAILABLE, 529 overloaded, ...) | `attempts` |
| `timeout` | the request timed out (HTTP 408/504 or a transport timeout) | `attempts` |
| `connection` | the connection failed or was dropped before a reply | `attempts` |
| `invalid_response` | the reply was not valid JSON | `attempts` |
| `empty_reply` | a reply with no text and no tool call (no candidates, blocked, no parts) | `empty_attempts` |
| `malformed_function_call` | Gemini's `finish_reason: MALFORMED_FUNCTION_CALL` (empty content, no tool call, no exception) | `empty_attempts` |
| `rejected` | HTTP 400/401/403/404...: no retry can fix it | 1 (not retried) |

Nothing else is retried: a context overflow (left to the summarization middleware), the
harness's own stops (budget, deadline, refused writes), a bug. An empty reply that ends a
step which already wrote its outputs is the model saying it is done, not a fault. Before
each wait the next attempt is checked against the budget, and a wait that would pass the
delegation's or the run's time limit is not started: the step fails at once.

Each failed attempt is charged as one llm call and its input-token estimate (the provider
may have processed the prompt); a reply is charged its reported usage.

When the bound is reached, `ProviderError` ("provider error after 4 attempts: 503
UNAVAILABLE: ...") ends the step; `DeepAgentRole.run` returns it as a failed result,
and the delegation's trace event lists every fault (`errors`) and retry (`retries`).

The policy (`RetryPolicy`) comes from the role's constructor, else from the environment
(`RESEARCH_LLM_RETRY_ATTEMPTS`, `..._EMPTY_ATTEMPTS`, `..._BASE_DELAY`, `..._MAX_DELAY`,
`..._JITTER`), else the defaults below.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import time
from dataclasses import dataclass, fields, replace
from typing import Any, Awaitable, Callable, TypeVar

from ...budget import DelegationTimeout
from ...errors import HarnessError, UsageError

T = TypeVar("T")

TRANSPORT_FAULTS = ("rate_limit", "server_error", "timeout", "connection", "invalid_response")
CONTENT_FAULTS = ("empty_reply", "malformed_function_call")
FAULT_KINDS = TRANSPORT_FAULTS + CONTENT_FAULTS

ENV_PREFIX = "RESEARCH_LLM_RETRY_"
DETAIL_CHARS = 240


# ---- the policy -----------------------------------------------------------------------------

@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently a model call is retried.

    `attempts`: total attempts per model call on transport faults (429, 5xx, timeout,
    connection). `empty_attempts`: total attempts on content faults (empty reply,
    MALFORMED_FUNCTION_CALL). The n-th retry waits `min(max_delay, base_delay *
    multiplier**(n-1))` scaled by a random factor in `[1 - jitter, 1]`; a server's own
    retry hint (Gemini's RetryInfo, a Retry-After header) raises that wait, up to
    `max_delay`. Content faults are re-asked at once unless `backoff_empty` is set: the
    provider answered, so waiting does not help.
    """

    attempts: int = 5
    empty_attempts: int = 3
    base_delay: float = 1.0
    max_delay: float = 30.0
    multiplier: float = 2.0
    jitter: float = 0.5
    backoff_empty: bool = False

    def __post_init__(self) -> None:
        for name in ("attempts", "empty_attempts"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise UsageError(f"retry policy: {name} must be an integer >= 1 (got {value!r})")
        for name in ("base_delay", "max_delay", "multiplier"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or value < 0:
                raise UsageError(f"retry policy: {name} must be a number >= 0 (got {value!r})")
        if not isinstance(self.jitter, (int, float)) or not 0 <= self.jitter <= 1:
            raise UsageError(f"retry policy: jitter must be between 0 and 1 (got {self.jitter!r})")

    def bound(self, fault: "Fault") -> int:
        return self.empty_attempts if fault.kind in CONTENT_FAULTS else self.attempts

    def delay(self, retry: int, fault: "Fault | None" = None, rng: random.Random | None = None) -> float:
        """Seconds to wait before retry number `retry` (1 for the first retry)."""
        if fault is not None and fault.kind in CONTENT_FAULTS and not self.backoff_empty:
            return 0.0
        wait = min(self.max_delay, self.base_delay * self.multiplier ** max(0, retry - 1))
        if self.jitter and wait > 0:
            wait *= 1 - self.jitter * (rng or random).random()
        if fault is not None and fault.retry_after:
            wait = max(wait, min(fault.retry_after, self.max_delay))
        return wait

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None, base: "RetryPolicy | None" = None) -> "RetryPolicy":
        """`base` (default: the defaults) with any `RESEARCH_LLM_RETRY_*` variable applied."""
        env = os.environ if environ is None else environ
        policy = base or cls()
        changes: dict[str, Any] = {}
        for f in fields(cls):
            name = ENV_PREFIX + f.name.upper()
            raw = env.get(name, "").strip()
            if not raw:
                continue
            try:
                if f.type in ("int", int):
                    changes[f.name] = int(raw)
                elif f.type in ("bool", bool):
                    changes[f.name] = raw.lower() in ("1", "true", "yes", "on")
                else:
                    changes[f.name] = float(raw)
            except ValueError:
                raise UsageError(f"{name}={raw!r}: not a valid {f.type}") from None
        try:
            return replace(policy, **changes)
        except UsageError as exc:
            raise UsageError(f"{ENV_PREFIX}*: {exc}") from None


# ---- faults ---------------------------------------------------------------------------------

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


_TIMEOUT_NAMES = {"TimeoutException", "ReadTimeout", "WriteTimeout", "ConnectTimeout", "PoolTimeout",
                  "APITimeoutError", "ModelTimeoutError", "Timeout", "DeadlineExceeded"}
_CONNECTION_NAMES = {"NetworkError", "ConnectError", "ReadError", "WriteError", "RemoteProtocolError", "LocalProtocolError",
                     "APIConnectionError", "ModelConnectionError", "ServerDisconnectedError", "ClientConnectionError",
                     "IncompleteRead", "ChunkedEncodingError", "ConnectionError"}


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
        return Fault("connection", _one_line(f"connection failed: {name}: {exc}" if str(exc) else f"connection failed: {name}"))
    if isinstance(exc, json.JSONDecodeError):
        return Fault("invalid_response", _one_line(f"invalid response: {name}: {exc}"))
    if isinstance(exc, ModelError) and exc.is_retryable:
        return Fault("server_error", _one_line(f"{name}: {exc}"))
    return None


def rejection(exc: BaseException) -> Fault | None:
    """A provider's refusal that no retry can fix (HTTP 400/401/403/404...), as a `rejected` fault.

    None for everything else, and for a context overflow, which must reach the
    summarization middleware unchanged (it compacts the history and tries again).
    """
    from langchain_core.exceptions import ContextOverflowError

    if isinstance(exc, (HarnessError, DelegationTimeout, ContextOverflowError)) or not isinstance(exc, Exception):
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
    return not getattr(message, "tool_calls", None) and not getattr(message, "invalid_tool_calls", None) \
        and not (getattr(message, "text", "") or "").strip()


def classify_reply(message: Any) -> Fault | None:
    """The content fault a model reply stands for (MALFORMED_FUNCTION_CALL, empty), or None when usable."""
    reason = _finish_reason(message)
    if message is not None and reason and "MALFORMED_FUNCTION_CALL" in reason and not getattr(message, "tool_calls", None):
        return Fault("malformed_function_call", "MALFORMED_FUNCTION_CALL: the model's tool call could not be parsed "
                                                "(empty content, no tool call)")
    if not is_empty_message(message):
        return None
    why = []
    if reason:
        why.append(f"finish_reason {reason}")
    feedback = ((getattr(message, "response_metadata", None) or {}).get("prompt_feedback") or {}) if message is not None else {}
    if isinstance(feedback, dict) and feedback.get("block_reason"):
        why.append(f"blocked: {getattr(feedback['block_reason'], 'name', feedback['block_reason'])}")
    return Fault("empty_reply", "empty reply: no text and no tool call" + (f" ({', '.join(why)})" if why else ""))


# ---- the retry loop -------------------------------------------------------------------------

def count_retry(ctx: Any) -> None:
    """Count one provider retry on the delegation's context (traced as the delegation's `retries`).

    A context with its own `provider_retries` counter gets it there, so the trace can tell
    provider retries from refused writes; otherwise `retries` ("writes or calls retried").
    """
    if isinstance(getattr(ctx, "provider_retries", None), int):
        ctx.provider_retries += 1
    else:
        ctx.retries += 1


def record_faults(ctx: Any, lines: list[str]) -> None:
    """Add the fault lines to the delegation's trace errors, once the agent has stopped.

    Never while it runs: `ctx.write` counts `ctx.errors` against the refused-write bound. A
    context with its own `provider_errors` list gets them there instead.
    """
    target = getattr(ctx, "provider_errors", None)
    (target if isinstance(target, list) else ctx.errors).extend(lines)


def backoff_sleep(seconds: float) -> None:
    """How the retry loop waits between attempts (looked up at each wait, so tests can record instead)."""
    if seconds > 0:
        time.sleep(seconds)


async def abackoff_sleep(seconds: float) -> None:
    if seconds > 0:
        await asyncio.sleep(seconds)


class Retrier:
    """Runs one model call (`attempt`) until it succeeds or its fault's bound is reached.

    Shared by every model call of one delegation (agent steps and summaries). `faults`
    keeps one line per fault met, for the delegation's trace; `ctx.retries` counts each
    retry as it is made. `accept_empty(reply)` says when an empty reply is the model's
    final word rather than a fault (a step that already wrote its outputs).
    """

    def __init__(self, policy: RetryPolicy, ctx: Any = None, *, sleep: Callable[[float], None] | None = None,
                 asleep: Callable[[float], Awaitable[None]] | None = None, rng: random.Random | None = None,
                 accept_empty: Callable[[Any], bool] | None = None, label: str = "model"):
        self.policy = policy
        self.ctx = ctx
        self.sleep = sleep or (lambda s: backoff_sleep(s))
        self.asleep = asleep or (lambda s: abackoff_sleep(s))
        self.rng = rng or random.Random()
        self.accept_empty = accept_empty or (lambda _reply: False)
        self.label = label
        self.faults: list[str] = []  # one line per fault, in order
        self.delays: list[float] = []  # the wait before each retry
        self.kinds: list[str] = []  # the fault kind of each line in `faults`
        self.attempts = 0  # attempts made, all calls together

    # one step of the loop, shared by the sync and async versions

    def _fault_of_reply(self, reply: Any, accept_empty: bool) -> Fault | None:
        from .middleware import _ai_message

        message = _ai_message(reply) if not hasattr(reply, "response_metadata") else reply
        fault = classify_reply(message)
        if fault is not None and fault.kind == "empty_reply" and (accept_empty or self.accept_empty(message)):
            return None
        return fault

    def _next(self, fault: Fault, attempt: int) -> float:
        """Record `fault` on `attempt`; the wait before the next attempt, or raise ProviderError."""
        bound = self.policy.bound(fault)
        if attempt >= bound:
            self._record(fault, attempt, bound, None)
            raise ProviderError(fault, attempt)
        wait = self.policy.delay(attempt, fault, self.rng)
        left = self._time_left()
        if left is not None and wait >= left:
            self._record(fault, attempt, bound, None)
            raise ProviderError(fault, attempt, f" (no retry: waiting {wait:.2f}s would pass the time limit)")
        if self.ctx is not None:
            try:
                self.ctx.budget.check("llm_calls", 1)  # no point waiting for a call the budget (or deadline) refuses
            except Exception:
                self._record(fault, attempt, bound, None)
                raise
            count_retry(self.ctx)
        self._record(fault, attempt, bound, wait)
        self.delays.append(wait)
        return wait

    def _reject(self, exc: Exception, attempt: int) -> None:
        """Turn a provider's non-retryable refusal into a ProviderError with a one-line reason."""
        fault = rejection(exc)
        if fault is not None:
            self._record(fault, attempt, attempt, None)
            raise ProviderError(fault, attempt, " (not retryable)") from exc

    def _record(self, fault: Fault, attempt: int, bound: int, wait: float | None) -> None:
        then = f"retrying in {wait:.2f}s" if wait is not None else "giving up"
        self.faults.append(f"provider fault on {self.label} attempt {attempt}/{bound} ({fault.kind}): {fault.detail}; {then}")
        self.kinds.append(fault.kind)

    def _time_left(self) -> float | None:
        budget = getattr(self.ctx, "budget", None)
        if budget is None:
            return None
        lefts = []
        deadline = getattr(budget, "deadline", None)
        if isinstance(deadline, (int, float)):
            lefts.append(deadline - time.monotonic())
        run = getattr(budget, "budget", None)
        limit = (getattr(run, "limits", None) or {}).get("wall_seconds")
        wall = getattr(run, "_wall", None)
        if limit is not None and callable(wall):
            lefts.append(limit - wall())
        return min(lefts) if lefts else None

    def call(self, attempt: Callable[[], T], *, accept_empty: bool = False) -> T:
        """`attempt()` until it returns a usable reply; `accept_empty`: an empty reply is usable (summaries)."""
        n = 0
        while True:
            n += 1
            self.attempts += 1
            try:
                reply = attempt()
            except Exception as exc:
                fault = classify_exception(exc)
                if fault is None:
                    self._reject(exc, n)
                    raise
                self.sleep(self._next(fault, n))
                continue
            fault = self._fault_of_reply(reply, accept_empty)
            if fault is None:
                return reply
            self.sleep(self._next(fault, n))

    async def acall(self, attempt: Callable[[], Awaitable[T]], *, accept_empty: bool = False) -> T:
        n = 0
        while True:
            n += 1
            self.attempts += 1
            try:
                reply = await attempt()
            except Exception as exc:
                fault = classify_exception(exc)
                if fault is None:
                    self._reject(exc, n)
                    raise
                await self.asleep(self._next(fault, n))
                continue
            fault = self._fault_of_reply(reply, accept_empty)
            if fault is None:
                return reply
            await self.asleep(self._next(fault, n))
