"""Agent specs: `agents/<role>.md` files whose YAML front matter is the contract and whose body is the prompt."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from harness.contract.formats import sha256_bytes
from harness.contract.policy import Policy
from harness.contract.resources import agents_dir
from harness.contract.schemas import validate
from harness.errors import UsageError

ROLES = ("planner", "researcher", "analyst", "writer", "reviewer")


@dataclass(frozen=True)
class AgentSpec:
    path: Path
    name: str
    role: str
    description: str
    reads: tuple[str, ...]
    writes: tuple[str, ...]
    tools: tuple[str, ...]
    output_schema: str
    prompt: str
    sha256: str
    model: str | None = None
    engine: str | None = None
    limits: dict[str, Any] = field(default_factory=dict)

    @property
    def policy(self) -> Policy:
        return Policy(self.role, self.reads, self.writes)


def _split_front_matter(text: str, where: str) -> tuple[str, str]:
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        raise UsageError(f"{where}: missing YAML front matter (the file must start with a '---' line)")
    for i in range(1, len(lines)):
        if lines[i].strip() == "---":
            return "".join(lines[1:i]), "".join(lines[i + 1 :])
    raise UsageError(f"{where}: front matter is not closed by a '---' line")


def load_spec(path: Path | str) -> AgentSpec:
    """Parse and validate one spec; any problem is a one-line UsageError naming the file and field."""
    path = Path(path)
    where = str(path)
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8")
    except FileNotFoundError:
        raise UsageError(f"{where}: agent spec not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{where}: cannot read agent spec ({exc})") from None
    front, body = _split_front_matter(text, where)
    try:
        meta = yaml.safe_load(front)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" line {mark.line + 2}" if mark else ""
        raise UsageError(f"{where}:{line} front matter is not valid YAML ({getattr(exc, 'problem', exc)})") from None
    if not isinstance(meta, dict):
        raise UsageError(f"{where}: front matter must be a YAML mapping")
    problems = validate(meta, "agent-spec.schema.json", where)
    if problems:
        p = problems[0]
        raise UsageError(f"{where}: front matter field {p.pointer}: {p.message} [{p.rule}]")
    if not body.strip():
        raise UsageError(f"{where}: the system prompt (the body after the front matter) is empty")
    return AgentSpec(
        path=path,
        name=meta["name"],
        role=meta["role"],
        description=meta["description"],
        reads=tuple(meta["reads"]),
        writes=tuple(meta["writes"]),
        tools=tuple(meta["tools"]),
        output_schema=meta["output_schema"],
        prompt=body.strip() + "\n",
        sha256=sha256_bytes(raw),
        model=meta.get("model"),
        engine=meta.get("engine"),
        limits=dict(meta.get("limits") or {}),
    )


def default_spec_path(role: str) -> Path:
    return agents_dir() / f"{role}.md"


def load_default_specs() -> dict[str, AgentSpec]:
    return {role: load_spec(default_spec_path(role)) for role in ROLES}
