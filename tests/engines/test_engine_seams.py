"""Every engine's `run` is the agent interface, typed: it takes the step's `AgentContext` and returns an
`AgentResult` whose status is one of `contract/statuses.py`'s agent statuses (issue 41 item 2)."""

from __future__ import annotations

import typing

import pytest

from harness.contract import statuses
from harness.engines.llm.agent import DeepAgentRole
from harness.engines.offline.analyst import OfflineAnalyst
from harness.engines.offline.planner import OfflinePlanner
from harness.engines.offline.researcher import OfflineResearcher
from harness.engines.offline.reviewer import OfflineReviewer
from harness.engines.offline.writer import OfflineWriter
from harness.runtime.context import AgentContext
from harness.runtime.interface import AgentResult, Brief

ENGINES = [OfflinePlanner, OfflineResearcher, OfflineAnalyst, OfflineWriter, OfflineReviewer, DeepAgentRole]


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.__name__)
def test_run_takes_the_agent_context_and_returns_an_agent_result(engine):
    hints = typing.get_type_hints(engine.run)
    assert hints["brief"] is Brief
    assert hints["ctx"] is AgentContext
    assert hints["return"] is AgentResult


def test_an_agent_result_status_is_an_agent_status():
    assert typing.get_type_hints(AgentResult)["status"] == statuses.AgentStatus
    assert statuses.AGENT_STATUSES == (statuses.COMPLETED, statuses.BLOCKED, statuses.FAILED)
