"""Services come from the spec's `tools:` list through the registry, never from the role's name."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from fakes.workspaces import make_plan
from harness.errors import PermissionRefused
from harness.runtime import services
from harness.runtime.budget import Budget, DelegationBudget
from harness.runtime.context import open_context
from harness.runtime.interface import Brief
from harness.workspace.store import Workspace


@pytest.fixture
def ws(tmp_path: Path, specs) -> Workspace:
    ws = Workspace.create(tmp_path / "runs", "How does asyncio.TaskGroup handle failures?")
    ws.write("plan.json", make_plan(), specs["planner"].policy)
    return ws


def ctx_for(ws: Workspace, spec):
    budget = DelegationBudget(Budget({}, {spec.role: {}}), spec.role, {"searches": 2}, None)
    brief = Brief(spec.role, "do it", question_id="Q1")
    return open_context(ws, spec, brief, engine="offline", model=None, run_id=ws.run_id, budget=budget)


def test_a_registered_service_is_given_to_any_role_whose_spec_lists_it(ws, specs, monkeypatch):
    def lookup(setup: services.ServiceSetup):
        return lambda term: setup.budget.spend_search(lambda: f"{setup.role} looked up {term}")

    monkeypatch.setitem(services.SERVICES, "lookup", lookup)
    analyst = dataclasses.replace(specs["analyst"], tools=(*specs["analyst"].tools, "lookup"))
    ctx = ctx_for(ws, analyst)
    assert "lookup" in ctx.services and ctx.services.lookup("x") == "analyst looked up x"
    assert ctx.budget.spent["searches"] == 1  # spent through the step's budget like any search

    plain = ctx_for(ws, specs["analyst"])  # the same role without the tool in its spec: not given
    with pytest.raises(PermissionRefused, match="the lookup tool is not in this agent's spec"):
        plain.services.lookup("x")


def test_a_researcher_spec_without_search_gets_no_search(ws, specs):
    spec = dataclasses.replace(specs["researcher"], tools=("record_evidence", "read_file"))
    ctx = ctx_for(ws, spec)
    assert ctx.services.names() == ("record_evidence",)
    with pytest.raises(PermissionRefused, match="the search tool is not in this agent's spec"):
        ctx.services.search("TaskGroup")


def test_the_output_duty_follows_the_service_not_the_role(ws, specs):
    writer = dataclasses.replace(specs["writer"], tools=(*specs["writer"].tools, "record_evidence"))
    assert ctx_for(ws, writer).services.duty is services.OUTPUT_DUTIES["record_evidence"]
    assert ctx_for(ws, specs["writer"]).services.duty is None
