"""Chat models for the llm engine: any LangChain provider, any endpoint, checked before any work starts.

A model is named `provider:name` (`google_genai:gemini-3.5-flash`, `openai:gpt-5-mini`,
`anthropic:claude-sonnet-4-6`, `ollama:qwen3`, `azure_openai:my-deployment`, ...): any
provider `init_chat_model` accepts (its table, `langchain.chat_models.base`). The providers in
`PROVIDERS` have their key names, output bound, retry and timeout keywords here; any other
is built with the output bound only, and a missing integration package is named in one line.

`base_url` points a model at its endpoint: an OpenAI-compatible server (vLLM, Ollama's
`/v1`, LM Studio, OpenRouter) with `openai:NAME`, an Azure resource with `azure_openai`, a
proxy for any provider. With none given, the client reads its own variable
(`OPENAI_BASE_URL`, `AZURE_OPENAI_ENDPOINT`, ...) when the model is built, so a resumed run
uses the address the environment has then. `preflight` says in one line what to install or
set, and refuses an endpoint nothing answers at (TCP connect) before any work.

The harness owns retries (`retry.py`): `resolve_model` turns the client's own retries off
(the Gemini client would otherwise make up to 6 attempts per call, unbudgeted and
untraced) and sets a request timeout, so a hung call becomes a `timeout` fault the
harness retries, budgets and records.
"""

from __future__ import annotations

import importlib.util
import os
import socket
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from harness.errors import UsageError

DEFAULT_MODEL = "google_genai:gemini-3.5-flash"

# Output tokens per call unless the caller sets their own bound: the budget guard
# reserves this much for every call, so a call can never overshoot the token budget.
DEFAULT_MAX_OUTPUT_TOKENS = 16384

# Seconds one model request may take before it counts as a timeout fault (then retried).
DEFAULT_REQUEST_TIMEOUT = 300.0

# Seconds the preflight waits for an endpoint to accept a connection.
ENDPOINT_CONNECT_TIMEOUT = 3.0

# The API key an OpenAI-compatible local server gets when none is set (vLLM, Ollama, LM Studio accept any).
LOCAL_SERVER_KEY = "not-needed"


@dataclass(frozen=True)
class Provider:
    module: str  # import name of the LangChain integration
    package: str  # what to pip install
    keys: tuple[str, ...]  # any one of these env vars is enough; () when none is needed
    max_output_param: str = "max_tokens"  # init_chat_model keyword that bounds output length
    no_client_retries: tuple[tuple[str, Any], ...] = ()  # keyword(s) that turn the client's own retries off
    timeout_param: str | None = None  # init_chat_model keyword for the request timeout (seconds)
    base_url_param: str | None = "base_url"  # init_chat_model keyword for the endpoint
    base_url_env: tuple[str, ...] = ()  # the variables the client reads its endpoint from
    needs: tuple[str, ...] = ()  # variables that must all be set besides the key (Azure's endpoint and version)
    default_base_url: str | None = None  # where the client goes when nothing is set (a local server)


_OPENAI_LIKE = (("max_retries", 0),)

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
        base_url_env=("GOOGLE_GEMINI_BASE_URL",),
    ),
    "openai": Provider(
        "langchain_openai",
        "langchain-openai",
        ("OPENAI_API_KEY",),
        "max_tokens",
        _OPENAI_LIKE,
        "timeout",
        base_url_env=("OPENAI_BASE_URL", "OPENAI_API_BASE"),
    ),
    "azure_openai": Provider(
        "langchain_openai",
        "langchain-openai",
        ("AZURE_OPENAI_API_KEY", "AZURE_OPENAI_AD_TOKEN"),
        "max_tokens",
        _OPENAI_LIKE,
        "timeout",
        base_url_param="azure_endpoint",
        base_url_env=("AZURE_OPENAI_ENDPOINT",),
        needs=("AZURE_OPENAI_ENDPOINT", "OPENAI_API_VERSION"),
    ),
    "anthropic": Provider(
        "langchain_anthropic",
        "langchain-anthropic",
        ("ANTHROPIC_API_KEY",),
        "max_tokens",
        _OPENAI_LIKE,
        "timeout",
        base_url_env=("ANTHROPIC_BASE_URL",),
    ),
    "ollama": Provider(
        "langchain_ollama",
        "langchain-ollama",
        (),
        "num_predict",
        base_url_env=("OLLAMA_HOST",),
        default_base_url="http://127.0.0.1:11434",
    ),
}

