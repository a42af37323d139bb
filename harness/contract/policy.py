"""Who may read and write what in a workspace.

Each subagent role gets its globs from its agent spec (`reads:` / `writes:`); the
harness and the source tools have fixed policies here. The workspace API checks
every read and write against the acting policy.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.contract.globs import matches
from harness.contract.layout import FINAL_REPORT, METRICS, PLAN, README, VIEWER


@dataclass(frozen=True)
class Policy:
    role: str
    reads: tuple[str, ...]
    writes: tuple[str, ...]

    def may_read(self, rel: str) -> bool:
        return matches(rel, self.reads)

    def may_write(self, rel: str) -> bool:
        return matches(rel, self.writes)


# The harness writes the manifest-level files and records approvals in plan.json.
HARNESS = Policy(
    "harness",
    reads=("**",),
    writes=(PLAN, FINAL_REPORT, METRICS, VIEWER, README),
)

# Source tools (search, read_source, fetch_url) are the only writers of sources/:
# source ids and snapshots never come from a model.
TOOLS = Policy("tools", reads=("sources/**",), writes=("sources/*.json", "sources/*.txt"))

# A human acting through `research approve` (an edited plan goes through the same guards).
HUMAN = Policy("human", reads=("**",), writes=(PLAN,))
