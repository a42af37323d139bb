"""Several providers searched as one (`--search arxiv,openalex`): each asked the same query, their hits
interleaved by rank (the first provider's first hit, the second's first, …), a URL or a paper (`work_keys`: DOI,
arXiv id, normalized title) named twice kept once, as the first provider found it (a retraction either reports, and
an open-access copy the first lacked, are kept). So the same paper is never fetched twice in parallel, and which
provider's record it gets does not depend on which download finishes first.

Each hit keeps its own provider and rank. The same paper found by two searches is merged when it is registered
(`SourceRegistry.register`, by the work's keys). A provider that fails is
skipped while another answers; only when every one fails is the search a failure.
"""

from __future__ import annotations

from dataclasses import replace

from harness.contract.works import work_keys
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
        where: dict[str, int] = {}  # a hit's URL (normalized) and its work's keys -> its index in out
        for i in range(max((len(a) for a in answers), default=0)):
            for answer in answers:
                if i < len(answer):
                    self._add(out, where, answer[i])
        return out

    @staticmethod
    def _add(out: list[WebHit], where: dict[str, int], hit: WebHit) -> None:
        """Keep `hit`, or merge it into the hit already kept for its URL or its paper: a retraction either reports
        is kept, and so is an open-access copy the first one lacked."""
        keys = [normalize_url(hit.url), *work_keys(hit.work or {})]
        known = next((where[k] for k in keys if k in where), None)
        if known is None:
            for k in keys:
                where[k] = len(out)
            out.append(hit)
            return
        kept = out[known]
        if kept.work is not None and hit.work is not None:
            work = {**kept.work, "retracted": bool(kept.work.get("retracted") or hit.work.get("retracted"))}
            out[known] = replace(kept, work=work, full_text_url=kept.full_text_url or hit.full_text_url)
        for k in keys:
            where.setdefault(k, known)
