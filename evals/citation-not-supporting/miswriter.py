"""A Writer that cites a claim for a sentence the claim does not support, in its first draft.

It wraps the offline Writer. In drafts/draft-1.md it adds, right after the first cited
sentence, a statement that none of the sources makes and that has nothing to do with the
claim, and cites that same claim for it: the way a careless writer attaches the nearest
citation to a new sentence. From draft 2 on (after a review) it writes the offline
Writer's draft unchanged.
"""

import re

from harness.engines.offline.writer import OfflineWriter

UNSUPPORTED = "Workers must be restarted after every deploy so that they load the new code"


class MisattributingWriter(OfflineWriter):
    def run(self, brief, ctx):
        result = super().run(brief, ctx)
        draft = brief.outputs[0]
        if draft.endswith("draft-1.md"):
            text = ctx.read_text(draft)
            m = re.search(r"^(?!\*)(.+?) \[@(C\d+)\]\.$", text, re.M)
            if m:
                text = text[: m.end()] + f"\n{UNSUPPORTED} [@{m.group(2)}]." + text[m.end() :]
                ctx.write(draft, text)
        return result
