"""A Writer whose first draft states a fact without citing any claim.

It wraps the offline Writer. In drafts/draft-1.md it adds, under the Summary heading
(where the offline Writer states the answer), a plausible factual sentence with no citation (nothing in the corpus
says it). From draft 2 on (after a review) it writes the offline Writer's draft unchanged.
"""

import re

from harness.engines.offline.writer import OfflineWriter

UNCITED = "Workers restart themselves automatically after running 1000 jobs to release leaked memory."


class UncitedSentenceWriter(OfflineWriter):
    def run(self, brief, ctx):
        result = super().run(brief, ctx)
        draft = brief.outputs[0]
        if draft.endswith("draft-1.md"):
            text = ctx.read_text(draft)
            m = re.search(r"^## Summary\n\n", text, re.M)
            if m:
                ctx.write(draft, text[: m.end()] + UNCITED + "\n\n" + text[m.end() :])
        return result
