"""What a model is shown of a long source: the passages that best match what it looks for, with their offsets.

Every model call resends the conversation, so a tool that returned whole pages would make each later
call pay for them again. `fetch_url` and `web_search` (for each page it fetched, in a share of its one
budget) show the title, the page's length and these excerpts; `read_source` pages through the rest. The
full snapshot stays stored, and quotes are located in it, never in an excerpt.

Passages are the corpus index's (`corpus.split_passages`, about 900 characters), scored against the
focus by the one tokenizer (`tokens.tokenize`) with an idf weight computed over the page's own
passages, so the page's rarest matching words count most.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from harness.sources.corpus import split_passages
from harness.sources.tokens import tokenize

EXCERPT_CHARS = 1800  # what fetch_url shows of a page, about 450 tokens
SEARCH_CHARS = 4000  # what web_search shows of all the pages it fetched together, about 1,000 tokens


@dataclass(frozen=True)
class Excerpt:
    start: int  # offsets in the snapshot
    end: int
    text: str
    score: float


def best_passages(text: str, focus: str, budget: int = EXCERPT_CHARS) -> list[Excerpt]:
    """The passages of `text` that best match `focus`, then those around the best one, then the page's
    opening, in the order they come in the page: at most `budget` characters in all (the best one cut to
    fit). With nothing matching, the page from its start."""
    spans = split_passages(text)
    if not spans:
        return []
    wanted = set(tokenize(focus))
    tokens = [tokenize(text[s:e]) for s, e in spans]
    df = Counter(t for toks in tokens for t in set(toks) if t in wanted)
    n = len(spans)
    scores = []
    for toks in tokens:
        tf = Counter(t for t in toks if t in wanted)
        scores.append(sum(math.log(1 + n / df[t]) * (1 + math.log(c)) for t, c in tf.items()))
    matching = [i for i in sorted(range(n), key=lambda i: (-scores[i], i)) if scores[i] > 0]
    # then the context around the best passage, then the page's opening (its lede, usually)
    around = [j for j in (matching[0] + 1, matching[0] - 1) if 0 <= j < n] if matching else []
    order = list(dict.fromkeys(matching + around + list(range(n))))
    chosen, used = [], 0
    for i in order:
        s, e = spans[i]
        if used and used + e - s > budget:
            continue
        e = min(e, s + budget - used)
        chosen.append(Excerpt(s, e, text[s:e], scores[i]))
        used += e - s
        if used >= budget:
            break
    return sorted(chosen, key=lambda x: x.start)
