"""Provider faults, injected through the real Gemini client against the local GeminiStub.

Every run here builds its models the production way (`resolve_model`, with the client's
own retries off) from `GOOGLE_GEMINI_BASE_URL` pointing at the stub, so the harness's
retry layer (`harness/engines/llm/retry.py`) is the only one retrying. Backoff waits are
recorded, not slept (`retry.backoff_sleep` is replaced), except a client timeout, which
costs its short timeout once per injected fault. No test reaches the internet; none
asserts on wall time.

For docs/reliability.md, collect the cases with `pytest tests/test_faults.py --collect-only -q -o addopts=""`:
every parametrized id starts `fault-<name>` (a key of `FAULTS` or `REJECTED`), and
`RECOVER_CASES`, `PERSIST_CASES` and `REJECTED` list what is tried:

- `test_a_fault_is_retried_then_the_run_completes[fault-<name>-x<k>]`: every delegation's
  first model call meets the fault k times (k = the bound - 1), then the run completes;
- `test_a_persistent_fault_ends_the_run_cleanly[fault-<name>-<role>]`: every call of one
  role meets the fault; the run waits `interrupted` at that step for a transport fault (an outage,
  resumable), and ends in `EXPECTED_STATUS[role]` for a content fault, with a provider-error reason;
- `test_a_provider_rejection_is_not_retried[fault-<code>]`: a 4xx is not retried.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from fakes.gemini_stub import (
    GeminiStub,
    StubReply,
    chat_model,
    delay,
    drop_connection,
    empty_reply,
    http_error,
    malformed_function_call,
    point_env_at_stub,
    raw_reply,
    text_reply,
)
from fakes.scripted import GeminiDispatch, role_of_system_prompt, role_policies
from fakes.workspaces import ASYNCIO_DOCS, delegations, manifest, write_docs
from harness.contract.specs import ROLES
from harness.contract.statuses import TERMINAL_RUN_STATUSES as TERMINAL_STATUSES
from harness.engines.llm import models as llm_models
from harness.engines.llm import retry as retry_mod
from harness.engines.llm.agent import DeepAgentRole
from harness.engines.llm.faults import (
    FAULT_KINDS,
    TRANSPORT_FAULTS,
    Fault,
    ProviderError,
    classify_exception,
    classify_reply,
)
from harness.engines.llm.invocation import Invocation
from harness.engines.llm.retry import Retrier, RetryPolicy
from harness.errors import ProviderUnavailable, UsageError
from harness.orchestrator.config import build_config
from harness.orchestrator.lifecycle import start_run
from harness.runtime.budget import Budget, DelegationBudget
from harness.runtime.context import AgentContext, open_context
from harness.runtime.interface import Brief
from harness.workspace.store import Workspace
from harness.workspace.validate import validate_workspace

QUESTION = "How do failures propagate in asyncio task groups and timeouts?"
MODEL = "google_genai:gemini-3.5-flash"
CORPUS = {name: ASYNCIO_DOCS[name] for name in ("taskgroup.md", "timeout.md")}

ATTEMPTS = 3  # the retry bound in these tests (RESEARCH_LLM_RETRY_ATTEMPTS / _EMPTY_ATTEMPTS)
CLIENT_TIMEOUT = 1.0  # seconds: the client's request timeout in the cases that inject a timeout
LOADED_TIMEOUT = 30.0  # ...and in every other case: a loaded machine must not add timeouts of its own
STUB_USAGE = 15  # tokens the stub reports for every successful reply (10 prompt + 5 output)


@dataclass(frozen=True)
class FaultCase:
    reply: Callable[[], StubReply]  # what the stub answers instead of the model's turn
    kind: str  # the retry.Fault kind it must be classified as
    detail: str  # text the trace and the run's reason must carry
    backoff: bool  # waits before the retry (transport faults) or re-asks at once (content faults)


# The faults a provider throws at the harness, as the stub injects them.
FAULTS: dict[str, FaultCase] = {
    "429": FaultCase(
        lambda: http_error(429, "Quota exceeded", retry_delay=7),
        "rate_limit",
        "429 RESOURCE_EXHAUSTED: Quota exceeded",
        True,
    ),
    "500": FaultCase(
        lambda: http_error(500, "backend exploded"), "server_error", "500 INTERNAL: backend exploded", True
    ),
    "503": FaultCase(
        lambda: http_error(503, "model overloaded"), "server_error", "503 UNAVAILABLE: model overloaded", True
    ),
    "timeout": FaultCase(lambda: delay(5.0), "timeout", "timeout: ReadTimeout", True),
    "dropped-connection": FaultCase(drop_connection, "connection", "connection failed: RemoteProtocolError", True),
    "invalid-json": FaultCase(
        lambda: raw_reply("<html>bad gateway</html>"), "invalid_response", "invalid response: JSONDecodeError", True
    ),
    "empty": FaultCase(empty_reply, "empty_reply", "empty reply: no text and no tool call", False),
    "empty-blocked": FaultCase(lambda: empty_reply(block_reason="SAFETY"), "empty_reply", "blocked: SAFETY", False),
    "empty-no-parts": FaultCase(
        lambda: empty_reply("no_parts"),
        "empty_reply",
        "empty reply: no text and no tool call (finish_reason STOP)",
        False,
    ),
    "malformed-function-call": FaultCase(
        malformed_function_call, "malformed_function_call", "MALFORMED_FUNCTION_CALL", False
    ),
}

# 4xx answers no retry can fix: one attempt, then the step fails.
REJECTED: dict[str, str] = {
    "400": "400 INVALID_ARGUMENT",
    "401": "401 UNAUTHENTICATED",
    "403": "403 PERMISSION_DENIED",
    "404": "404 NOT_FOUND",
}

# How a run ends when one role's provider never recovers from a content fault (a transport fault, an outage,
# leaves every role's run `interrupted` instead).
EXPECTED_STATUS = {
    "planner": "failed",
    "researcher": "needs_human",
    "analyst": "failed",
    "writer": "failed",
    "reviewer": "completed",
}  # a Reviewer that cannot run leaves the verdict to the deterministic checks

# (fault, times) — every delegation's first call meets the fault `times` times (the most the bound lets
# recover from), then succeeds.
RECOVER_CASES = [(name, ATTEMPTS - 1) for name in FAULTS]
# (fault, role) — every call of `role` meets the fault: each fault on one role, and 503 on every role.
_ROTATION = ["analyst", "researcher", "writer", "planner", "reviewer"]
PERSIST_CASES = [(name, _ROTATION[i % len(_ROTATION)]) for i, name in enumerate(FAULTS)] + [
    ("503", role) for role in ROLES if role != _ROTATION[list(FAULTS).index("503") % len(_ROTATION)]
]


# ---- the stub, with faults injected in front of the scripted roles ------------------------------------


class FaultInjector:
    """A GeminiStub responder: the fault for the first `times` calls of each delegation of `roles`
    (every call when `times` is None), the scripted role's answer otherwise."""

    def __init__(self, fault: Callable[[], StubReply], roles: tuple[str, ...] = ROLES, times: int | None = 1):
        self.dispatch = GeminiDispatch(role_policies(n_research=2))
        self.fault, self.roles, self.times = fault, roles, times
        self.injected: Counter = Counter()  # (role, brief) -> faults sent
        self.requests: Counter = Counter()  # role -> requests answered (faults included)
        self._lock = threading.Lock()

    def __call__(self, req) -> StubReply:
        role = role_of_system_prompt(req.system_instruction)
        key = (role, (req.texts("user") or [""])[0])
        with self._lock:
            self.requests[role] += 1
            if role in self.roles and (self.times is None or self.injected[key] < self.times):
                self.injected[key] += 1
                return self.fault()
        return self.dispatch(req)

    def faults_for(self, role: str) -> int:
        return sum(n for (r, _), n in self.injected.items() if r == role)


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return write_docs(tmp_path / "corpus", CORPUS)


