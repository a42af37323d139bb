"""The `llm` engine: each role runs as a deepagents agent over the run workspace.

Import cost: this package imports deepagents/langchain, so import it only when a role
actually runs on the llm engine.
"""

from .agent import DeepAgentRole
from .models import DEFAULT_MODEL, preflight, resolve_model
from .retry import ProviderError, RetryPolicy

__all__ = ["DEFAULT_MODEL", "DeepAgentRole", "ProviderError", "RetryPolicy", "preflight", "resolve_model"]
