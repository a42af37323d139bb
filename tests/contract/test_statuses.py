"""Each closed set in contract/statuses.py is the enum its schema stores, so a rename in one is caught."""

from __future__ import annotations

import pytest

from harness.contract import cards, claims, injection, statuses
from harness.contract.schemas import schema


def _run_props() -> dict:
    return schema("run.schema.json")["properties"]


def test_run_statuses_are_the_run_schema_enum():
    assert list(statuses.RUN_STATUSES) == _run_props()["status"]["enum"]


def test_branch_statuses_are_the_run_schema_branch_enum():
    branch = _run_props()["branches"]["additionalProperties"]["properties"]["status"]
    assert list(statuses.BRANCH_STATUSES) == branch["enum"]


def test_verdicts_are_the_review_schema_enum_in_strictness_order():
    assert list(statuses.VERDICTS) == schema("review.schema.json")["properties"]["verdict"]["enum"]
    assert statuses.strictest("pass", "revise") == "revise"
    assert statuses.strictest("needs_human", "revise", "pass") == "needs_human"
    assert statuses.strictest("pass") == "pass"


def test_answer_verdicts_are_the_schema_enum_that_reviews_and_metrics_store():
    enum = schema("common.schema.json")["$defs"]["answer_verdict"]["enum"]
    assert list(statuses.ANSWER_VERDICTS) == enum
    answers = schema("metrics.schema.json")["properties"]["answers"]["items"]["properties"]
    assert answers["verdict"]["$ref"] == "common.schema.json#/$defs/answer_verdict"
    review = schema("review.schema.json")["$defs"]["answer"]["properties"]
    assert review["verdict"]["$ref"] == "common.schema.json#/$defs/answer_verdict"


def test_budget_dimensions_are_the_run_schema_budget_keys():
    values = schema("run.schema.json")["$defs"]["budget_values"]["properties"]
    assert list(statuses.BUDGET_DIMENSIONS) == list(values)
    assert list(statuses.BUDGET_DIMENSIONS) == list(schema("config.schema.json")["$defs"]["limits"]["properties"])


def test_card_confidences_are_the_card_schema_enum():
    assert list(cards.CONFIDENCES) == schema("card.schema.json")["properties"]["confidence"]["enum"]
    assert (cards.HIGH, cards.MEDIUM, cards.LOW) == cards.CONFIDENCES


def test_claim_statuses_are_the_claims_schema_enum():
    enum = schema("claims.schema.json")["properties"]["claims"]["items"]["properties"]["status"]["enum"]
    assert list(claims.CLAIM_STATUSES) == enum


def test_claim_vintages_are_the_claims_schema_series_enum():
    series = schema("claims.schema.json")["properties"]["claims"]["items"]["properties"]["series"]
    assert list(claims.VINTAGES) == series["items"]["properties"]["vintage"]["enum"]
    assert (claims.CURRENT, claims.SUPERSEDED) == claims.VINTAGES


@pytest.mark.parametrize(
    "subset, whole",
    [
        (statuses.TERMINAL_RUN_STATUSES, statuses.RUN_STATUSES),
        (statuses.AWAITING_APPROVAL, statuses.RUN_STATUSES),
        (statuses.BRANCH_WITHOUT_EVIDENCE, statuses.BRANCH_STATUSES),
        (statuses.BRANCH_BROKEN, statuses.BRANCH_WITHOUT_EVIDENCE),
        (statuses.AGENT_STATUSES, statuses.OUTCOME_STATUSES),
        (statuses.OUTCOME_BROKEN, statuses.OUTCOME_STATUSES),
        (statuses.COUNTED_DIMENSIONS, statuses.BUDGET_DIMENSIONS),
        (claims.STATABLE, claims.USABLE),
        (statuses.ANSWER_GAPS, statuses.ANSWER_VERDICTS),
    ],
)
def test_named_sets_are_subsets_of_their_type(subset, whole):
    assert subset and set(subset) <= set(whole)


def test_branch_statuses_are_delegation_outcomes_a_branch_keeps():
    # A branch records how its Researcher's delegation ended, the resumable cuts aside (each its own flag).
    assert set(statuses.BRANCH_STATUSES) == set(statuses.OUTCOME_STATUSES) - set(statuses.OUTCOME_CUT)


def test_injection_rule_names_are_the_flag_reason_enum_and_the_metrics_keys():
    flag = schema("source.schema.json")["properties"]["flags"]["items"]["properties"]["reason"]
    assert list(injection.INJECTION_REASONS) == flag["enum"]
    by_reason = schema("metrics.schema.json")["properties"]["injection_flags"]["properties"]["by_reason"]
    assert list(injection.INJECTION_REASONS) == list(by_reason["properties"])
    assert list(injection.REASONS) == list(injection.INJECTION_REASONS), "each rule is described, in order"


def test_question_kinds_are_the_plan_schema_enum():
    kind = schema("plan.schema.json")["properties"]["questions"]["items"]["properties"]["kind"]
    assert list(statuses.QUESTION_KINDS) == kind["enum"]


def test_allowed_sources_are_the_plan_schema_pattern():
    from harness.contract import search

    item = schema("plan.schema.json")["properties"]["questions"]["items"]["properties"]["allowed_sources"]["items"]
    assert item["pattern"] == "^(" + "|".join(search.ALLOWED_SOURCES) + "|mcp:[a-z][a-z0-9_]{0,23})$"