@pytest.fixture
def waits(monkeypatch, request) -> list[float]:
    """Backoff waits, recorded instead of slept; the retry bound set to ATTEMPTS; the client's timeout short
    only where the case injects a timeout."""
    recorded: list[float] = []
    monkeypatch.setattr(retry_mod, "backoff_sleep", recorded.append)
    monkeypatch.setenv("RESEARCH_LLM_RETRY_ATTEMPTS", str(ATTEMPTS))
    monkeypatch.setenv("RESEARCH_LLM_RETRY_EMPTY_ATTEMPTS", str(ATTEMPTS))
    params = getattr(request.node, "callspec", None)
    injects_timeout = params is not None and params.params.get("name") == "timeout"
    monkeypatch.setattr(llm_models, "DEFAULT_REQUEST_TIMEOUT", CLIENT_TIMEOUT if injects_timeout else LOADED_TIMEOUT)
    return recorded


def run_with(injector: FaultInjector, tmp_path: Path, corpus: Path, monkeypatch, **kw):
    with GeminiStub(responder=injector) as stub:
        point_env_at_stub(monkeypatch, stub)
        cfg = build_config(
            QUESTION, corpus=str(corpus), runs_dir=str(tmp_path / "runs"), engine="llm", model=MODEL, yes=True, **kw
        )
        result = start_run(cfg)  # no models=: resolve_model builds the real client, pointed at the stub
        requests = stub.generate_requests
        errors = stub.errors
    assert not errors, errors
    return result, requests