# Hosted providers known by their key names only (their clients' other keywords are left at their defaults).
for _name, _keys in {
    "openrouter": ("OPENROUTER_API_KEY",),
    "groq": ("GROQ_API_KEY",),
    "mistralai": ("MISTRAL_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "xai": ("XAI_API_KEY",),
    "fireworks": ("FIREWORKS_API_KEY",),
    "together": ("TOGETHER_API_KEY",),
    "cohere": ("COHERE_API_KEY",),
    "perplexity": ("PPLX_API_KEY", "PERPLEXITY_API_KEY"),
}.items():
    PROVIDERS[_name] = Provider(f"langchain_{_name}", f"langchain-{_name}", _keys, base_url_param=None)


def langchain_providers() -> dict[str, str]:
    """Every provider `init_chat_model` accepts, with the module it imports (read from the installed langchain)."""
    try:
        from langchain.chat_models.base import _BUILTIN_PROVIDERS
    except ImportError:  # a langchain without the table: the providers we know
        return {name: p.module for name, p in PROVIDERS.items()}
    return {name: entry[0] for name, entry in _BUILTIN_PROVIDERS.items()}


def provider_of(name: str) -> Provider:
    """The provider's entry: ours, or one derived from langchain's table (package named after its module)."""
    if name in PROVIDERS:
        return PROVIDERS[name]
    module = langchain_providers()[name]
    return Provider(module, module.split(".")[0].replace("_", "-"), (), base_url_param=None)


def parse_model_spec(model_spec: str) -> tuple[str, str]:
    """(provider, model name) of a `provider:name` string, or a one-line UsageError."""
    if not isinstance(model_spec, str) or ":" not in model_spec:
        raise UsageError(
            f"model {model_spec!r}: name a model as provider:name, e.g. {DEFAULT_MODEL} "
            f"(providers: {', '.join(sorted(langchain_providers()))})"
        )
    provider, name = (part.strip() for part in model_spec.split(":", 1))
    if not provider or not name:
        raise UsageError(f"model {model_spec!r}: name a model as provider:name, e.g. {DEFAULT_MODEL}")
    if provider not in langchain_providers():
        raise UsageError(
            f"model {model_spec!r}: unknown provider {provider!r}; use one of {', '.join(sorted(langchain_providers()))} "
            "(an OpenAI-compatible server: openai:NAME with --model-base-url URL)"
        )
    return provider, name


def _vertex_enabled() -> bool:
    return os.environ.get("GOOGLE_GENAI_USE_VERTEXAI", "").strip().lower() in ("1", "true", "yes")


def _env(*names: str) -> str | None:
    return next((v for n in names if (v := os.environ.get(n, "").strip())), None)


def check_base_url(url: str, where: str) -> str:
    """A base URL as given, or a one-line UsageError naming `where` (the flag or the field) when it is unusable."""
    parts = urlsplit(url.strip()) if isinstance(url, str) else None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"{where} {url!r}: not an http(s) URL, e.g. http://127.0.0.1:8000/v1")
    if parts.username or parts.password:
        raise UsageError(f"{where}: put the key in the provider's variable, not in the URL")
    try:
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError:
        raise UsageError(f"{where} {url!r}: the port is not a number between 0 and 65535") from None
    return url.strip()


