"""Role globs: how a spec's `reads:` / `writes:` patterns match workspace paths.

Same flags deepagents uses for FilesystemPermission, so a spec's globs mean the same
thing in our guard and in the library's tools.
"""

from __future__ import annotations

from functools import lru_cache

import wcmatch.glob as wcglob

GLOB_FLAGS = wcglob.BRACE | wcglob.GLOBSTAR


def literal_folders(pattern: str) -> list[str]:
    """The folder names above a glob's first wildcard: 'source-cards/q1-*.json' -> ['source-cards']."""
    out = []
    for part in pattern.strip("/").split("/")[:-1]:
        if any(ch in part for ch in "*?[{") or part in ("", ".", ".."):
            break
        out.append(part)
    return out


def matches(relpath: str, patterns: list[str] | tuple[str, ...]) -> bool:
    """True when the workspace path matches any of the globs."""
    return bool(patterns) and _matcher(tuple(patterns)).match(relpath)


@lru_cache(maxsize=256)
def _matcher(patterns: tuple[str, ...]):
    """The globs compiled once (every guarded read and write matches a role's globs; compiling took most of it)."""
    return wcglob.compile([p.lstrip("/") for p in patterns], flags=GLOB_FLAGS)
