"""Where the contract folders (agents/, schemas/, workspace_template/) live.

In an installed wheel they are bundled under ``harness/_bundled``; in a source
checkout they sit at the repository's top level. Callers never need to know which.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent.parent  # harness/
_NAMES = ("agents", "schemas", "workspace_template")


@cache
def resource_dir(name: str) -> Path:
    """Return the folder holding ``name`` (one of agents, schemas, workspace_template)."""
    if name not in _NAMES:
        raise ValueError(f"unknown resource folder {name!r}")
    for candidate in (_PACKAGE_DIR / "_bundled" / name, _PACKAGE_DIR.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"resource folder {name!r} is missing from this installation")


def schemas_dir() -> Path:
    return resource_dir("schemas")


def agents_dir() -> Path:
    return resource_dir("agents")


def template_dir() -> Path:
    return resource_dir("workspace_template")
