"""Crash-safe file replacement: temp file in the same folder, fsync, rename, fsync the folder."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_temp(path: Path, data: bytes, durable: bool = True) -> Path:
    """Write `data` to a fresh temp file beside `path` (fsynced when `durable`); return the temp path."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except FileNotFoundError:  # the folder is made on first use only: this runs for every write
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            if durable:
                os.fsync(fh.fileno())
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return Path(tmp)


def commit_temp(tmp: Path, path: Path, durable: bool = True) -> None:
    """Atomically move a temp file from `write_temp` into place."""
    os.replace(tmp, path)
    if durable:
        fsync_dir(path.parent)


def atomic_write(path: Path, data: bytes, durable: bool = True) -> None:
    """Replace `path` with `data` so readers see the old or the new file, never a mix.

    `durable=False` skips the fsyncs: still atomic and still safe against a killed process
    (the page cache outlives it), but the last version may be lost to a power cut.
    """
    tmp = write_temp(path, data, durable)
    try:
        commit_temp(tmp, path, durable)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
