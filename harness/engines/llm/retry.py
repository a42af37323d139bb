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
import os
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any, TypeVar

from harness.engines.llm.faults import (
    CONTENT_FAULTS,
    Fault,
    ProviderError,
    ai_message,
    classify_exception,
    classify_reply,
    rejection,
)
from harness.errors import UsageError

if TYPE_CHECKING:
    from harness.runtime.context import AgentContext

T = TypeVar("T")

ENV_PREFIX = "RESEARCH_LLM_RETRY_"


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

    def bound(self, fault: Fault) -> int:
        return self.empty_attempts if fault.kind in CONTENT_FAULTS else self.attempts

    def delay(self, retry: int, fault: Fault | None = None, rng: random.Random | None = None) -> float:
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
    def from_env(cls, environ: dict[str, str] | None = None, base: RetryPolicy | None = None) -> RetryPolicy:
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


# ---- the retry loop -------------------------------------------------------------------------


def record_faults(ctx: AgentContext, lines: list[str]) -> None:
    """Add the fault lines to the delegation's trace (`ctx.provider_errors`), once the agent has stopped:
    kept apart from `ctx.files.errors`, which count against the refused-write bound."""
    ctx.provider_errors.extend(lines)


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
    keeps one line per fault met, for the delegation's trace; `ctx.provider_retries` counts
    each retry as it is made. `accept_empty(reply)` says when an empty reply is the model's
    final word rather than a fault (a step that already wrote its outputs).
    """

    def __init__(
        self,
        policy: RetryPolicy,
        ctx: AgentContext | None = None,
        *,
        sleep: Callable[[float], None] | None = None,
        asleep: Callable[[float], Awaitable[None]] | None = None,
        rng: random.Random | None = None,
        accept_empty: Callable[[Any], bool] | None = None,
        label: str = "model",
    ):
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
        message = ai_message(reply) if not hasattr(reply, "response_metadata") else reply
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
            self.ctx.provider_retries += 1  # traced as the delegation's `retries`
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
        self.faults.append(
            f"provider fault on {self.label} attempt {attempt}/{bound} ({fault.kind}): {fault.detail}; {then}"
        )
        self.kinds.append(fault.kind)

    def _time_left(self) -> float | None:
        return self.ctx.budget.seconds_left() if self.ctx is not None else None

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
