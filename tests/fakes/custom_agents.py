"""Custom agents for tests, loaded with --agent ROLE=python:fakes.custom_agents:Class."""

from __future__ import annotations

from harness.engines.offline import OfflineWriter
from harness.runtime.interface import AgentResult


class UncitedWriter(OfflineWriter):
    """Writes the offline draft plus one uncited factual sentence, every time: never passes review."""

    def run(self, brief, ctx):
        result = OfflineWriter.run(self, brief, ctx)
        draft = brief.outputs[0]
        text = ctx.read_text(draft).replace(
            "## Limitations", "The fastest parser is always the best choice for every service.\n\n## Limitations"
        )
        ctx.write(draft, text)
        return result


class NoArgAgent:
    """An agent class whose constructor takes no arguments; writes nothing and reports blocked."""

    def run(self, brief, ctx):
        return AgentResult("blocked", "nothing to do", blocked_reason="custom agent found nothing")


class FailingResearcher:
    """Crashes on Q1 (critical in the offline plan); researches the other questions offline."""

    def __init__(self, spec=None):
        from harness.engines.offline import OfflineResearcher

        self.inner = OfflineResearcher(spec)

    def run(self, brief, ctx):
        if brief.question_id == "Q1":
            raise RuntimeError("the search backend is down")
        return self.inner.run(brief, ctx)


class SlowPlanner:
    """The offline planner, held until the file named by $SLOW_PLANNER_GATE exists (at most 120 s), so another
    process can try the same run however loaded the machine is; without the variable, a 3 s pause."""

    def __init__(self, spec=None):
        from harness.engines.offline import OfflinePlanner

        self.inner = OfflinePlanner(spec)

    def run(self, brief, ctx):
        import os
        import time
        from pathlib import Path

        gate = os.environ.get("SLOW_PLANNER_GATE")
        if not gate:
            time.sleep(3)
        else:
            deadline = time.monotonic() + 120
            while not Path(gate).exists() and time.monotonic() < deadline:
                time.sleep(0.05)
        return self.inner.run(brief, ctx)
