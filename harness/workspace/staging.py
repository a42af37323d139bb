"""Where a new run folder is assembled: a hidden `.creating-<run_id>/` beside the runs, renamed into place.

A crash never leaves a half-made workspace, and concurrent creations never collide (mkdir is
exclusive and the id carries random bits). The creator holds an OS file lock,
`.creating-<run_id>.lock`, from before the folder exists until it is renamed or removed; the
OS drops the lock when the creator dies, so the next creation in the same runs folder
(`sweep`) can tell a staging folder whose creator is gone, and remove it, from one still
being made.
"""

from __future__ import annotations

import contextlib
import secrets
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout

from harness.contract.formats import sha256_bytes
from harness.contract.resources import template_dir
from harness.errors import WorkspaceError

PREFIX = ".creating-"
_STALE_LOCK_SECONDS = 60.0


def new_run_id() -> str:
    """A unique id that sorts by creation time: 20261130T010203.123456Z-1a2b3c."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")
    return f"{stamp}-{secrets.token_hex(3)}"


def _lock_path(runs_dir: Path, run_id: str) -> Path:
    return runs_dir / f"{PREFIX}{run_id}.lock"


def sweep(runs_dir: Path) -> list[str]:
    """Remove the staging folders of creators that are gone, and their lock files; returns their run ids.

    Only a folder is swept, never a bare lock file younger than `_STALE_LOCK_SECONDS`: a creator
    takes its lock before it makes the folder, so a folder whose lock can be taken has lost its creator.
    """
    swept = []
    for folder in sorted(p for p in runs_dir.glob(f"{PREFIX}*") if p.is_dir()):
        run_id = folder.name[len(PREFIX) :]
        if _take_and_remove(runs_dir, run_id, folder):
            swept.append(run_id)
    now = time.time()
    for lock_file in runs_dir.glob(f"{PREFIX}*.lock"):  # a creator killed between its lock and its folder
        run_id = lock_file.name[len(PREFIX) : -len(".lock")]
        with contextlib.suppress(OSError):
            if not (runs_dir / f"{PREFIX}{run_id}").exists() and now - lock_file.stat().st_mtime > _STALE_LOCK_SECONDS:
                _take_and_remove(runs_dir, run_id, None)
    return swept


def _take_and_remove(runs_dir: Path, run_id: str, folder: Path | None) -> bool:
    lock = FileLock(str(_lock_path(runs_dir, run_id)))
    try:
        lock.acquire(timeout=0)
    except Timeout:
        return False  # its creator is still at work
    try:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
    finally:
        lock.release()
        _lock_path(runs_dir, run_id).unlink(missing_ok=True)
    return True


@contextmanager
def staging_folder(runs_dir: Path) -> Iterator[tuple[str, Path]]:
    """A fresh, locked staging folder and its run id. The body fills it and renames it into place; if
    the body raises, the folder is removed. The lock is released (and its file removed) either way."""
    for _ in range(20):
        run_id = new_run_id()
        lock = FileLock(str(_lock_path(runs_dir, run_id)))
        try:
            lock.acquire(timeout=0)  # a fresh name: nobody else should hold it
        except Timeout:
            continue
        staging = runs_dir / f"{PREFIX}{run_id}"
        try:
            staging.mkdir()
        except FileExistsError:
            lock.release()
            continue
        if (runs_dir / run_id).exists():
            shutil.rmtree(staging, ignore_errors=True)
            lock.release()
            continue
        break
    else:  # pragma: no cover - 20 collisions of 24 random bits in one microsecond
        raise WorkspaceError(f"{runs_dir}: could not allocate a unique run id")
    try:
        yield run_id, staging
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    finally:
        lock.release()
        _lock_path(runs_dir, run_id).unlink(missing_ok=True)


def copy_template(folder: Path, created: str) -> dict[str, dict[str, Any]]:
    """Copy workspace_template/ into `folder`; returns run.json's index entries of the files copied."""
    artifacts: dict[str, dict[str, Any]] = {}
    template = template_dir()
    for src in sorted(template.rglob("*")):
        rel = src.relative_to(template).as_posix()
        if src.is_dir():
            (folder / rel).mkdir(parents=True, exist_ok=True)
        elif src.name != ".gitkeep":
            data = src.read_bytes()
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / rel).write_bytes(data)
            artifacts[rel] = {
                "sha256": sha256_bytes(data),
                "size": len(data),
                "writer": "harness",
                "written_at": created,
            }
    return artifacts
