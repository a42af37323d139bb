"""Budgets for LLM calls, tokens, dollars, searches and wall time: per run, per role and per delegation.

Every call is checked *before* it is made and refused if it would go over any limit,
so limits are never exceeded. The check holds what it let through (`reserve`) until the
call is settled with what it actually cost (`settle`), so calls made at the same time by
parallel research branches can never pass the same check together. What was spent is kept
in run.json, so a resumed run continues from where it stopped rather than starting with a
fresh allowance.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from harness.contract.statuses import BUDGET_DIMENSIONS as DIMENSIONS
from harness.contract.statuses import COUNTED_DIMENSIONS, USD, WALL_SECONDS, BudgetDimension
from harness.errors import BudgetExhausted, UsageError

Amounts = dict[BudgetDimension, float]  # an amount of some dimensions: held, spent or a limit

DEFAULT_RUN_LIMITS: dict[str, float] = {"llm_calls": 400, "tokens": 4_000_000, "searches": 200, "wall_seconds": 3600.0}


def _over(spent: float, amount: float, limit: float | None) -> bool:
    return limit is not None and spent + amount > limit


class Budget:
    """Run- and role-level limits with a persisted spend; thread-safe."""

    def __init__(
        self,
        limits: dict[str, Any],
        role_limits: dict[str, dict[str, Any]],
        spent: dict[str, Any] | None = None,
        role_spent: dict[str, dict[str, Any]] | None = None,
        persist: Callable[[Budget], None] | None = None,
    ):
        self.limits: dict[BudgetDimension, float | None] = {d: limits.get(d) for d in DIMENSIONS}
        self.role_limits: dict[str, dict[BudgetDimension, float | None]] = {
            r: {d: v.get(d) for d in DIMENSIONS} for r, v in role_limits.items()
        }
        self.spent: Amounts = {d: (spent or {}).get(d) or 0 for d in DIMENSIONS}
        self.role_spent: dict[str, Amounts] = {
            r: {d: (role_spent or {}).get(r, {}).get(d) or 0 for d in DIMENSIONS} for r in self.role_limits
        }
        self.held: Amounts = {d: 0 for d in DIMENSIONS}  # reserved by calls under way, not yet settled
        self.role_held: dict[str, Amounts] = {}
        self._persist = persist or (lambda _b: None)
        self._lock = threading.Lock()
        self._clock_started = time.monotonic()
        for dim, value in self.limits.items():
            if value is not None and value < 0:
                raise UsageError(f"budget: {dim} must not be negative")

    # wall time is charged continuously: elapsed time since this process started working on the run
    def _wall(self) -> float:
        return self.spent["wall_seconds"] + (time.monotonic() - self._clock_started)

    def _check(self, role: str, dim: BudgetDimension, amount: float) -> None:
        """Under the lock: raise BudgetExhausted if `amount` more of `dim`, on top of what is spent and held, is
        over the run's or `role`'s limit."""
        spent = self._wall() if dim == "wall_seconds" else self.spent[dim] + self.held[dim]
        if _over(spent, amount, self.limits[dim]):
            raise BudgetExhausted(
                f"run budget for {dim} is exhausted ({_fmt(spent, dim)} of {_fmt(self.limits[dim], dim)} spent)", "run"
            )
        rl = self.role_limits.get(role, {})
        rs = self.role_spent.get(role, {}).get(dim, 0) + self.role_held.get(role, {}).get(dim, 0)
        if dim != "wall_seconds" and _over(rs, amount, rl.get(dim)):
            raise BudgetExhausted(
                f"{role} budget for {dim} is exhausted ({_fmt(rs, dim)} of {_fmt(rl.get(dim), dim)} spent)", "role"
            )

    def check(self, role: str, dim: BudgetDimension, amount: float = 1) -> None:
        """Raise BudgetExhausted if spending `amount` of `dim` for `role` would exceed a limit (holds nothing)."""
        with self._lock:
            self._check(role, dim, amount)

    def reserve(self, role: str, amounts: Amounts) -> Amounts:
        """Check every dimension at once and hold the amounts until `settle`: all or nothing, atomically."""
        with self._lock:
            for dim, amount in amounts.items():
                self._check(role, dim, amount)
            held = self.role_held.setdefault(role, {d: 0 for d in DIMENSIONS})
            for dim, amount in amounts.items():
                self.held[dim] += amount
                held[dim] += amount
        return dict(amounts)

    def settle(self, role: str, held: Amounts, spent: Amounts) -> None:
        """Release what a call held and record what it spent (may be nothing), with one persist."""
        with self._lock:
            for dim, amount in held.items():
                self.held[dim] -= amount
                self.role_held.setdefault(role, {d: 0 for d in DIMENSIONS})[dim] -= amount
            for dim, amount in spent.items():
                self.spent[dim] += amount
                self.role_spent.setdefault(role, {d: 0 for d in DIMENSIONS})[dim] += amount
        if spent:
            self._persist(self)

    def check_time(self) -> None:
        self.check("harness", "wall_seconds", 0)

    def seconds_left(self) -> float | None:
        """Wall time until the run's time limit (None: no limit)."""
        limit = self.limits.get("wall_seconds")
        return None if limit is None else limit - self._wall()

    def snapshot(self) -> dict[str, Any]:
        """The run.json `budget` object, with wall time accumulated up to now (dollars to a millionth)."""
        with self._lock:
            spent: Amounts = dict(self.spent)
            spent["wall_seconds"] = round(self._wall(), 3)
            spent[USD] = round(spent[USD], 6)
            return {
                "limits": dict(self.limits),
                "spent": spent,
                "roles": {
                    r: {
                        "limits": dict(self.role_limits[r]),
                        "spent": {
                            d: _rounded(d, self.role_spent.get(r, {}).get(d, 0))
                            for d in DIMENSIONS
                            if d != WALL_SECONDS
                        },
                    }
                    for r in self.role_limits
                },
            }


