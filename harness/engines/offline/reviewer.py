"""Offline Reviewer: the deterministic checks, written as a review bound to the draft's hash."""

from __future__ import annotations

from harness.contract.formats import sha256_bytes
from harness.contract.statuses import COMPLETED
from harness.evidence.checks import verdict_for
from harness.runtime.context import AgentContext
from harness.runtime.interface import AgentResult, Brief


class OfflineReviewer:
    def __init__(self, spec=None):
        self.spec = spec

    def run(self, brief: Brief, ctx: AgentContext) -> AgentResult:
        draft = brief.facts["draft"]
        defects = brief.facts.get("deterministic_defects")
        if defects is None:
            defects = ctx.services.check_draft(draft, brief.facts.get("branches"))
        review = {
            "draft": draft,
            "draft_sha256": sha256_bytes(ctx.read_text(draft).encode("utf-8")),
            "verdict": verdict_for(defects),
            "defects": defects,
            "reviewed_by": {"role": ctx.role, "engine": ctx.engine, "model": ctx.model},
        }
        ctx.write(brief.outputs[0], review)
        return AgentResult(COMPLETED, f"{review['verdict']} with {len(defects)} defect(s)")
