"""Several providers searched as one (`--search arxiv,openalex`): each asked the same query, their hits
interleaved by rank (the first provider's first hit, the second's first, …), a URL named twice kept once (as a
retracted work when either provider says it is retracted).

Each hit keeps its own provider and rank. The same paper found under two URLs (a DOI link and an arXiv page) is
merged later, when it is registered (`SourceRegistry.register`, by the work's keys). A provider that fails is
skipped while another answers; only when every one fails is the search a failure.
"""

from __future__ import annotations

from dataclasses import replace

from harness.sources.search.base import SearchFailed, SearchProvider, WebHit
from harness.sources.urls import normalize_url


class Combined:
    def __init__(self, providers: list[SearchProvider]):
        self.providers = providers
        self.name = ",".join(p.name for p in providers)

    def search(self, query: str, n: int) -> list[WebHit]:
        answers: list[list[WebHit]] = []
        failures: list[str] = []
        for provider in self.providers:
            try:
                answers.append(provider.search(query, n))
            except SearchFailed as exc:
                failures.append(str(exc))
        if failures and not answers:
            raise SearchFailed("; ".join(failures))
        out: list[WebHit] = []
        where: dict[str, int] = {}  # normalized URL -> its hit's index in out
        for i in range(max((len(a) for a in answers), default=0)):
            for answer in answers:
                if i >= len(answer):
                    continue
                hit, key = answer[i], normalize_url(answer[i].url)
                if key not in where:
                    where[key] = len(out)
                    out.append(hit)
                    continue
                kept = out[where[key]]
                if hit.work and hit.work.get("retracted") and kept.work and not kept.work.get("retracted"):
                    out[where[key]] = replace(kept, work={**kept.work, "retracted": True})
        return out
