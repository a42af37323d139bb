"""Everything a run's nodes share that is not graph state: the workspace, agents, tools and budget.

Graph state holds only paths, ids, hashes and counters; the heavy, non-serializable
objects live here and are rebuilt from run.json when a run resumes. A LiveRun is a context
manager: leaving it closes what its sources hold open (the web's HTTP client).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from harness.orchestrator.config import RunConfig
from harness.runtime.budget import Budget
from harness.runtime.interface import Agent
from harness.sources.registry import SourceRegistry
from harness.sources.research_tools import ResearchTools
from harness.workspace.store import Workspace


@dataclass
class LiveRun:
    workspace: Workspace
    config: RunConfig
    agents: dict[str, Agent]
    budget: Budget
    registry: SourceRegistry
    tools: ResearchTools | None
    web: Any = None
    events: Callable[[dict[str, Any]], None] = lambda _e: None  # progress listener (CLI display)
    mcp: Any = None  # McpSources when research.yaml names MCP servers (harness/sources/mcp.py)
    started: float = field(default_factory=time.monotonic)

    @property
    def run_id(self) -> str:
        return self.workspace.run_id

    def emit(self, kind: str, **data: Any) -> None:
        self.events({"event": kind, **data})

    def close(self) -> None:
        """Close what the run's sources hold open: the web's HTTP client (the MCP servers are their hub owner's)."""
        if self.web is not None:
            self.web.close()

    def __enter__(self) -> LiveRun:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