def fault_lines(event: dict, kind: str | None = None) -> list[str]:
    return [e for e in event["errors"] if e.startswith("provider fault on ") and (kind is None or f"({kind})" in e)]


def assert_budget_within_limits(run: Path) -> dict:
    budget = manifest(run)["budget"]
    for dim, limit in budget["limits"].items():
        assert limit is None or budget["spent"][dim] <= limit, dim
    for role, b in budget["roles"].items():
        for dim, limit in b["limits"].items():
            assert limit is None or b["spent"][dim] <= limit, (role, dim)
    return budget


def assert_every_attempt_charged(run: Path, requests: list, injector: FaultInjector) -> None:
    """Each HTTP request to the provider is one charged llm call: the client never retried on its own."""
    budget = assert_budget_within_limits(run)
    events = delegations(run)
    assert budget["spent"]["llm_calls"] == len(requests) == sum(e["llm_calls"] for e in events)
    for role in ROLES:
        assert budget["roles"][role]["spent"]["llm_calls"] == injector.requests[role], role
        assert sum(e["llm_calls"] for e in events if e["agent"] == role) == injector.requests[role], role
    assert budget["spent"]["tokens"] == sum(e["tokens"] for e in events)


# ---- 1. a fault is retried with backoff, and the run completes ----------------------------------------


@pytest.mark.parametrize("name, times", RECOVER_CASES, ids=[f"fault-{n}-x{t}" for n, t in RECOVER_CASES])
def test_a_fault_is_retried_then_the_run_completes(tmp_path, corpus, monkeypatch, waits, name, times):
    case = FAULTS[name]
    injector = FaultInjector(case.reply, times=times)
    result, requests = run_with(injector, tmp_path, corpus, monkeypatch)
    run = result.run_dir

    assert (result.status, result.reason) == ("completed", None)
    assert validate_workspace(run) == []
    assert_every_attempt_charged(run, requests, injector)

    events = delegations(run)
    assert len(events) == 6  # planner, two research branches, analyst, writer, reviewer
    for e in events:
        lines = fault_lines(e, case.kind)
        assert e["stop_reason"] == "completed", e
        if name == "timeout":  # a slow machine may add a genuine timeout of its own
            assert len(lines) >= times and e["retries"] >= times
        else:
            assert len(lines) == times == e["retries"] and len(e["errors"]) == times, e["errors"]
        assert all(case.detail in line and "retrying in" in line for line in lines)
        assert e["llm_calls"] >= times + 1 and e["tokens"] > 0  # a role that writes its output in one call ends there
    n_faults = sum(injector.injected.values())
    assert n_faults == 6 * times
    ok = len(requests) - n_faults
    assert manifest(run)["budget"]["spent"]["tokens"] > STUB_USAGE * ok  # failed attempts cost tokens too

    # backoff: exponential with jitter for transport faults (429 raised to the server's 7 s hint); none for content faults
    if name != "timeout":
        assert len(waits) == n_faults
    for e in events:
        for line in fault_lines(e, case.kind):
            retry, wait = retry_wait(line)
            if not case.backoff:
                assert wait == 0
            elif name == "429":
                assert wait == 7
            else:
                assert 0.5 * 2 ** (retry - 1) - 0.005 <= wait <= 2 ** (retry - 1) + 0.005, line


