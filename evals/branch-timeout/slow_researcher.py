"""A Researcher that runs out of time on one plan question, deterministically.

It wraps the offline Researcher and, for the question named in TIMEOUT_QUESTIONS, raises
the same DelegationTimeout the harness raises when a delegation runs past its wall-time
limit, without waiting for the clock. Every other question is researched normally.
"""

from harness.engines.offline.researcher import OfflineResearcher
from harness.runtime.budget import DelegationTimeout

TIMEOUT_QUESTIONS = {"Q2"}


class SlowResearcher(OfflineResearcher):
    def run(self, brief, ctx):
        if brief.question_id in TIMEOUT_QUESTIONS:
            raise DelegationTimeout(
                f"researcher ran past its time limit on {brief.question_id} (simulated by the eval)"
            )
        return super().run(brief, ctx)
