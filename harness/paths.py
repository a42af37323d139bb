"""Confining paths to the workspace and matching them against role globs."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path, PurePosixPath

import wcmatch.glob as wcglob

from .errors import PathRefused

# Same flags deepagents uses for FilesystemPermission, so a spec's globs mean the
# same thing in our guard and in the library's tools.
GLOB_FLAGS = wcglob.BRACE | wcglob.GLOBSTAR


def normalize_relpath(relpath: str) -> str:
    """Return the canonical workspace-relative form of `relpath`, or raise PathRefused.

    Absolute paths, drive letters, backslashes, '..' segments and NUL bytes are refused:
    a workspace path never names anything above the workspace root.
    """
    if not isinstance(relpath, str) or not relpath.strip():
        raise PathRefused("empty path")
    if "\x00" in relpath:
        raise PathRefused(f"{relpath!r}: NUL byte in path")
    if "\\" in relpath:
        raise PathRefused(f"{relpath}: backslashes are not allowed in workspace paths")
    if relpath.startswith("/") or relpath.startswith("~") or (len(relpath) > 1 and relpath[1] == ":"):
        raise PathRefused(f"{relpath}: absolute paths are refused; use a path relative to the workspace")
    parts = [p for p in PurePosixPath(relpath).parts if p not in ("", ".")]
    if ".." in parts:
        raise PathRefused(f"{relpath}: '..' is refused in workspace paths")
    if not parts:
        raise PathRefused(f"{relpath}: names the workspace root, not a file")
    return "/".join(parts)


def resolve_inside(root: Path, relpath: str) -> tuple[Path, str]:
    """Resolve `relpath` under `root`, following symlinks, and refuse anything that lands outside."""
    rel = normalize_relpath(relpath)
    root_real = root.resolve()
    target = (root_real / rel).resolve()
    if target != root_real and root_real not in target.parents:
        raise PathRefused(f"{rel}: resolves outside the workspace (through a symlink)")
    return root_real / rel, rel


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