def _rounded(dim: BudgetDimension, value: float) -> float:
    return round(value, 6) if dim == USD else value


def _fmt(v: float | None, dim: str = "") -> str:
    if v is None:
        return "∞"
    if dim == USD:
        return f"${v:.4f}"
    return f"{v:.1f}" if isinstance(v, float) and not float(v).is_integer() else str(int(v))


class DelegationBudget:
    """One step's budget: the per-delegation limits from its agent spec, layered on the run budget (tool calls
    of one step may run in parallel, so its own limits are reserved the same way), and what the step's model
    calls and searches spent."""

    def __init__(self, budget: Budget, role: str, limits: dict[str, Any], deadline: float | None):
        self.budget = budget
        self.role = role
        self.limits: dict[BudgetDimension, float | None] = {d: limits.get(d) for d in COUNTED_DIMENSIONS}
        self.spent: Amounts = {d: 0 for d in COUNTED_DIMENSIONS}
        self.held: Amounts = {d: 0 for d in COUNTED_DIMENSIONS}
        self.deadline = deadline  # time.monotonic() value, or None
        self.thinking_tokens = 0  # of the tokens spent, what the model spent thinking (when the provider reports it)
        self.cached_tokens = 0  # of the tokens spent, input the provider read from its prompt cache
        self.unpriced_calls = 0  # model calls whose price is unknown: their dollars are not in spent["usd"]
        self._lock = threading.Lock()

    def _check(self, dim: BudgetDimension, amount: float) -> None:
        if _over(self.spent[dim] + self.held[dim], amount, self.limits.get(dim)):
            raise BudgetExhausted(
                f"{self.role} step budget for {dim} is exhausted ({_fmt(self.spent[dim] + self.held[dim], dim)} of "
                f"{_fmt(self.limits[dim], dim)})",
                "delegation",
            )

    def check(self, dim: BudgetDimension, amount: float = 1) -> None:
        self.check_deadline()
        with self._lock:
            self._check(dim, amount)
        self.budget.check(self.role, dim, amount)

    def reserve(self, amounts: Amounts) -> Amounts:
        """Check this step's, its role's and the run's limits for all `amounts` and hold them until `settle`."""
        self.check_deadline()
        with self._lock:
            for dim, amount in amounts.items():
                self._check(dim, amount)
            self.budget.reserve(self.role, amounts)  # raises (holding nothing) when the run or role is over
            for dim, amount in amounts.items():
                self.held[dim] += amount
        return dict(amounts)

    def settle(self, held: Amounts, spent: Amounts) -> None:
        with self._lock:
            for dim, amount in held.items():
                self.held[dim] -= amount
            for dim, amount in spent.items():
                self.spent[dim] += amount
        self.budget.settle(self.role, held, spent)

    def left(self, dim: BudgetDimension) -> float | None:
        """How much of `dim` this step may still spend: the least of what its own, its role's and the run's
        limits leave (None: no limit at all)."""
        budget = self.budget
        with budget._lock:
            lefts = [
                limit - spent
                for limit, spent in (
                    (self.limits.get(dim), self.spent.get(dim, 0) + self.held.get(dim, 0)),
                    (
                        budget.role_limits.get(self.role, {}).get(dim),
                        budget.role_spent.get(self.role, {}).get(dim, 0)
                        + budget.role_held.get(self.role, {}).get(dim, 0),
                    ),
                    (budget.limits.get(dim), budget.spent.get(dim, 0) + budget.held.get(dim, 0)),
                )
                if limit is not None
            ]
        return max(0, min(lefts)) if lefts else None

    def check_deadline(self) -> None:
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise DelegationTimeout(f"{self.role} ran past its time limit")
        self.budget.check_time()

    def seconds_left(self) -> float | None:
        """Wall time until this step's deadline or the run's time limit, whichever comes first (None: no limit)."""
        lefts = [] if self.deadline is None else [self.deadline - time.monotonic()]
        if (run := self.budget.seconds_left()) is not None:
            lefts.append(run)
        return min(lefts) if lefts else None

    # ---- what one step's calls spend ----------------------------------------------------------

    @property
    def llm_calls(self) -> int:
        return int(self.spent["llm_calls"])

    @property
    def tokens(self) -> int:
        return int(self.spent["tokens"])

    @property
    def usd(self) -> float:
        return float(self.spent[USD])

    def before_llm_call(self, estimated_tokens: int, usd: float | None = None) -> Amounts:
        """Refuse a model call that could take any budget over its limit; otherwise hold its estimate (returned:
        hand it to `after_llm_call`, or to `release` when the call never happened). `usd`: the most the call can
        cost (its input and output allowance at the model's price); None when the price is unknown, which a
        dollar limit refuses, since it could not be held to it."""
        amounts: Amounts = {"llm_calls": 1, "tokens": estimated_tokens}
        if usd is not None:
            amounts[USD] = usd
        elif self.left(USD) is not None:
            raise BudgetExhausted(
                f"{self.role}: this model's price is unknown, so a dollar budget cannot hold it", "run"
            )
        return self.reserve(amounts)

    def after_llm_call(
        self,
        tokens: int,
        thinking: int = 0,
        held: Amounts | None = None,
        *,
        usd: float | None = None,
        cached: int = 0,
    ) -> None:
        """Charge one model call its tokens (`thinking`: of those, what the model spent thinking, and `cached`,
        what was read from the provider's prompt cache, shown apart) and its dollars (`usd`; None: price unknown,
        counted as an unpriced call)."""
        self.thinking_tokens += thinking
        self.cached_tokens += cached
        spent: Amounts = {"llm_calls": 1, "tokens": tokens}
        if usd is None:
            self.unpriced_calls += 1
        else:
            spent[USD] = usd
        self.settle(held or {}, spent)

    def release(self, held: Amounts) -> None:
        """Give back what a call that was never made held."""
        self.settle(held, {})

    def spend_search(self, run: Callable[[], Any]) -> Any:
        """One search (or web fetch): held before it runs, charged once it answered, given back if it failed."""
        held = self.reserve({"searches": 1})
        try:
            result = run()
        except BaseException:
            self.release(held)
            raise
        self.settle(held, {"searches": 1})
        return result

    def line(self) -> str:
        """What this step may still spend, in words: 'search 6 of 8; 21 model calls left'."""
        searches, calls = self.left("searches"), self.left("llm_calls")
        own = self.limits.get("searches")
        parts = []
        if own is not None:
            parts.append(f"search {self.spent['searches']} of {own}")
        if searches is not None and (own is None or searches < own - self.spent["searches"]):
            parts.append(f"{int(searches)} searches left")
        if calls is not None:
            parts.append(f"{int(calls)} model calls left")
        return "; ".join(parts)


class DelegationTimeout(Exception):
    """A delegation ran past its wall-time limit (checked before each call)."""