def check_reachable(url: str, where: str, timeout: float = ENDPOINT_CONNECT_TIMEOUT) -> None:
    """Refuse, in one line, an endpoint that accepts no connection (nothing listens, no such host)."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((parts.hostname, port), timeout=timeout):
            pass
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        raise UsageError(f"{where}: the model endpoint {url} is unreachable ({why})") from None


def effective_base_url(provider_name: str, base_url: str | None) -> tuple[str | None, str]:
    """(the endpoint a model will call, where that came from): the given one, the client's own variable, or
    the provider's local default; None for a hosted API the client knows by itself."""
    provider = provider_of(provider_name)
    if base_url:
        return base_url, "base URL"
    for name in provider.base_url_env:
        if value := _env(name):
            return value, name
    return provider.default_base_url, "default endpoint"


def preflight(model_spec: str, base_url: str | None = None, where: str = "--model-base-url") -> None:
    """Raise a one-line UsageError saying what to install or set if `model_spec` cannot work here: the package,
    the key, Azure's endpoint and version, an endpoint that is malformed or that nothing answers at."""
    from harness.engines.llm.retry import RetryPolicy

    provider_name, _ = parse_model_spec(model_spec)
    provider = provider_of(provider_name)
    RetryPolicy.from_env()  # a bad RESEARCH_LLM_RETRY_* value is named now, before any work
    if importlib.util.find_spec(provider.module.split(".")[0]) is None:
        raise UsageError(
            f"model {model_spec}: the {provider_name} provider is not installed: pip install {provider.package}"
        )
    if base_url is not None:
        check_base_url(base_url, where)
        if provider.base_url_param is None:
            raise UsageError(
                f"{where}: the {provider_name} provider takes no base URL here; "
                "use openai:NAME for an OpenAI-compatible server"
            )
    missing = [n for n in provider.needs if not _env(n) and not (base_url and n.endswith("_ENDPOINT"))]
    if missing:
        raise UsageError(f"model {model_spec}: set {' and '.join(missing)} in the environment")
    url, source = effective_base_url(provider_name, base_url)
    if url is not None:
        label = {"base URL": where, "default endpoint": f"model {model_spec}"}.get(
            source, f"{source} (for {model_spec})"
        )
        check_reachable(url, label)
    if not provider.keys or _env(*provider.keys):
        return
    if provider_name == "google_genai" and _vertex_enabled():
        return  # Vertex AI authenticates with application default credentials
    if provider_name == "openai" and url is not None:
        return  # a self-hosted OpenAI-compatible server: no key needed (one is sent if set)
    keys = " or ".join(provider.keys)
    raise UsageError(f"model {model_spec}: set {keys} in the environment (no API key found)")


def resolve_model(model_spec: str, base_url: str | None = None, **kw: Any):
    """A LangChain chat model for `model_spec` (after `preflight`) at `base_url` (else where its client's own
    variables say), with a bounded output length, the client's own retries off and a request timeout (any of
    them can be overridden by `kw`)."""
    from langchain.chat_models import init_chat_model

    preflight(model_spec, base_url)
    provider_name, name = parse_model_spec(model_spec)
    provider = provider_of(provider_name)
    bounded = {"max_tokens", "max_output_tokens", "max_completion_tokens", "num_predict"}
    if not bounded & kw.keys():
        kw[provider.max_output_param] = DEFAULT_MAX_OUTPUT_TOKENS
    for key, value in provider.no_client_retries:
        if not {"max_retries", "retries"} & kw.keys():
            kw[key] = value
    if provider.timeout_param and not {"timeout", "request_timeout", "default_request_timeout"} & kw.keys():
        kw[provider.timeout_param] = DEFAULT_REQUEST_TIMEOUT
    if base_url and provider.base_url_param:
        kw.setdefault(provider.base_url_param, base_url)
    if provider_name == "openai" and not _env(*provider.keys) and "api_key" not in kw:
        kw["api_key"] = LOCAL_SERVER_KEY  # preflight let it through: a self-hosted server that checks no key
    if provider_name == "azure_openai":
        kw.setdefault("azure_deployment", name)
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
