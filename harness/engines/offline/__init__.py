"""The offline engine: deterministic, extractive implementations of all five roles (no model, no network)."""

from .analyst import OfflineAnalyst
from .planner import OfflinePlanner
from .researcher import OfflineResearcher
from .reviewer import OfflineReviewer
from .writer import OfflineWriter

OFFLINE_AGENTS = {
    "planner": OfflinePlanner,
    "researcher": OfflineResearcher,
    "analyst": OfflineAnalyst,
    "writer": OfflineWriter,
    "reviewer": OfflineReviewer,
}
