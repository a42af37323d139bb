"""A Writer whose first attempt cites a claim id that does not exist in claims.json.

It wraps the offline Writer. Its first write of drafts/draft-1.md adds a sentence citing
[@C99] (no such claim: the kind of citation a model invents). The workspace refuses that
write; like an LLM subagent that is handed the refusal, the Writer then writes the draft
without the invented sentence.
"""

from harness.engines.offline.writer import OfflineWriter
from harness.errors import ArtifactInvalid

INVENTED = "Cancelled jobs are kept in an audit log for 90 days so they can be restored [@C99]."


class InventedCitationWriter(OfflineWriter):
    def run(self, brief, ctx):
        draft = brief.outputs[0]
        if not draft.endswith("draft-1.md"):
            return super().run(brief, ctx)
        real_write = ctx.write
        attempts = []

        def write_with_invention(rel, content):
            if rel == draft and not attempts:
                attempts.append(rel)
                head, sep, tail = content.partition("\n## Limitations")
                content = head.rstrip("\n") + "\n\n" + INVENTED + "\n" + sep + tail
            return real_write(rel, content)

        ctx.write = write_with_invention
        try:
            return super().run(brief, ctx)
        except ArtifactInvalid as refusal:  # the refusal names the bad citation: write it again without it
            ctx.write = real_write
            result = super().run(brief, ctx)
            result.summary += f" (after a refused write: {refusal})"
            return result
        finally:
            ctx.write = real_write
