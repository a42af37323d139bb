"""What every door for another agent shares (the MCP server, the LangChain tool): its budgets and what it reads back.

An agent that calls the harness must not be able to start an unbounded run, and must get back
what a person auditing the run would read: the final report, the per-question answer verdicts
where the run's metrics carry them, the `research validate` result, and for any claim its
cards' verbatim quotes with their spans and each source's title and locator. Everything here
reads the run folder only (through `RunReader`), and an id an agent passes is checked against
its schema pattern before it names a file, so no argument reaches outside the run folder.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness.contract.citations import CARD_LINK
from harness.contract.layout import FINAL_REPORT, METRICS
from harness.contract.schemas import schema
from harness.contract.statuses import BUDGET_DIMENSIONS, USD, WALL_SECONDS
from harness.errors import UsageError
from harness.evidence.report import safe_title
from harness.runtime.budget import DEFAULT_RUN_LIMITS
from harness.workspace.reader import RunReader
from harness.workspace.validate import validate_workspace

_IDS = schema("common.schema.json")["$defs"]
CLAIM_ID = re.compile(_IDS["claim_id"]["pattern"])
CARD_ID = re.compile(_IDS["card_id"]["pattern"])
SOURCE_ID = re.compile(_IDS["source_id"]["pattern"])
ANSWER_KEY_PREFIX = "answer"  # metrics.json keys holding the answer check's verdicts and figures (answer_*)


class ArgumentError(UsageError):
    """A bad argument from an agent: one line that starts with the argument's name."""

    def __init__(self, argument: str, message: str):
        super().__init__(f"{argument}: {message}")
        self.argument = argument


def bounded_budget(budget: Mapping[str, Any] | None) -> dict[str, float | int]:
    """Every run limit set: what the agent asked for, the harness's default for the rest; never unbounded.

    A limit must be a positive number (an integer for counted dimensions); None or a missing
    dimension takes `DEFAULT_RUN_LIMITS`, so no agent can lift a limit by leaving it out (dollars, which have no
    default, stay unset unless asked for).
    """
    if budget is None:
        budget = {}
    if not isinstance(budget, Mapping):
        raise ArgumentError("budget", f"expected an object of limits ({', '.join(BUDGET_DIMENSIONS)})")
    out: dict[str, float | int] = {}
    for dim in budget:
        if dim not in BUDGET_DIMENSIONS:
            raise ArgumentError(f"budget.{dim}", f"not a budget (budgets: {', '.join(BUDGET_DIMENSIONS)})")
    for dim in BUDGET_DIMENSIONS:
        value = budget.get(dim)
        if value is None:
            if dim in DEFAULT_RUN_LIMITS:  # dollars have no default: the counted limits already bound the run
                out[dim] = DEFAULT_RUN_LIMITS[dim]
            continue
        counted = dim not in (WALL_SECONDS, USD)
        if isinstance(value, bool) or not isinstance(value, int | float) or (counted and value != int(value)):
            raise ArgumentError(f"budget.{dim}", f"expected {'an integer' if counted else 'a number'}, got {value!r}")
        if value <= 0:
            raise ArgumentError(f"budget.{dim}", f"must be more than 0 (a run is always bounded), got {value!r}")
        out[dim] = int(value) if counted else float(value)
    return out


def budget_left(run: dict[str, Any]) -> dict[str, Any]:
    """run.json's budget: the limits, what is spent and what is left in each dimension (None: no limit)."""
    budget = run.get("budget") or {}
    limits, spent = budget.get("limits") or {}, budget.get("spent") or {}
    left = {}
    for dim in BUDGET_DIMENSIONS:
        limit = limits.get(dim)
        left[dim] = None if limit is None else max(0, round(limit - (spent.get(dim) or 0), 3))
    return {"limits": limits, "spent": spent, "left": left}


