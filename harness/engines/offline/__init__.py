"""The offline engine: deterministic, extractive implementations of all five roles (no model, no network)."""

from collections.abc import Callable

from harness.contract.specs import AgentSpec
from harness.engines.offline.analyst import OfflineAnalyst
from harness.engines.offline.planner import OfflinePlanner
from harness.engines.offline.researcher import OfflineResearcher
from harness.engines.offline.reviewer import OfflineReviewer
from harness.engines.offline.writer import OfflineWriter
from harness.runtime.interface import Agent

OFFLINE_AGENTS: dict[str, Callable[[AgentSpec], Agent]] = {
    "planner": OfflinePlanner,
    "researcher": OfflineResearcher,
    "analyst": OfflineAnalyst,
    "writer": OfflineWriter,
    "reviewer": OfflineReviewer,
}
