"""A Planner that marks the second candidate of a comparison as optional (not critical).

It wraps the offline Planner, which marks every comparison question critical, and clears
the critical flag of the research questions in OPTIONAL_QUESTIONS: the team already runs
the first candidate, and the second is a nice-to-have alternative. A failed or timed-out
branch on an optional question leaves a partial report instead of stopping the run.
"""

from harness.engines.offline.planner import OfflinePlanner

OPTIONAL_QUESTIONS = {"Q2"}


class OptionalSecondPlanner(OfflinePlanner):
    def run(self, brief, ctx):
        result = super().run(brief, ctx)
        plan = ctx.read_json("plan.json")
        for q in plan["questions"]:
            if q["kind"] == "research" and q["id"] in OPTIONAL_QUESTIONS:
                q["critical"] = False
        ctx.write("plan.json", plan)
        return result
