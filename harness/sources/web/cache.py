"""Fetched pages, kept across runs beside the corpus caches (`<cache>/web/`), so a re-run does not fetch again.

Keyed by the normalized URL asked for (`sources/urls.normalize_url`) and the extractor version, with a
time-to-live (`fetch.cache_ttl` seconds in research.yaml; 0 turns the cache off). An entry is the
extracted page with its provenance (final URL, redirect hops, status, content type, when it was
downloaded, the sha256 of the bytes), never the raw bytes. Only pages that yielded text are cached;
a failure is tried again next time. A hit is still checked against the asking question's domain
policy and the private-address guard, hop by hop, before it is used.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from harness.contract.formats import sha256_text
from harness.sources.cache import cache_dir
from harness.sources.urls import normalize_url
from harness.sources.web.pages import EXTRACTOR_VERSION
from harness.workspace.atomic import atomic_write

DEFAULT_TTL = 24 * 3600.0  # seconds


@dataclass(frozen=True)
class Page:
    """One fetched page: its text and how it was obtained (the web provenance of its source record)."""

    requested_url: str
    final_url: str  # after redirects, as the server named it
    hops: tuple[str, ...]  # every URL requested, in order; the last is final_url
    status: int
    content_type: str
    title: str
    text: str
    content_sha256: str  # of the body as received (after transfer decompression)
    fetched_at: str  # ISO time of the download
    fetched_ts: float  # the same, as a Unix time (for the time-to-live)
    robots_checked: bool
    from_cache: bool = False


class PageCache:
    """Pages on disk, one JSON file each; safe between threads and processes (atomic replace)."""

    def __init__(self, ttl: float = DEFAULT_TTL, root: Path | None = None):
        self.ttl = ttl
        self.root = root or cache_dir("web")

    def _path(self, url: str) -> Path:
        key = sha256_text(f"{EXTRACTOR_VERSION}\n{normalize_url(url)}")
        return self.root / key[:2] / f"{key}.json"

    def get(self, url: str, now: float | None = None) -> Page | None:
        if self.ttl <= 0:
            return None
        try:
            data = json.loads(self._path(url).read_text(encoding="utf-8"))
            page = Page(**{**data, "hops": tuple(data["hops"]), "from_cache": True})
        except (OSError, ValueError, TypeError, KeyError):
            return None
        if (now if now is not None else time.time()) - page.fetched_ts > self.ttl:
            return None
        return page

    def put(self, page: Page) -> None:
        if self.ttl <= 0:
            return
        data = json.dumps(asdict(replace(page, from_cache=False)), ensure_ascii=False).encode("utf-8")
        for url in dict.fromkeys((page.requested_url, page.final_url)):
            path = self._path(url)
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, data, durable=False)