def retry_wait(line: str) -> tuple[int, float]:
    """(attempt number, wait before the next attempt) from a trace fault line."""
    m = re.search(r"attempt (\d+)/\d+ .*; retrying in (\d+\.\d+)s$", line)
    assert m, line
    return int(m.group(1)), float(m.group(2))


# ---- 2. a fault that never clears ends the run in a defined status, with the reason ---------------------


@pytest.mark.parametrize("name, role", PERSIST_CASES, ids=[f"fault-{n}-{r}" for n, r in PERSIST_CASES])
def test_a_persistent_fault_ends_the_run_cleanly(tmp_path, corpus, monkeypatch, waits, name, role):
    case = FAULTS[name]
    injector = FaultInjector(case.reply, roles=(role,), times=None)
    result, requests = run_with(injector, tmp_path, corpus, monkeypatch)
    run = result.run_dir

    outage = case.kind in TRANSPORT_FAULTS  # the provider is down: the run waits at the step, resumable
    assert result.status == ("interrupted" if outage else EXPECTED_STATUS[role])
    assert (result.status in TERMINAL_STATUSES) != outage
    m = manifest(run)
    assert (m["status"], m["status_reason"]) == (result.status, result.reason)
    assert validate_workspace(run) == []
    assert_every_attempt_charged(run, requests, injector)
    if outage:
        assert f"provider error after {ATTEMPTS} attempts: " in result.reason and case.detail in result.reason
        assert result.reason.startswith("research stopped: Q1: provider error" if role == "researcher" else role)
        assert not (run / "final-report.md").exists()
    elif role == "reviewer":  # the checks' verdict stands in; the review says who wrote it
        review = json.loads((run / "reviews/review-1.json").read_text())
        assert review["reviewed_by"]["role"] == "harness" and review["verdict"] == "pass"
        assert (run / "final-report.md").exists()
    else:
        assert f"provider error after {ATTEMPTS} attempts: " in result.reason and case.detail in result.reason
        assert (
            f"{role}: provider error" in result.reason
            if role != "researcher"
            else result.reason.startswith("critical research branch failed (Q1: provider error")
        )
        assert not (run / "final-report.md").exists()

    failing = delegations(run, role)
    assert failing and len(failing) == (2 if role == "researcher" else 1)
    for e in failing:
        assert e["stop_reason"] == ("interrupted" if outage else "failed") and e["outputs"] == []
        assert e["llm_calls"] == ATTEMPTS and e["retries"] == ATTEMPTS - 1
        lines = fault_lines(e, case.kind)
        assert len(lines) == ATTEMPTS and lines[-1].endswith("giving up")
        assert e["errors"][-1].startswith(f"provider error after {ATTEMPTS} attempts: ")
    assert injector.requests[role] == ATTEMPTS * len(failing)
    # roles after the failing one never ran
    later = ROLES[ROLES.index(role) + 1 :]
    assert not [e for e in delegations(run) if e["agent"] in later]
    if role == "reviewer" and not outage:
        assert (
            f"provider error after {ATTEMPTS} attempts: " in failing[0]["errors"][-1]
            and case.detail in failing[0]["errors"][-1]
        )


# ---- 3. a rejection (4xx) is not retried -----------------------------------------------------------------


