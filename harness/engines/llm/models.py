"""Chat models for the llm engine: LangChain provider strings, checked before any work starts.

A model is named `provider:name` (`google_genai:gemini-3.5-flash`, `openai:gpt-5-mini`,
`anthropic:claude-sonnet-4-6`, `ollama:qwen3`). `preflight` says in one line what to
install or set when the provider package or the key is missing; `resolve_model` builds
the model with `init_chat_model` and a bounded output length, so a call's cost can be
estimated before it is made.

The harness owns retries (`retry.py`): `resolve_model` turns the client's own retries off
(the Gemini client would otherwise make up to 6 attempts per call, unbudgeted and
untraced) and sets a request timeout, so a hung call becomes a `timeout` fault the
harness retries, budgets and records.
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from typing import Any

from harness.errors import UsageError

DEFAULT_MODEL = "google_genai:gemini-3.5-flash"

# Output tokens per call unless the caller sets their own bound: the budget guard
# reserves this much for every call, so a call can never overshoot the token budget.
DEFAULT_MAX_OUTPUT_TOKENS = 16384

# Seconds one model request may take before it counts as a timeout fault (then retried).
DEFAULT_REQUEST_TIMEOUT = 300.0


@dataclass(frozen=True)
class Provider:
    module: str  # import name of the LangChain integration
    package: str  # what to pip install
    keys: tuple[str, ...]  # any one of these env vars is enough; () when none is needed
    max_output_param: str  # init_chat_model keyword that bounds output length
    no_client_retries: tuple[tuple[str, Any], ...] = ()  # keyword(s) that turn the client's own retries off
    timeout_param: str | None = None  # init_chat_model keyword for the request timeout (seconds)


PROVIDERS: dict[str, Provider] = {
    # langchain-google-genai reads GOOGLE_API_KEY first, then GEMINI_API_KEY.
    # Its max_retries=1 means one attempt (0 would mean "the SDK's default", i.e. retries).
    "google_genai": Provider(
        "langchain_google_genai",
        "langchain-google-genai",
        ("GOOGLE_API_KEY", "GEMINI_API_KEY"),
        "max_output_tokens",
        (("max_retries", 1),),
        "timeout",
    ),
    "openai": Provider(
        "langchain_openai", "langchain-openai", ("OPENAI_API_KEY",), "max_tokens", (("max_retries", 0),), "timeout"
    ),
    "anthropic": Provider(
        "langchain_anthropic",
        "langchain-anthropic",
        ("ANTHROPIC_API_KEY",),
        "max_tokens",
        (("max_retries", 0),),
        "timeout",
    ),
    "ollama": Provider("langchain_ollama", "langchain-ollama", (), "num_predict"),
}


def parse_model_spec(model_spec: str) -> tuple[str, str]:
    """(provider, model name) of a `provider:name` string, or a one-line UsageError."""
    if not isinstance(model_spec, str) or ":" not in model_spec:
        raise UsageError(
            f"model {model_spec!r}: name a model as provider:name, e.g. {DEFAULT_MODEL} "
            f"(providers: {', '.join(PROVIDERS)})"
        )
    provider, name = (part.strip() for part in model_spec.split(":", 1))
    if not provider or not name:
        raise UsageError(f"model {model_spec!r}: name a model as provider:name, e.g. {DEFAULT_MODEL}")
    if provider not in PROVIDERS:
        raise UsageError(f"model {model_spec!r}: unknown provider {provider!r}; use one of {', '.join(PROVIDERS)}")
    return provider, name


def _vertex_enabled() -> bool:
    return os.environ.get("GOOGLE_GENAI_USE_VERTEXAI", "").strip().lower() in ("1", "true", "yes")


def preflight(model_spec: str) -> None:
    """Raise a one-line UsageError saying what to install or set if `model_spec` cannot work here."""
    from harness.engines.llm.retry import RetryPolicy

    provider_name, _ = parse_model_spec(model_spec)
    provider = PROVIDERS[provider_name]
    RetryPolicy.from_env()  # a bad RESEARCH_LLM_RETRY_* value is named now, before any work
    if importlib.util.find_spec(provider.module) is None:
        raise UsageError(
            f"model {model_spec}: the {provider_name} provider is not installed: pip install {provider.package}"
        )
    if not provider.keys or any(os.environ.get(k, "").strip() for k in provider.keys):
        return
    if provider_name == "google_genai" and _vertex_enabled():
        return  # Vertex AI authenticates with application default credentials
    keys = " or ".join(provider.keys)
    raise UsageError(f"model {model_spec}: set {keys} in the environment (no API key found)")


def resolve_model(model_spec: str, **kw: Any):
    """A LangChain chat model for `model_spec` (after `preflight`), with a bounded output length,
    the client's own retries off and a request timeout (any of them can be overridden by `kw`)."""
    from langchain.chat_models import init_chat_model

    preflight(model_spec)
    provider_name, name = parse_model_spec(model_spec)
    provider = PROVIDERS[provider_name]
    bounded = {"max_tokens", "max_output_tokens", "max_completion_tokens", "num_predict"}
    if not bounded & kw.keys():
        kw[provider.max_output_param] = DEFAULT_MAX_OUTPUT_TOKENS
    for key, value in provider.no_client_retries:
        if not {"max_retries", "retries"} & kw.keys():
            kw[key] = value
    if provider.timeout_param and not {"timeout", "request_timeout", "default_request_timeout"} & kw.keys():
        kw[provider.timeout_param] = DEFAULT_REQUEST_TIMEOUT
    try:
        return init_chat_model(name, model_provider=provider_name, **kw)
    except ImportError as exc:
        raise UsageError(
            f"model {model_spec}: the {provider_name} provider cannot be loaded ({exc}): pip install -U {provider.package}"
        ) from None
    except (ValueError, TypeError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise UsageError(f"model {model_spec}: cannot be configured ({first})") from None


def max_output_tokens(model: Any) -> int | None:
    """The output bound configured on a chat model, if any (used to estimate a call's cost)."""
    for attr in ("max_output_tokens", "max_tokens", "max_completion_tokens", "num_predict"):
        value = getattr(model, attr, None)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None
