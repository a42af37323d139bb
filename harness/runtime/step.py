"""What the services of one step are built from: the run's shared services and the step's own doors."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from harness.contract.layout import PLAN
from harness.contract.specs import AgentSpec
from harness.errors import PermissionRefused
from harness.runtime.budget import DelegationBudget
from harness.runtime.files import GuardedFiles
from harness.runtime.interface import Brief
from harness.workspace.store import Workspace

if TYPE_CHECKING:
    from harness.sources.mcp import McpSources
    from harness.sources.research_tools import ResearchTools
    from harness.sources.web import WebPolicy, WebTools


@dataclass(frozen=True)
class RunServices:
    """What the run holds that services are built from (None: the run has none)."""

    corpus: ResearchTools | None = None
    web: WebTools | None = None
    mcp: McpSources | None = None  # the run's MCP servers (research.yaml mcp:)


@dataclass(frozen=True)
class ServiceSetup:
    """What a service factory is handed for one step. The workspace is the harness's own, for what the harness
    reads on the agent's behalf (a question's cards, a draft's checks); the agent never sees it."""

    spec: AgentSpec
    brief: Brief
    files: GuardedFiles
    budget: DelegationBudget
    workspace: Workspace
    run: RunServices
    identity: dict[str, Any]  # {"role", "engine", "model"}: who produced what a service writes
    run_id: str
    notes: list[str]  # what the harness did for the agent (traced with the delegation)

    @property
    def role(self) -> str:
        return self.spec.role

    def plan(self) -> dict[str, Any]:
        """plan.json, read through the role's own permission; {} before there is one."""
        return self.files.read_json(PLAN) if self.files.exists(PLAN) else {}

    def question(self, plan: dict[str, Any] | None = None) -> dict[str, Any] | None:
        """This step's question in `plan` (default: plan.json as it is now), or None."""
        if not self.brief.question_id:
            return None
        questions = (self.plan() if plan is None else plan).get("questions", [])
        return next((q for q in questions if isinstance(q, dict) and q.get("id") == self.brief.question_id), None)

    def refuse_unless_allowed(self, kind: str) -> None:
        """Refuse, before anything is spent, a `corpus` search the plan does not allow for this question."""
        question = self.question()
        allowed = question.get("allowed_sources") if question else None
        if allowed is not None and kind not in allowed:
            raise PermissionRefused(
                f"the plan allows {', '.join(allowed) or 'no'} sources for {self.brief.question_id}, not {kind}; "
                "nothing was spent"
            )

    def web_policy(self) -> WebPolicy:
        """The question's domain policy: its allowed domains (none listed: the open web), minus its blocked ones; and
        the sites the plan marks official (`primary_domains` of any of its questions: a site is official for the
        whole run, so a page two branches fetch has one kind whichever registered it first)."""
        from harness.sources.web import WebPolicy

        plan = self.plan()
        q = self.question(plan) or {}
        official = (
            d
            for other in plan.get("questions", [])
            if isinstance(other, dict)
            for d in other.get("primary_domains") or ()
        )
        return WebPolicy(
            tuple(q.get("allowed_domains") or ()), tuple(q.get("blocked_domains") or ()), tuple(dict.fromkeys(official))
        )
