"""Budgets: checked before every call, held while it runs, never exceeded — not even by parallel branches."""

from __future__ import annotations

import threading
import time

import pytest

from harness.errors import BudgetExhausted
from harness.runtime.budget import Budget, DelegationBudget


def test_parallel_calls_can_never_pass_the_same_check_together():
    """Branches check, call (slowly), then settle: the check holds the call, so 16 threads get exactly 12 calls."""
    budget = Budget({"llm_calls": 12}, {"researcher": {}})
    allowed, refused = [], []
    start = threading.Barrier(16)

    def branch():
        step = DelegationBudget(budget, "researcher", {"llm_calls": 30}, None)
        start.wait()
        try:
            held = step.reserve({"llm_calls": 1})
        except BudgetExhausted as exc:
            refused.append(exc.scope)
            return
        time.sleep(0.01)  # the model call, while others check
        step.settle(held, {"llm_calls": 1})
        allowed.append(1)

    threads = [threading.Thread(target=branch) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(allowed) == 12 and refused == ["run"] * 4
    assert budget.spent["llm_calls"] == 12 and budget.held["llm_calls"] == 0


def test_scopes_name_whose_budget_ran_out_and_a_released_hold_is_given_back():
    budget = Budget({"searches": 10}, {"researcher": {"searches": 3}})
    step = DelegationBudget(budget, "researcher", {"searches": 2}, None)
    held = step.reserve({"searches": 1})
    step.settle(held, {"searches": 1})
    step.settle(step.reserve({"searches": 1}), {})  # a call that never happened gives its hold back
    assert step.spent["searches"] == 1 and step.left("searches") == 1
    step.settle(step.reserve({"searches": 1}), {"searches": 1})
    with pytest.raises(BudgetExhausted, match="researcher step budget for searches") as own:
        step.reserve({"searches": 1})
    assert own.value.scope == "delegation"
    other = DelegationBudget(budget, "researcher", {"searches": 5}, None)
    other.settle(other.reserve({"searches": 1}), {"searches": 1})
    with pytest.raises(BudgetExhausted, match="researcher budget for searches") as role:
        other.reserve({"searches": 1})
    assert role.value.scope == "role" and budget.spent["searches"] == 3


def test_an_all_or_nothing_reservation_holds_nothing_when_one_dimension_is_over():
    budget = Budget({"llm_calls": 5, "tokens": 100}, {"writer": {}})
    step = DelegationBudget(budget, "writer", {}, None)
    with pytest.raises(BudgetExhausted, match="tokens"):
        step.reserve({"llm_calls": 1, "tokens": 101})
    assert budget.held == {"llm_calls": 0, "tokens": 0, "searches": 0, "wall_seconds": 0, "usd": 0}
    assert step.left("llm_calls") == 5


def test_a_dollar_limit_holds_each_calls_worst_case_and_charges_what_it_cost():
    budget = Budget({"usd": 1.0}, {"writer": {}})
    step = DelegationBudget(budget, "writer", {}, None)
    held = step.before_llm_call(1000, usd=0.6)  # its input and whole output allowance at the model's price
    with pytest.raises(BudgetExhausted, match=r"usd is exhausted \(\$0.6000 of \$1.0000 spent\)"):
        step.before_llm_call(1000, usd=0.5)  # a second call at the same time could pass the limit
    step.after_llm_call(400, 0, held, usd=0.05, cached=300)
    assert budget.spent["usd"] == pytest.approx(0.05) and step.usd == pytest.approx(0.05)
    assert step.cached_tokens == 300 and step.unpriced_calls == 0
    step.after_llm_call(400, 0, step.before_llm_call(1000, usd=0.9), usd=0.1)  # 0.05 + 0.9 held fits
    assert budget.snapshot()["roles"]["writer"]["spent"]["usd"] == pytest.approx(0.15)


def test_an_unpriced_call_is_counted_apart_and_refused_under_a_dollar_limit():
    free = DelegationBudget(Budget({}, {"writer": {}}), "writer", {}, None)
    free.after_llm_call(100, 0, free.before_llm_call(500))
    assert free.unpriced_calls == 1 and free.usd == 0
    capped = DelegationBudget(Budget({"usd": 5.0}, {"writer": {}}), "writer", {}, None)
    with pytest.raises(BudgetExhausted, match="price is unknown"):
        capped.before_llm_call(500)
    assert capped.budget.held["llm_calls"] == 0
