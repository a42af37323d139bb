"""The harness's cache folder, outside every run workspace (extracted text, BM25 indexes, built corpora)."""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    """$RESEARCH_CACHE_DIR, else $XDG_CACHE_HOME/research-harness, else ~/.cache/research-harness."""
    explicit = os.environ.get("RESEARCH_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "research-harness"


def cache_dir(*parts: str) -> Path:
    path = cache_root().joinpath(*parts)
    path.mkdir(parents=True, exist_ok=True)
    return path
