"""The workspace API: the only way artifacts are written to (or read from) a run folder.

Every write goes through the same steps, in order:

1. resolve the path inside the workspace (absolute paths, '..' and escaping symlinks are refused);
2. check the acting role may write it (globs from its agent spec);
3. validate the content against the artifact's JSON Schema, then the cross-file checks;
4. write atomically: temp file (fsynced), a journal intent naming it (fsynced), rename,
   fsync of the folder; the intent (`workspace/journal.py`) lets `recover` finish an index
   update a crash cut off;
5. record sha256, size, writer and time in run.json's artifact index. The entry is
   added in memory (what `manifest` returns) and reaches the file with the next run.json
   rewrite (the budget charge after the next model call, a status change, `flush`,
   releasing the run lock), so a write costs no rewrite of its own. Until a durable
   rewrite lands, the write's intent is kept: `recover` re-indexes it after a crash or a
   power cut, and `research validate` counts it as pending. That makes three fsyncs
   and no run.json rewrite per write;
6. append a `write` event to trace.jsonl.

Invalid content never lands: the error names the file, the JSON pointer of the bad
field and the rule it broke.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from contextlib import contextmanager
from functools import cached_property
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout

from harness.contract.formats import dump_json, now_iso, sha256_bytes
from harness.contract.globs import literal_folders, matches
from harness.contract.layout import PRIVATE_DIR, RUN, RUN_LOCK, TRACE, kind_for_path
from harness.contract.policy import Policy
from harness.contract.schemas import validate
from harness.contract.statuses import RunStatus
from harness.errors import ArtifactInvalid, PermissionRefused, Problem, StorageError, WorkspaceError
from harness.workspace import staging
from harness.workspace.atomic import atomic_write, commit_temp, write_temp
from harness.workspace.crashpoints import crashpoint
from harness.workspace.integrity import check
from harness.workspace.journal import ArtifactRecord, WriteJournal
from harness.workspace.manifest import ManifestEncoder, dump_manifest, initial_manifest
from harness.workspace.paths import resolve_inside
from harness.workspace.reader import RunReader

__all__ = ["ArtifactRecord", "Workspace"]


@contextmanager
def _storage(rel: str):
    """Turn a failing disk (full, read-only, permission) into one clear line naming the file.

    Whatever failed, the previous version of every file is intact (writes are atomic), so
    the run can be resumed once the disk is fixed.
    """
    try:
        yield
    except OSError as exc:
        raise StorageError(
            f"{rel}: cannot write to the workspace ({exc.strerror or exc}); "
            "nothing was half-written — free space or fix permissions, then `research resume`"
        ) from None


def _encode(kind_fmt: str, rel: str, content: Any) -> tuple[bytes, Any]:
    """Turn caller content into (bytes to write, parsed value to validate)."""
    if kind_fmt == "json":
        if isinstance(content, (bytes, bytearray)):
            content = content.decode("utf-8", errors="strict")
        if isinstance(content, str):
            try:
                content = json.loads(content)
            except json.JSONDecodeError as exc:
                raise ArtifactInvalid(
                    [Problem(rel, "/", "json", f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}")]
                ) from None
        return dump_json(content).encode("utf-8"), content
    if isinstance(content, (bytes, bytearray)):
        try:
            text = bytes(content).decode("utf-8")
        except UnicodeDecodeError:
            raise ArtifactInvalid([Problem(rel, "", "utf-8", "content is not UTF-8 text")]) from None
    elif isinstance(content, str):
        text = content
    else:
        raise ArtifactInvalid(
            [Problem(rel, "", "type", f"expected text for a {kind_fmt} file, got {type(content).__name__}")]
        )
    return text.encode("utf-8"), text


def _read_manifest(root: Path) -> dict[str, Any]:
    run_file = root / RUN
    if not run_file.is_file():
        raise WorkspaceError(f"{root}: not a run workspace (no run.json)")
    try:
        manifest = json.loads(run_file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise WorkspaceError(f"{run_file}: cannot be read as JSON ({exc})") from None
    problems = validate(manifest, "run.schema.json", RUN)
    if problems:
        raise WorkspaceError(f"{run_file}: {problems[0]}")
    return manifest


class Workspace:
    """One run folder. Create with `Workspace.create`, open an existing one with `Workspace.open`."""

    def __init__(self, root: Path, manifest: dict[str, Any]):
        self.root = root.resolve()
        self._manifest = manifest
        self._lock = threading.RLock()
        self._seq = self._count_trace_lines()
        self._run_lock: FileLock | None = None
        self._journal = WriteJournal(self.root)  # intents of writes not yet durably indexed, and their recovery
        self._encoder = ManifestEncoder()  # re-encodes only the index entries that changed

    # ---- creation and opening -------------------------------------------------

    @classmethod
    def create(
        cls, runs_dir: Path, question: str, config: dict[str, Any] | None = None, budget: dict[str, Any] | None = None
    ) -> Workspace:
        """Make a new run folder from workspace_template/ under `runs_dir`.

        The folder is assembled under a hidden name and renamed into place (`workspace/staging.py`),
        so a crash never leaves a half-made workspace; staging folders that killed creators left
        in `runs_dir` are swept first.
        """
        question = question.strip()
        if not question:
            raise WorkspaceError("question: must not be empty")
        runs_dir = Path(runs_dir)
        runs_dir.mkdir(parents=True, exist_ok=True)
        staging.sweep(runs_dir)
        with staging.staging_folder(runs_dir) as (run_id, folder):
            created = now_iso()
            artifacts = staging.copy_template(folder, created)
            (folder / PRIVATE_DIR).mkdir()
            manifest = initial_manifest(run_id, question, created, config=config, budget=budget, artifacts=artifacts)
            problems = validate(manifest, "run.schema.json", RUN)
            if problems:
                raise ArtifactInvalid(problems)
            atomic_write(folder / RUN, dump_manifest(manifest).encode("utf-8"))
            event = {
                "seq": 1,
                "ts": created,
                "run_id": run_id,
                "event": "run_created",
                "agent": "harness",
                "detail": {"question": question},
            }
            (folder / TRACE).write_text(json.dumps(event, ensure_ascii=False) + "\n", encoding="utf-8")
            crashpoint("create:staged")
            os.rename(folder, runs_dir / run_id)
        return cls(runs_dir / run_id, manifest)

    @classmethod
    def open(cls, root: Path | str) -> Workspace:
        """Open an existing run folder. Interrupted writes are recovered by whoever takes the run lock."""
        root = Path(root)
        return cls(root, _read_manifest(root))

    # ---- basic properties ----------------------------------------------------------

    @property
    def run_id(self) -> str:
        return self._manifest["run_id"]

    @property
    def manifest(self) -> dict[str, Any]:
        """A deep copy of run.json as the harness holds it, index entries not yet rewritten included
        (a copy of the whole index: not for per-call paths; see bench/README.md)."""
        with self._lock:
            return json.loads(json.dumps(self._manifest))

    @property
    def status(self) -> RunStatus:
        return self._manifest["status"]

    @cached_property
    def private_dir(self) -> Path:
        """The harness's own folder; created once per Workspace, not on every access (writes use it)."""
        path = self.root / PRIVATE_DIR
        path.mkdir(exist_ok=True)
        return path

    def private_path(self, name: str) -> Path:
        """Where the harness keeps a private file `name` (e.g. its checkpoint database); the folders above are made."""
        path = self.private_dir.joinpath(*name.split("/"))
        path.parent.mkdir(parents=True, exist_ok=True)
        return path

    def read_private(self, name: str) -> bytes | None:
        """A private file's bytes, or None when it does not exist (or cannot be read)."""
        try:
            return (self.private_dir / name).read_bytes()
        except OSError:
            return None

    def write_private(self, name: str, data: bytes, durable: bool = True) -> None:
        """Replace a private file atomically, so a kill never leaves it half-written."""
        atomic_write(self.private_path(name), data, durable)

    def remove_private(self, name: str) -> None:
        (self.private_dir / name).unlink(missing_ok=True)

    def reader(self, cache: bool = False) -> RunReader:
        """A read-only view of this run; uncached it sees every write as it lands, cached it reads each file once."""
        return RunReader(self.root, cache=cache)

    # ---- the guarded write ------------------------------------------------------------

    def write(self, relpath: str, content: Any, policy: Policy) -> ArtifactRecord:
        """Validate and atomically write one artifact as `policy.role`; see the module docstring."""
        path, rel = resolve_inside(self.root, relpath)
        if not policy.may_write(rel):
            raise PermissionRefused(
                f"{rel}: role '{policy.role}' may not write this path (allowed: {', '.join(policy.writes) or 'nothing'})"
            )
        kind = kind_for_path(rel)
        if kind is None or not kind.indexed:
            raise ArtifactInvalid(
                [
                    Problem(
                        rel,
                        "",
                        "artifact-path",
                        "not a workspace artifact path (see the workspace layout in the README)",
                    )
                ]
            )
        data, value = _encode(kind.fmt, rel, content)
        problems = validate(value, kind.schema, rel) if kind.schema else []
        if not problems:
            problems = check(kind.name, rel, value, self.reader())
        if problems:
            raise ArtifactInvalid(problems)
        return self._commit(path, rel, data, policy.role)

    def _commit(self, path: Path, rel: str, data: bytes, writer: str) -> ArtifactRecord:
        record = ArtifactRecord(rel, sha256_bytes(data), len(data), writer, now_iso())
        with self._lock, _storage(rel):
            if self._journal.is_pending(rel):
                # Rewriting a path whose last write is still only journalled: settle that one first,
                # so each path has at most one intent (the newest) and `validate` can trust it.
                self.flush()
            tmp = write_temp(path, data)
            crashpoint("write:temp")
            intent_file = None
            try:
                intent_file = self._journal.announce_write(record, tmp.name)
                commit_temp(tmp, path)
            except BaseException:
                tmp.unlink(missing_ok=True)
                if intent_file is not None:
                    self._journal.drop(intent_file)
                raise
            crashpoint("write:renamed")
            self.index(record)
            self._journal.keep(rel, intent_file)  # settled once a durable run.json write lands
            crashpoint("write:indexed")
            self.trace("write", agent=writer, path=rel, sha256=record.sha256, size=record.size)
        return record

    def index(self, record: ArtifactRecord) -> None:
        """Add the entry to the in-memory run.json; the next rewrite carries it to the file.

        The caller keeps the write's intent pending until a durable rewrite (see `_write_manifest`).
        """
        with self._lock:
            self._manifest["artifacts"][record.path] = record.entry()

    def unindex(self, rel: str) -> None:
        """Drop `rel`'s index entry, durably (a removal)."""
        self.update_manifest(lambda m: m["artifacts"].pop(rel, None))

    def indexed_sha256(self, rel: str) -> str | None:
        """The sha256 run.json's index (in memory) holds for `rel`, or None when it is not indexed."""
        with self._lock:
            return (self._manifest["artifacts"].get(rel) or {}).get("sha256")

    def remove(self, relpath: str, policy: Policy) -> None:
        """Delete one artifact the role may write (used to undo a killed attempt's partial output)."""
        path, rel = resolve_inside(self.root, relpath)
        if not policy.may_write(rel):
            raise PermissionRefused(f"{rel}: role '{policy.role}' may not remove this path")
        with self._lock, _storage(rel):
            if not path.is_file():
                return
            # Journalled like a write, so a kill between the unlink and the index update is finished
            # by `recover` instead of leaving an index entry for a missing file.
            intent_file = self._journal.announce_removal(rel, policy.role)
            path.unlink()
            crashpoint("remove:unlinked")
            self.unindex(rel)
            crashpoint("remove:indexed")
            self.trace("delete", agent=policy.role, path=rel)
            self._journal.drop(intent_file)

    # ---- guarded reads ---------------------------------------------------------------

    def read_bytes(self, relpath: str, policy: Policy) -> bytes:
        path, rel = resolve_inside(self.root, relpath)
        if rel.split("/", 1)[0] == PRIVATE_DIR or not policy.may_read(rel):
            raise PermissionRefused(
                f"{rel}: role '{policy.role}' may not read this path (allowed: {', '.join(policy.reads) or 'nothing'})"
            )
        try:
            return path.read_bytes()
        except FileNotFoundError:
            raise WorkspaceError(f"{rel}: no such file in the workspace") from None
        except IsADirectoryError:
            raise WorkspaceError(f"{rel}: is a folder, not a file") from None

    def read_text(self, relpath: str, policy: Policy) -> str:
        return self.read_bytes(relpath, policy).decode("utf-8", errors="replace")

    def read_json(self, relpath: str, policy: Policy) -> Any:
        text = self.read_text(relpath, policy)
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise WorkspaceError(f"{relpath}: not valid JSON ({exc.msg})") from None

    def list(self, pattern: str, policy: Policy) -> list[str]:
        """Workspace files matching `pattern` that `policy` may read, sorted.

        Only the folder named by the pattern's literal prefix is walked ('source-cards/q1-*.json'
        walks source-cards/), not the whole run, whose sources/ grows with every search.
        """
        start = self.root.joinpath(*literal_folders(pattern))
        if start != self.root and (not start.is_dir() or self.root not in start.resolve().parents):
            return []  # missing, or a symlink out of the workspace
        out = []
        for p in start.rglob("*"):
            if not p.is_file():
                continue
            rel = p.relative_to(self.root).as_posix()
            if rel.split("/", 1)[0] == PRIVATE_DIR or p.name.startswith("."):
                continue
            if matches(rel, [pattern]) and policy.may_read(rel):
                out.append(rel)
        return sorted(out)

    def exists(self, relpath: str) -> bool:
        path, _ = resolve_inside(self.root, relpath)
        return path.is_file()

    def sha256(self, relpath: str) -> str | None:
        path, _ = resolve_inside(self.root, relpath)
        return sha256_bytes(path.read_bytes()) if path.is_file() else None

    # ---- manifest and trace ---------------------------------------------------------

    def update_manifest(
        self, fn: Callable[[dict[str, Any]], None], *, check: bool = True, durable: bool = True
    ) -> dict[str, Any]:
        """Apply `fn` to run.json, validate it, and write it atomically.

        `check=False` is for the hot paths whose change is built by this module from
        values it computed itself (index entries, budget counters); every other update,
        and `research validate`, checks the whole manifest against its schema.
        `durable=False` (budget counters after every model call) skips the fsyncs: the
        rewrite stays atomic and survives a killed process, not a power cut. Every rewrite
        carries the index entries added since the last one.
        A durable write also makes the pending index entries durable, so it drops their
        journal intents.
        """
        with self._lock:
            # A checked update works on a copy so a rejected change leaves the manifest as it was.
            # The json round trip runs in C (no indent), faster than copy.deepcopy (bench/README.md);
            # pickle would be faster still but keeps tuples, which the schema's "array" rejects.
            updated = json.loads(json.dumps(self._manifest)) if check else self._manifest
            fn(updated)
            updated["updated_at"] = now_iso()
            problems = validate(updated, "run.schema.json", RUN) if check else []
            if problems:
                raise ArtifactInvalid(problems)
            self._write_manifest(updated, durable)
            self._manifest = updated
            return updated

    def _write_manifest(self, manifest: dict[str, Any], durable: bool) -> None:
        with _storage(RUN):
            atomic_write(self.root / RUN, self._encoder.encode(manifest).encode("utf-8"), durable)
        if durable:
            self._journal.settle()  # only now, with run.json on disk, are the pending intents not needed

    def flush(self) -> None:
        """Make run.json durable if index entries are pending, and drop their journal intents.

        Artifact writes reach run.json only with a later rewrite, which may not be fsynced (see
        the module docstring); releasing the run lock calls this, and so may any natural
        boundary, to bound the journal and what a power cut leaves for `recover` to redo.
        Does nothing, and costs nothing, when none are pending.
        """
        with self._lock:
            if self._journal.has_pending():
                self._write_manifest(self._manifest, durable=True)

    def set_status(self, status: RunStatus, reason: str | None = None) -> None:
        def apply(m: dict[str, Any]) -> None:
            m["status"] = status
            m["status_reason"] = reason

        self.update_manifest(apply)
        self.trace("status", agent="harness", status=status, detail=reason)

    def trace(self, event: str, **fields: Any) -> dict[str, Any]:
        """Append one validated event to trace.jsonl and return it."""
        with self._lock:
            entry = {"seq": self._seq + 1, "ts": now_iso(), "run_id": self.run_id, "event": event}
            entry.update(fields)
            problems = validate(entry, "trace-event.schema.json", TRACE)
            if problems:
                raise ArtifactInvalid(problems)
            line = (json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8")
            with _storage(TRACE):
                fd = os.open(self.root / TRACE, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
                try:
                    os.write(fd, line)
                finally:
                    os.close(fd)
            self._seq += 1
            return entry

    def _count_trace_lines(self) -> int:
        path = self.root / TRACE
        if not path.is_file():
            return 0
        with path.open("rb") as fh:
            return sum(1 for line in fh if line.endswith(b"\n"))

    # ---- recovery and locking -----------------------------------------------------------

    def recover(self) -> None:
        """Finish or roll back writes a crash interrupted (`WriteJournal.recover`), drop a torn last trace
        line, remove orphan temp files; then make what recovery indexed durable."""
        announced = self._journal.temp_files()
        for tmp in self.root.rglob(".*.tmp"):  # write_temp's names; a live write holds the run lock
            if tmp.is_file() and tmp.name not in announced and PRIVATE_DIR not in tmp.relative_to(self.root).parts:
                tmp.unlink(missing_ok=True)
        trace = self.root / TRACE
        if trace.is_file():
            data = trace.read_bytes()
            if data and not data.endswith(b"\n"):
                keep = data.rfind(b"\n") + 1
                with trace.open("r+b") as fh:
                    fh.truncate(keep)
                self._seq = self._count_trace_lines()
        self._journal.recover(self)
        self.flush()

    def acquire_run_lock(self) -> None:
        """Hold an exclusive lock for this process; a second process gets a clear error.

        The lock is an OS file lock, so a lock left by a dead process is released by the OS.
        Taking it re-reads run.json and the trace's length (the last holder may have changed them
        since this folder was opened), then recovers what a crash interrupted (see `recover`).
        """
        lock = FileLock(str(self.private_dir / RUN_LOCK))
        try:
            lock.acquire(timeout=0)
        except Timeout:
            raise WorkspaceError(f"{self.root}: this run is already being worked on by another process") from None
        self._run_lock = lock
        with self._lock:
            if not self._journal.has_pending():  # else this object wrote since it was opened: it holds the newest
                self._manifest = _read_manifest(self.root)
                self._seq = self._count_trace_lines()
        self.recover()  # only the lock holder may finish or undo an interrupted write

    def release_run_lock(self) -> None:
        """Flush pending index entries (see `flush`), then release the lock even if that fails."""
        if self._run_lock is not None:
            try:
                self.flush()
            finally:
                self._run_lock.release()
                self._run_lock = None
