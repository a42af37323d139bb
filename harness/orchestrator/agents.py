"""Building the agent object for each role from the run configuration."""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from harness.contract.options import flag_of
from harness.errors import UsageError
from harness.orchestrator.config import RunConfig, role_prices
from harness.orchestrator.role_choice import RoleChoice
from harness.runtime.interface import Agent


def _load_custom(choice: RoleChoice) -> Agent:
    assert choice.target is not None  # a custom role names its python:module:Class (role_choice._choose)
    _, module_name, class_name = choice.target.split(":")
    where = f"{flag_of('agents')} {choice.role}={choice.target}"
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise UsageError(f"{where}: cannot import {module_name} ({exc})", field="agents") from None
    cls: Any = getattr(module, class_name, None)
    if cls is None:
        raise UsageError(f"{where}: {module_name} has no {class_name}", field="agents")
    is_class = inspect.isclass(cls)  # os:system names a function, which would be called with the spec
    if not is_class:
        raise UsageError(f"{where}: {module_name}.{class_name} is not a class", field="agents")
    try:
        takes_spec = len(inspect.signature(cls).parameters) > 0
    except (TypeError, ValueError):
        takes_spec = False
    agent = cls(choice.spec) if takes_spec else cls()
    if not callable(getattr(agent, "run", None)):
        raise UsageError(f"{where}: {class_name} has no run(brief, ctx) method", field="agents")
    return agent


def preflight(cfg: RunConfig) -> None:
    """Fail before any work if an llm role cannot run (missing key, uninstalled provider)."""
    for choice in cfg.roles.values():
        if choice.engine == "llm":
            from harness.engines.llm.models import preflight as model_preflight

            assert choice.model is not None  # an llm role always names its model (role_choice._choose)
            model_preflight(choice.model, choice.base_url, choice.base_url_from)


def build_agents(cfg: RunConfig, models: dict | None = None, mcp: Any = None, corpus: Any = None) -> dict[str, Agent]:
    """One agent per role. `models` may map a role to a ready chat model (tests inject scripted models); `mcp`
    (the run's McpSources) gives the roles whose spec lists `mcp` the servers' tools; the offline Researcher is
    given the run's meaning model and the ranking profile of its `corpus` (by what the corpus's text is)."""
    agents: dict[str, Agent] = {}
    prices = role_prices(cfg)  # each llm role priced by the model the run names, whatever object answers
    for role, choice in cfg.roles.items():
        if choice.instance is not None:  # handed in from Python
            agents[role] = choice.instance
        elif choice.engine == "offline":
            from harness.engines.offline import OFFLINE_AGENTS
            from harness.engines.offline.profile import corpus_profile

            cls: Any = OFFLINE_AGENTS[role]
            if role == "researcher":
                agents[role] = cls(choice.spec, profile=corpus_profile(corpus), meaning=cfg.meaning)
            elif role == "analyst":
                agents[role] = cls(choice.spec, meaning=cfg.meaning)
            else:
                agents[role] = cls(choice.spec)
        elif choice.engine == "llm":
            from harness.engines.llm.agent import DeepAgentRole

            model = (models or {}).get(role)
            if model is None:
                from harness.engines.llm.models import resolve_model

                assert choice.model is not None  # an llm role always names its model (role_choice._choose)
                model = resolve_model(choice.model, choice.base_url)
            mcp_tools = mcp.tools() if mcp is not None and "mcp" in choice.spec.tools else ()
            agents[role] = DeepAgentRole(choice.spec, model, mcp_tools=mcp_tools, price=prices[role])
        else:
            agents[role] = _load_custom(choice)
    return agents
