"""Which engine, agent spec and model runs each role of a run: --agent over research.yaml's `agents` over each
spec's own, the chosen engine and model over each (`choose_roles`), agent objects handed in from Python, and each llm
role's endpoint (`set_base_urls`). Part of the run configuration (`config.py`), kept apart as one concern."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.contract.options import (
    ENGINES,
    RunOptions,
    flag_of,
)
from harness.contract.specs import ROLES, AgentSpec, default_spec_path, load_spec
from harness.engines.llm.models import DEFAULT_MODEL
from harness.errors import UsageError


@dataclass
class RoleChoice:
    role: str
    engine: str  # offline, llm or custom
    spec: AgentSpec
    model: str | None = None
    target: str | None = None  # python:module:Class for custom agents
    source: str = "default"  # where the choice came from, for run.json
    instance: Any = None  # a ready agent object handed in from Python (harness.run(agents={role: obj}))
    base_url: str | None = None  # the model's endpoint (None: where its client's own variables say)
    base_url_from: str = flag_of("model_base_url")  # the flag or field it came from, for one-line errors


def parse_agent_flags(values: list[str]) -> dict[str, str]:
    """--agent ROLE=VALUE (repeatable) → {role: value}."""
    out, flag = {}, flag_of("agents")
    for raw in values:
        role, sep, value = raw.partition("=")
        role = role.strip().lower()
        if not sep or not value.strip():
            raise UsageError(
                f"{flag} {raw}: expected ROLE=VALUE, e.g. writer=llm or writer=my_writer.md", field="agents"
            )
        if role not in ROLES:
            raise UsageError(f"{flag} {raw}: unknown role '{role}' (roles: {', '.join(ROLES)})", field="agents")
        out[role] = value.strip()
    return out


def _object_choice(role: str, agent: Any) -> RoleChoice:
    """A role run by an agent object handed in from Python (any object with `run(brief, ctx)`)."""
    if role not in ROLES:
        raise UsageError(f"agents: unknown role '{role}' (roles: {', '.join(ROLES)})")
    if not callable(getattr(agent, "run", None)):
        raise UsageError(f"agents: the {role} agent ({type(agent).__name__}) has no run(brief, ctx) method")
    cls = type(agent)
    return RoleChoice(
        role,
        "custom",
        load_spec(default_spec_path(role)),
        None,
        f"python:{cls.__module__}:{cls.__qualname__}",
        source="python",
        instance=agent,
    )


def _choose(
    role: str,
    value: str | None,
    default_engine: str | None,
    role_model: str | None,
    global_model: str | None,
    where: str,
) -> RoleChoice:
    spec = load_spec(default_spec_path(role))
    target = None
    engine: str | None = None
    if value in ENGINES:
        engine = value
    elif value and value.startswith("python:"):
        target, engine = value, "custom"
        if value.count(":") != 2 or not all(value.split(":")[1:]):
            raise UsageError(f"{where}: '{value}' must look like python:package.module:ClassName")
    elif value:
        spec = load_spec(Path(value))
        if spec.role != role:
            raise UsageError(f"{value}: front matter field /role is '{spec.role}', but it was given for role '{role}'")
    if engine is None:
        engine = default_engine or spec.engine
    model = role_model or spec.model or global_model
    if engine is None:  # the embedded default: offline unless a model or a Gemini key is available
        engine = "llm" if (model or os.environ.get("GOOGLE_API_KEY")) else "offline"
    if engine == "llm":
        model = model or DEFAULT_MODEL
    else:
        model = None
    return RoleChoice(role, engine, spec, model, target, source=where if value else "default")


def choose_roles(
    agent_flags: list[str], merged: RunOptions, file_cfg: dict[str, Any], agent_objects: dict[str, Any]
) -> dict[str, RoleChoice]:
    """Each role's engine, spec and model: --agent over research.yaml's agents, the engine and model over each."""
    flagged = parse_agent_flags(agent_flags)
    agent_values = {**file_cfg.get("agents", {}), **flagged}
    roles = {}
    for role in ROLES:
        where = flag_of("agents") if role in flagged else "research.yaml agents"
        try:
            roles[role] = _choose(
                role, agent_values.get(role), merged.engine, file_cfg.get("models", {}).get(role), merged.model, where
            )
        except UsageError as exc:
            raise UsageError(str(exc), field="agents" if role in flagged else None) from None
    for role, agent in agent_objects.items():
        roles[role] = _object_choice(role, agent)
    return roles


def set_base_urls(roles: dict[str, RoleChoice], flag: str | None, field: str | dict[str, str] | None) -> None:
    """Each llm role's endpoint: --model-base-url for every role, over research.yaml's `base_url` (one URL for
    every role, or one per role). Checked for form here; for an answer at preflight."""
    from harness.engines.llm.models import check_base_url

    per_role = field if isinstance(field, dict) else {r: field for r in roles} if field else {}
    if flag and not any(choice.engine == "llm" for choice in roles.values()):
        raise UsageError(
            f"{flag_of('model_base_url')} {flag}: no role of this run is on the llm engine, so none would use it",
            field="model_base_url",
        )
    for role, choice in roles.items():
        if choice.engine != "llm":
            continue
        if flag:
            try:
                where = flag_of("model_base_url")
                choice.base_url, choice.base_url_from = check_base_url(flag, where), where
            except UsageError as exc:
                raise UsageError(str(exc), field="model_base_url") from None
        elif per_role.get(role):
            where = "research.yaml base_url" + (f".{role}" if isinstance(field, dict) else "")
            choice.base_url, choice.base_url_from = check_base_url(per_role[role], where), where
