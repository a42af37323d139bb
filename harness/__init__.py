"""Research harness: five least-privilege subagents exchanging schema-validated files, with verified citations.

The public API, for running and auditing research from Python::

    import harness

    result = harness.run("How do asyncio.TaskGroup and gather differ?", corpus="python-docs")
    report = harness.open_run(result.run_dir)          # read-only, typed view of the run folder
    problems = harness.validate(result.run_dir)        # what `research validate` reports

- `run`, `resume`, `approve`, `validate`, `open_run`, `RunResult`, `RunReader`: `harness.surfaces.api`;
- `research_tool(...)`: verified research as one LangChain tool for a LangGraph or deepagents app
  (`harness.surfaces.research_tool`);
- the agent interface for your own roles: `Agent`, `Brief`, `AgentContext`, `AgentResult`
  (`harness.runtime`); pass an agent object as `harness.run(..., agents={"reviewer": MyReviewer()})`;
- `HarnessError` (every refusal, one line), `Problem` (one validation problem).

Names are imported on first use, so `import harness` stays cheap (the command line starts fast).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from harness.contract.version import __version__

_EXPORTS = {
    "run": "harness.surfaces.api",
    "resume": "harness.surfaces.api",
    "approve": "harness.surfaces.api",
    "validate": "harness.surfaces.api",
    "open_run": "harness.surfaces.api",
    "RunResult": "harness.surfaces.api",
    "RunReader": "harness.surfaces.api",
    "research_tool": "harness.surfaces.research_tool",
    "Agent": "harness.runtime.interface",
    "Brief": "harness.runtime.interface",
    "AgentResult": "harness.runtime.interface",
    "AgentContext": "harness.runtime.context",
    "HarnessError": "harness.errors",
    "Problem": "harness.errors",
}

__all__ = ["__version__", *_EXPORTS]

if TYPE_CHECKING:  # for type checkers and editors; at run time the names load lazily below
    from harness.errors import HarnessError as HarnessError
    from harness.errors import Problem as Problem
    from harness.runtime.context import AgentContext as AgentContext
    from harness.runtime.interface import Agent as Agent
    from harness.runtime.interface import AgentResult as AgentResult
    from harness.runtime.interface import Brief as Brief
    from harness.surfaces.api import RunReader as RunReader
    from harness.surfaces.api import RunResult as RunResult
    from harness.surfaces.api import approve as approve
    from harness.surfaces.api import open_run as open_run
    from harness.surfaces.api import resume as resume
    from harness.surfaces.api import run as run
    from harness.surfaces.api import validate as validate
    from harness.surfaces.research_tool import research_tool as research_tool


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'harness' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
