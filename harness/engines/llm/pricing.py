"""What a model call costs in US dollars, from the usage its provider reported.

Prices come from `genai-prices` (a maintained table, by provider and model, of input,
cached input, output and thinking prices, tiers included), read from the copy the
installed package bundles: nothing is fetched at run time. A `prices:` section in
research.yaml sets a model's price (USD per million tokens), over the table or where it
has none. A model neither knows is "price unknown" (`price_for` returns None): its calls
are counted as unpriced, never guessed, and a dollar budget is refused for it.

An `openai:` model at an endpoint other than OpenAI's own is priced as the provider that
endpoint belongs to (the table knows their API addresses: OpenRouter, Groq, Together, ...),
so a self-hosted server (vLLM, LM Studio, a local stub) is "price unknown" unless `prices:`
names it; other providers are priced by their own table whatever endpoint (a proxy) they use.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

from harness.errors import UsageError

PER = 1_000_000  # prices are per million tokens

# The LangChain provider (`init_chat_model`'s name) -> genai-prices' provider id. A provider not listed here is
# priced only through `prices:` (a local server such as ollama has no price to look up).
TABLE_PROVIDERS = {
    "google_genai": "google",
    "google_vertexai": "google",
    "openai": "openai",
    "azure_openai": "azure",
    "anthropic": "anthropic",
    "bedrock": "aws",
    "bedrock_converse": "aws",
    "groq": "groq",
    "mistralai": "mistral",
    "deepseek": "deepseek",
    "xai": "x-ai",
    "openrouter": "openrouter",
    "together": "together",
    "fireworks": "fireworks",
    "cohere": "cohere",
    "perplexity": "perplexity",
}
OPENAI_HOST = "api.openai.com"


@dataclass(frozen=True)
class CallUsage:
    """The tokens of one model call as its provider reported them. `input` includes `cached` (read from the
    provider's prompt cache) and `cache_write`; `output` includes `thinking`."""

    input: int = 0
    output: int = 0
    cached: int = 0
    cache_write: int = 0
    thinking: int = 0

    @classmethod
    def from_metadata(cls, usage: dict[str, Any] | None) -> CallUsage | None:
        """A LangChain `usage_metadata` (input/output tokens and their details), or None when there is none."""
        if not usage:
            return None
        inp, out = usage.get("input_token_details") or {}, usage.get("output_token_details") or {}
        return cls(
            input=int(usage.get("input_tokens") or 0),
            output=int(usage.get("output_tokens") or 0),
            cached=int(inp.get("cache_read") or 0),
            cache_write=int(inp.get("cache_creation") or 0),
            thinking=int(out.get("reasoning") or 0),
        )


class ModelPrice:
    """The price of one model: `cost(usage)` in USD."""

    def cost(self, usage: CallUsage) -> float:
        raise NotImplementedError

    def worst_case(self, input_tokens: int, output_tokens: int) -> float:
        """The most a call of `input_tokens` in and at most `output_tokens` out can cost: no input read from
        the cache, every output token at the output price (what a dollar budget holds before the call)."""
        return self.cost(CallUsage(input=input_tokens, output=output_tokens))


@dataclass(frozen=True)
class TablePrice(ModelPrice):
    """A price from the genai-prices table (tiers and cache prices as it has them)."""

    provider_id: str | None
    model_ref: str
    api_url: str | None = None  # an `openai:` model's endpoint, when it is not OpenAI's own

    def _calc(self, usage: CallUsage):
        from genai_prices import Usage, calc_price

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the table's own notes about keys it does not price
            table_usage = Usage(
                input_tokens=usage.input,
                cache_read_tokens=usage.cached,
                cache_write_tokens=usage.cache_write,
                output_tokens=usage.output,
            )
            if self.api_url is not None:
                return calc_price(table_usage, self.model_ref, provider_api_url=self.api_url)
            return calc_price(table_usage, self.model_ref, provider_id=self.provider_id)

    def cost(self, usage: CallUsage) -> float:
        return float(self._calc(usage).total_price)

    def known(self) -> bool:
        try:
            self._calc(CallUsage(input=1, output=1))
        except LookupError:
            return False
        return True


@dataclass(frozen=True)
class SetPrice(ModelPrice):
    """A price research.yaml sets: USD per million input, cached input, output and thinking tokens."""

    input: float
    output: float
    cached_input: float | None = None  # None: the input price
    thinking: float | None = None  # None: the output price

    def cost(self, usage: CallUsage) -> float:
        cached = min(usage.cached, usage.input)
        thinking = min(usage.thinking, usage.output)
        cached_price = self.input if self.cached_input is None else self.cached_input
        thinking_price = self.output if self.thinking is None else self.thinking
        return (
            (usage.input - cached) * self.input
            + cached * cached_price
            + (usage.output - thinking) * self.output
            + thinking * thinking_price
        ) / PER


def check_prices(section: Any, where: str = "research.yaml prices") -> dict[str, dict[str, float]]:
    """research.yaml's `prices:` ({"provider:name": {input, output, cached_input?, thinking?}}, USD per million
    tokens), as numbers; one-line UsageError naming the entry otherwise (config.schema.json checks it first)."""
    out: dict[str, dict[str, float]] = {}
    for spec, entry in (section or {}).items():
        if ":" not in spec or not isinstance(entry, dict) or not {"input", "output"} <= entry.keys():
            raise UsageError(f"{where}.{spec}: name a model as provider:name and give its input and output prices")
        out[spec] = {k: float(v) for k, v in entry.items()}
    return out


def price_for(
    model_spec: str | None, prices: dict[str, dict[str, float]] | None = None, endpoint: str | None = None
) -> ModelPrice | None:
    """The price of `model_spec` (provider:name): research.yaml's `prices` entry, else the table's, else None
    (price unknown). `endpoint`: where the model is called, when it is not its client's default."""
    if not model_spec:
        return None
    if prices and model_spec in prices:
        entry = prices[model_spec]
        return SetPrice(
            float(entry["input"]),
            float(entry["output"]),
            None if entry.get("cached_input") is None else float(entry["cached_input"]),
            None if entry.get("thinking") is None else float(entry["thinking"]),
        )
    provider, _, name = model_spec.partition(":")
    table_id = TABLE_PROVIDERS.get(provider)
    if table_id is None:
        return None
    api_url = None
    if provider == "openai" and endpoint:
        from urllib.parse import urlsplit

        if urlsplit(endpoint).hostname != OPENAI_HOST:
            api_url = endpoint
    price = TablePrice(None if api_url else table_id, name, api_url)
    return price if price.known() else None


def role_price(model_spec: str | None, base_url: str | None, prices: dict[str, dict[str, float]] | None):
    """The price of a role's model at the endpoint it will call (its own, else its client's variables)."""
    from harness.engines.llm.models import effective_base_url

    if not model_spec:
        return None
    provider = model_spec.partition(":")[0]
    endpoint = None
    if provider == "openai":
        endpoint, _source = effective_base_url(provider, base_url)
    return price_for(model_spec, prices, endpoint)