@pytest.mark.parametrize("code", list(REJECTED), ids=[f"fault-{c}" for c in REJECTED])
def test_a_provider_rejection_is_not_retried(tmp_path, corpus, monkeypatch, waits, code):
    injector = FaultInjector(lambda: http_error(int(code)), roles=("analyst",), times=None)
    result, requests = run_with(injector, tmp_path, corpus, monkeypatch)
    run = result.run_dir

    assert result.status == "failed"
    assert result.reason.startswith(f"analyst: provider error after 1 attempt: {REJECTED[code]}")
    assert result.reason.endswith("(not retryable)")
    (analyst,) = delegations(run, "analyst")
    assert analyst["llm_calls"] == 1 and analyst["retries"] == 0 and injector.requests["analyst"] == 1
    assert waits == []
    assert validate_workspace(run) == []
    assert_every_attempt_charged(run, requests, injector)


# ---- 4. the edges of the retry loop -------------------------------------------------------------------


def test_an_empty_final_reply_after_the_outputs_landed_is_accepted_not_retried(tmp_path, corpus, monkeypatch, waits):
    """Gemini often ends a turn with nothing to say once the work is written: that is not a fault."""

    class EmptyAfterWrite(FaultInjector):
        def __call__(self, req):
            role = role_of_system_prompt(req.system_instruction)
            wrote = any(r.get("name") == "write_file" for r in req.function_responses)
            with self._lock:
                self.requests[role] += 1
            return empty_reply() if wrote else self.dispatch(req)

    injector = EmptyAfterWrite(empty_reply)
    result, requests = run_with(injector, tmp_path, corpus, monkeypatch)
    assert result.status == "completed"
    assert all(e["retries"] == 0 and e["errors"] == [] for e in delegations(result.run_dir))
    assert waits == []
    assert_every_attempt_charged(result.run_dir, requests, injector)


def test_the_budget_running_out_during_retries_ends_budget_exhausted_within_the_limit(
    tmp_path, corpus, monkeypatch, waits
):
    monkeypatch.setenv("RESEARCH_LLM_RETRY_ATTEMPTS", "50")
    injector = FaultInjector(FAULTS["503"].reply, roles=("analyst",), times=None)
    result, requests = run_with(injector, tmp_path, corpus, monkeypatch, budget={"llm_calls": 12})
    run = result.run_dir
    assert result.status == "budget_exhausted" and "llm_calls" in result.reason
    budget = assert_budget_within_limits(run)
    assert budget["spent"]["llm_calls"] == len(requests) <= 12
    (analyst,) = delegations(run, "analyst")
    assert analyst["stop_reason"] == "budget_exhausted" and fault_lines(analyst, "server_error")
    assert validate_workspace(run) == []


def _ctx(ws: Workspace, spec, *, deadline: float | None = None, run_limits: dict | None = None) -> AgentContext:
    brief = Brief(role=spec.role, task="Plan.", outputs=("plan.json",))
    budget = DelegationBudget(Budget(run_limits or {}, {spec.role: {}}), spec.role, spec.limits, deadline)
    return open_context(ws, spec, brief, engine="llm", model=MODEL, run_id=ws.run_id, budget=budget)


def test_a_backoff_that_would_pass_the_time_limit_gives_up_at_once(tmp_path, specs):
    import time as _time

    ws = Workspace.create(tmp_path / "runs", QUESTION)
    slept: list[float] = []
    with GeminiStub(replies=[http_error(503), text_reply("never")]) as stub:
        role = DeepAgentRole(
            specs["planner"],
            chat_model(stub),
            retry=RetryPolicy(base_delay=3600, max_delay=3600, jitter=0),
            sleep=slept.append,
        )
        ctx = _ctx(ws, specs["planner"], deadline=_time.monotonic() + 600)
        with pytest.raises(ProviderUnavailable) as exc:  # an outage: the run waits at this step for a resume
            role.run(Brief(role="planner", task="Plan.", outputs=("plan.json",)), ctx)
        assert len(stub.generate_requests) == 1
    assert "would pass the time limit" in str(exc.value)
    assert str(exc.value).startswith("provider error after 1 attempt: 503 UNAVAILABLE")
    assert slept == [] and ctx.budget.llm_calls == 1 and ctx.provider_retries == 0
    assert any("giving up" in e for e in ctx.provider_errors)