def validation(run_dir: Path) -> dict[str, Any]:
    """`research validate` on the run folder: clean or not, and each problem on one line."""
    problems = validate_workspace(run_dir)
    return {"clean": not problems, "problems": [str(p) for p in problems]}


def answer_verdicts(reader: RunReader) -> dict[str, Any] | None:
    """The answer check's entries of metrics.json (keys `answer…`), or None where the run's metrics carry none."""
    metrics = reader.read_json(METRICS)
    if not isinstance(metrics, dict):
        return None
    found = {k: v for k, v in metrics.items() if k.startswith(ANSWER_KEY_PREFIX)}
    return found or None


def cited_claims(report: str) -> list[str]:
    """The claim ids the final report cites, in order of first citation."""
    seen: dict[str, None] = {}
    for claim_id, _card in CARD_LINK.findall(report):
        seen.setdefault(claim_id, None)
    return list(seen)


def report(run_dir: Path) -> dict[str, Any]:
    """The final report's Markdown, the claims it cites, the answer verdicts where they exist, the validation."""
    reader = RunReader(run_dir)
    run = reader.run()
    text = reader.read_text(FINAL_REPORT)
    if text is None:
        raise ArgumentError(
            "run_id", f"run {run_dir.name} is {run.get('status')}: it has no final report (yet); see research_status"
        )
    return {
        "run_id": run_dir.name,
        "question": run.get("question"),
        "status": run.get("status"),
        "report_markdown": text,
        "cited_claims": cited_claims(text),
        "answers": answer_verdicts(reader),
        "validation": validation(run_dir),
    }


def _source(reader: RunReader, source_id: Any) -> dict[str, Any] | None:
    if not isinstance(source_id, str) or not SOURCE_ID.fullmatch(source_id):
        return None
    record = reader.source(source_id)
    if record is None:
        return None
    return {
        "source_id": source_id,
        "title": safe_title(record),
        "url": record.get("url"),
        "path": None if record.get("url") else f"{record.get('corpus', '')}:{record.get('path', '')}".lstrip(":"),
        "kind": record.get("kind"),
        "sha256": record.get("sha256"),
        "flagged_sentences": len(record.get("flags") or []),
    }


def _card(reader: RunReader, card_id: Any, side: str) -> dict[str, Any]:
    card = reader.card(card_id) if isinstance(card_id, str) and CARD_ID.fullmatch(card_id) else None
    if card is None:
        return {"card_id": card_id, "side": side, "missing": True}
    return {
        "card_id": card_id,
        "side": side,
        "quote": card.get("quote"),
        "span": card.get("span"),
        "verbatim": reader.quote_check(card) is None,  # invariant 3, re-checked as `research validate` does
        "confidence": card.get("confidence"),
        "limitations": card.get("limitations") or [],
        "source": _source(reader, card.get("source_id")),
    }


def evidence(run_dir: Path, claim_id: str) -> dict[str, Any]:
    """A claim, each of its cards' verbatim quote with its span, and each card's source (title, URL or path)."""
    if not isinstance(claim_id, str) or not CLAIM_ID.fullmatch(claim_id):
        raise ArgumentError("claim_id", f"{claim_id!r} is not a claim id (C followed by a number, e.g. C1)")
    reader = RunReader(run_dir)
    claims = reader.claims()
    if claims is None:
        raise ArgumentError("run_id", f"run {run_dir.name} has no claims.json yet")
    claim = claims.get(claim_id)
    if claim is None:
        raise ArgumentError("claim_id", f"{claim_id}: no such claim in run {run_dir.name}'s claims.json")
    cards = [_card(reader, c, "supports") for c in claim.get("supporting_cards") or []]
    cards += [_card(reader, c, "contradicts") for c in claim.get("contradicting_cards") or []]
    return {
        "run_id": run_dir.name,
        "claim_id": claim_id,
        "statement": claim.get("statement"),
        "status": claim.get("status"),
        "question_id": claim.get("question_id"),
        "limitations": claim.get("limitations") or [],
        "cards": cards,
    }
