"""Building the agent object for each role from the run configuration."""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from harness.errors import UsageError
from harness.orchestrator.config import RoleChoice, RunConfig, role_prices
from harness.runtime.interface import Agent


def _load_custom(choice: RoleChoice) -> Agent:
    assert choice.target is not None  # a custom role names its python:module:Class (config._choose)
    _, module_name, class_name = choice.target.split(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise UsageError(f"--agent {choice.role}={choice.target}: cannot import {module_name} ({exc})") from None
    cls = getattr(module, class_name, None)
    if cls is None:
        raise UsageError(f"--agent {choice.role}={choice.target}: {module_name} has no {class_name}")
    try:
        takes_spec = len(inspect.signature(cls).parameters) > 0
    except (TypeError, ValueError):
        takes_spec = False
    agent = cls(choice.spec) if takes_spec else cls()
    if not callable(getattr(agent, "run", None)):
        raise UsageError(f"--agent {choice.role}={choice.target}: {class_name} has no run(brief, ctx) method")
    return agent


def preflight(cfg: RunConfig) -> None:
    """Fail before any work if an llm role cannot run (missing key, uninstalled provider)."""
    for choice in cfg.roles.values():
        if choice.engine == "llm":
            from harness.engines.llm.models import preflight as model_preflight

            assert choice.model is not None  # an llm role always names its model (config._choose)
            model_preflight(choice.model, choice.base_url, choice.base_url_from)


def build_agents(cfg: RunConfig, models: dict | None = None, mcp: Any = None) -> dict[str, Agent]:
    """One agent per role. `models` may map a role to a ready chat model (tests inject scripted models); `mcp`
    (the run's McpSources) gives the roles whose spec lists `mcp` the servers' tools."""
    agents: dict[str, Agent] = {}
    prices = role_prices(cfg)  # each llm role priced by the model the run names, whatever object answers
    for role, choice in cfg.roles.items():
        if choice.instance is not None:  # handed in from Python
            agents[role] = choice.instance
        elif choice.engine == "offline":
            from harness.engines.offline import OFFLINE_AGENTS

            agents[role] = OFFLINE_AGENTS[role](choice.spec)
        elif choice.engine == "llm":
            from harness.engines.llm.agent import DeepAgentRole

            model = (models or {}).get(role)
            if model is None:
                from harness.engines.llm.models import resolve_model

                assert choice.model is not None  # an llm role always names its model (config._choose)
                model = resolve_model(choice.model, choice.base_url)
            mcp_tools = mcp.tools() if mcp is not None and "mcp" in choice.spec.tools else ()
            agents[role] = DeepAgentRole(choice.spec, model, mcp_tools=mcp_tools, price=prices[role])
        else:
            agents[role] = _load_custom(choice)
    return agents