def test_async_model_calls_are_retried_and_charged_too(tmp_path, specs):
    """Under ainvoke the middleware's async hooks run: same retries, same charges."""
    ws = Workspace.create(tmp_path / "runs", QUESTION)
    slept: list[float] = []

    async def asleep(s):
        slept.append(s)

    replies = [http_error(429), malformed_function_call(), text_reply("BLOCKED: nothing to plan")]
    with GeminiStub(replies=replies) as stub:
        role = DeepAgentRole(specs["planner"], chat_model(stub), retry=RetryPolicy(jitter=0))
        ctx = _ctx(ws, specs["planner"])
        agent = role.build(ctx)
        retrier = role.new_retrier(ctx)
        retrier.asleep = asleep
        out = asyncio.run(agent.ainvoke({"messages": [HumanMessage("Plan.")]}, context=Invocation(ctx, retrier)))
        assert len(stub.generate_requests) == 3
    assert out["messages"][-1].text.startswith("BLOCKED:")
    assert slept == [1.0, 0.0] and ctx.budget.llm_calls == 3 and ctx.provider_retries == 2
    assert retrier.kinds == ["rate_limit", "malformed_function_call"]


def test_resolve_model_turns_the_client_retries_off_and_sets_a_timeout(monkeypatch):
    with GeminiStub(replies=[http_error(503), text_reply("second")]) as stub:
        point_env_at_stub(monkeypatch, stub)
        model = llm_models.resolve_model(MODEL)
        assert model.max_retries == 1 and model.timeout == llm_models.DEFAULT_REQUEST_TIMEOUT
        with pytest.raises(Exception) as info:
            model.invoke("hi")
        assert classify_exception(info.value).kind == "server_error"
        assert len(stub.generate_requests) == 1  # the client made one attempt; retrying is the harness's job
        assert llm_models.resolve_model(MODEL, max_retries=4).max_retries == 4  # an explicit choice wins


# ---- 5. the policy and the classifier, without a run -------------------------------------------------------


def test_backoff_is_exponential_capped_and_jittered():
    policy = RetryPolicy(base_delay=1.0, max_delay=10.0, multiplier=2.0, jitter=0.5)
    rng = random.Random(7)
    for retry, full in [(1, 1), (2, 2), (3, 4), (4, 8), (5, 10), (9, 10)]:
        waits = [policy.delay(retry, rng=rng) for _ in range(200)]
        assert all(full * 0.5 <= w <= full for w in waits)
        assert len(set(waits)) > 100  # jittered, not a fixed wait
    no_jitter = RetryPolicy(base_delay=0.5, max_delay=30, jitter=0)
    assert [no_jitter.delay(n) for n in range(1, 6)] == [0.5, 1.0, 2.0, 4.0, 8.0]
    hinted = Fault("rate_limit", "429", retry_after=7)
    assert no_jitter.delay(1, hinted) == 7 and RetryPolicy(max_delay=5, jitter=0).delay(1, hinted) == 5
    content = Fault("empty_reply", "empty")
    assert no_jitter.delay(3, content) == 0 and RetryPolicy(backoff_empty=True, jitter=0).delay(2, content) == 2
    assert RetryPolicy(attempts=5, empty_attempts=2).bound(content) == 2
    assert RetryPolicy(attempts=5, empty_attempts=2).bound(hinted) == 5


