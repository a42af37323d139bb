"""The offline engine: deterministic, extractive implementations of all five roles (no model, no network)."""

from harness.engines.offline.analyst import OfflineAnalyst
from harness.engines.offline.planner import OfflinePlanner
from harness.engines.offline.researcher import OfflineResearcher
from harness.engines.offline.reviewer import OfflineReviewer
from harness.engines.offline.writer import OfflineWriter

OFFLINE_AGENTS = {
    "planner": OfflinePlanner,
    "researcher": OfflineResearcher,
    "analyst": OfflineAnalyst,
    "writer": OfflineWriter,
    "reviewer": OfflineReviewer,
}
