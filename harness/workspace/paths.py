"""Confining paths to the workspace: canonical relative paths, resolved without escaping the root."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from harness.errors import PathRefused


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


def inside(path: Path, root: Path) -> bool:
    """`path` resolves (symlinks followed) to `root`'s resolved folder or somewhere under it."""
    real, top = path.resolve(), root.resolve()
    return real == top or top in real.parents


def servable(root: Path, rel: str) -> Path | None:
    """The one rule for reading a run's file on anyone's behalf (the readers, the viewer, the raw-file route):
    the resolved file `rel` names, or None. It must resolve inside the run folder `root` and, once resolved,
    name no hidden part: never the private `.harness/` folder or a dotfile, whatever symlink points there."""
    parts = [p for p in rel.split("/") if p]
    if not parts or any(p.startswith(".") or "\\" in p or "\0" in p for p in parts):
        return None
    top = root.resolve()
    try:
        target = top.joinpath(*parts).resolve()
        inner = target.relative_to(top).parts
    except (OSError, ValueError, RuntimeError):  # outside the run folder, or a symlink loop
        return None
    if not inner or any(p.startswith(".") for p in inner):
        return None
    return target