def test_the_policy_comes_from_the_environment_and_bad_values_are_named():
    env = {
        "RESEARCH_LLM_RETRY_ATTEMPTS": "7",
        "RESEARCH_LLM_RETRY_BASE_DELAY": "0.25",
        "RESEARCH_LLM_RETRY_JITTER": "0",
    }
    assert RetryPolicy.from_env(env) == RetryPolicy(attempts=7, base_delay=0.25, jitter=0)
    with pytest.raises(UsageError, match="RESEARCH_LLM_RETRY_ATTEMPTS='many'"):
        RetryPolicy.from_env({"RESEARCH_LLM_RETRY_ATTEMPTS": "many"})
    with pytest.raises(UsageError, match="attempts must be an integer >= 1"):
        RetryPolicy.from_env({"RESEARCH_LLM_RETRY_ATTEMPTS": "0"})
    with pytest.raises(UsageError, match="jitter must be between 0 and 1"):
        RetryPolicy(jitter=2)


@pytest.mark.parametrize("name", list(FAULTS), ids=[f"fault-{n}" for n in FAULTS])
def test_each_fault_from_the_real_client_is_classified(name):
    case = FAULTS[name]
    assert case.kind in FAULT_KINDS
    with GeminiStub(replies=[case.reply()]) as stub:
        model = chat_model(stub, timeout=CLIENT_TIMEOUT)
        try:
            fault = classify_reply(model.invoke("hi"))
        except Exception as exc:  # noqa: BLE001 - what the client raises is what is classified
            fault = classify_exception(exc)
    assert fault is not None and fault.kind == case.kind and case.detail in fault.detail
    if name == "429":
        assert fault.retry_after == 7


def test_the_harness_own_stops_and_unknown_errors_are_never_retried():
    from harness.errors import BudgetExhausted
    from harness.runtime.budget import DelegationTimeout
    from harness.runtime.files import WriteRetriesExhausted

    for exc in (
        BudgetExhausted("run budget"),
        DelegationTimeout("late"),
        WriteRetriesExhausted("4 refused"),
        KeyError("bug"),
        RuntimeError("bug"),
    ):
        assert classify_exception(exc) is None
        retrier = Retrier(RetryPolicy(), sleep=lambda s: pytest.fail("slept"))
        with pytest.raises(type(exc)):
            retrier.call(lambda exc=exc: (_ for _ in ()).throw(exc))
        assert retrier.attempts == 1 and retrier.faults == []
    assert classify_reply(AIMessage("fine")) is None
    assert classify_reply(AIMessage("", tool_calls=[{"name": "ls", "args": {}, "id": "1"}])) is None
    with pytest.raises(ProviderError, match=r"provider error after 2 attempts: empty reply"):
        Retrier(RetryPolicy(empty_attempts=2)).call(lambda: AIMessage(""))
    assert Retrier(RetryPolicy()).call(lambda: AIMessage(""), accept_empty=True).text == ""


def test_provider_retries_and_faults_are_counted_apart_from_refused_writes(tmp_path, specs):
    """AgentContext.provider_retries / provider_errors, never the refused-write counters of its file door."""
    from harness.engines.llm.retry import record_faults

    ctx = _ctx(Workspace.create(tmp_path / "runs", QUESTION), specs["planner"])
    retrier = Retrier(RetryPolicy(jitter=0), ctx, sleep=lambda s: None)
    replies = iter([AIMessage(""), AIMessage("ok")])
    assert retrier.call(lambda: next(replies)).text == "ok"
    record_faults(ctx, retrier.faults)
    assert (ctx.files.retries, ctx.files.errors, ctx.provider_retries, len(ctx.provider_errors)) == (0, [], 1, 1)


def test_a_bad_retry_setting_is_refused_before_any_work(tmp_path, corpus, monkeypatch):
    monkeypatch.setenv("GOOGLE_API_KEY", "test-key")
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", "http://127.0.0.1:9")  # never the real API, whatever happens
    monkeypatch.setenv("RESEARCH_LLM_RETRY_JITTER", "lots")
    cfg = build_config(
        QUESTION, corpus=str(corpus), runs_dir=str(tmp_path / "runs"), engine="llm", model=MODEL, yes=True
    )
    with pytest.raises(UsageError, match="RESEARCH_LLM_RETRY_JITTER='lots'"):
        start_run(cfg)
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())
