"""Dollars per model call: the genai-prices table by provider and model, research.yaml's prices over it, and
"price unknown" (never a guess) for a model neither knows."""

from __future__ import annotations

import pytest
from genai_prices import Usage, calc_price

from harness.engines.llm.pricing import CallUsage, SetPrice, TablePrice, check_prices, price_for, role_price
from harness.errors import UsageError


def _table(model: str, provider: str, **usage: int) -> float:
    return float(calc_price(Usage(**usage), model, provider_id=provider).total_price)


def test_a_known_model_is_priced_from_the_table_with_cached_input_cheaper():
    price = price_for("google_genai:gemini-2.5-flash")
    assert isinstance(price, TablePrice)
    usage = CallUsage(input=10_000, cached=6_000, output=500, thinking=200)
    assert price.cost(usage) == pytest.approx(
        _table("gemini-2.5-flash", "google", input_tokens=10_000, cache_read_tokens=6_000, output_tokens=500)
    )
    assert price.cost(usage) < price.cost(CallUsage(input=10_000, output=500))  # the cache is counted as cached
    assert price.worst_case(10_000, 500) == pytest.approx(price.cost(CallUsage(input=10_000, output=500)))


def test_usage_is_read_from_langchains_usage_metadata():
    usage = CallUsage.from_metadata(
        {
            "input_tokens": 900,
            "output_tokens": 120,
            "total_tokens": 1020,
            "input_token_details": {"cache_read": 600, "cache_creation": 100},
            "output_token_details": {"reasoning": 20},
        }
    )
    assert usage == CallUsage(input=900, output=120, cached=600, cache_write=100, thinking=20)
    assert CallUsage.from_metadata(None) is None and CallUsage.from_metadata({}) is None


@pytest.mark.parametrize(
    "spec",
    ["ollama:qwen3", "openai:no-such-model-anywhere", "scripted:fake", "google_genai:not-a-gemini"],
)
def test_a_model_the_table_does_not_know_is_price_unknown(spec):
    assert price_for(spec) is None


def test_an_openai_name_at_a_self_hosted_endpoint_is_not_priced_as_openai(monkeypatch):
    for name in ("OPENAI_BASE_URL", "OPENAI_API_BASE"):
        monkeypatch.delenv(name, raising=False)
    assert role_price("openai:gpt-4o-mini", None, {}) is not None  # OpenAI's own API
    assert role_price("openai:gpt-4o-mini", "https://api.openai.com/v1", {}) is not None
    assert role_price("openai:gpt-4o-mini", "http://127.0.0.1:8000/v1", {}) is None  # vLLM, LM Studio, a stub
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    assert role_price("openai:gpt-4o-mini", None, {}) is None  # the endpoint the client will call
    priced = role_price("openai:gpt-4o-mini", None, {"openai:gpt-4o-mini": {"input": 1, "output": 2}})
    assert priced == SetPrice(1.0, 2.0)


def test_prices_in_research_yaml_set_a_price_per_million_tokens_over_the_table():
    prices = {"google_genai:gemini-2.5-flash": {"input": 2, "cached_input": 0.5, "output": 10, "thinking": 20}}
    price = price_for("google_genai:gemini-2.5-flash", prices)
    cost = price.cost(CallUsage(input=1_000_000, cached=400_000, output=100_000, thinking=30_000))
    assert cost == pytest.approx(0.6 * 2 + 0.4 * 0.5 + 0.07 * 10 + 0.03 * 20)
    plain = price_for("ollama:qwen3", {"ollama:qwen3": {"input": 0, "output": 0}})
    assert plain.cost(CallUsage(input=5000, output=5000)) == 0  # a local model priced at nothing, not unknown


def test_a_prices_entry_must_name_a_model_as_provider_name_with_both_prices():
    with pytest.raises(UsageError, match=r"research.yaml prices.gpt-4o: name a model as provider:name"):
        check_prices({"gpt-4o": {"input": 1, "output": 1}})
    with pytest.raises(UsageError, match=r"research.yaml prices.openai:m: "):
        check_prices({"openai:m": {"input": 1}})
    assert check_prices({"openai:m": {"input": 1, "output": 2}}) == {"openai:m": {"input": 1.0, "output": 2.0}}
