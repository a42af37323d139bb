"""Where a run's LangGraph checkpoints live: SQLite in the workspace (the default) or PostgreSQL.

`open_checkpointer(ws, url)` is the one place a checkpointer is made:

- `url=None` → LangGraph's SQLite saver in `<run>/.harness/checkpoints.sqlite`, as always;
- `url="postgresql://user:pass@host:port/db"` → LangGraph's `PostgresSaver` on that
  database (tables created or migrated by `.setup()`, serialized across processes with an
  advisory lock). Needs the `postgres` extra: `pip install 'research-harness[postgres]'`.

Either way a run's thread id is its run id, so many runs share one Postgres database.
With Postgres the run is also locked there (a session advisory lock keyed by its run id,
held while the checkpointer is open), so two machines can never drive one run at once even
where the file lock in `.harness/` cannot be trusted (NFS; see docs/scale-out.md).
The first open records which store holds the run's checkpoints in
`.harness/checkpointer.json` (never the password); opening the run later against a
different store is refused, because resuming from an empty store would silently start
the run over.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import parse_qs, urlsplit, urlunsplit

from harness.errors import UsageError, WorkspaceError, extra_missing
from harness.workspace.store import Workspace

POSTGRES_SCHEMES = ("postgresql", "postgres")
MARKER = "checkpointer.json"
SQLITE_FILE = "checkpoints.sqlite"
# pg_advisory_lock key serializing `.setup()` (CREATE TABLE / migrations) between processes
_SETUP_LOCK_KEY = zlib.crc32(b"research-harness:checkpoint-setup")
SETUP_TIMEOUT = 120.0  # seconds to wait for another process's setup()


def redact(url: str) -> str:
    """The connection string without its password (for messages and the marker file)."""
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        return "<unparseable connection string>"
    netloc = parts.netloc
    if password is not None:
        netloc = f"{parts.username or ''}:***@{netloc.rsplit('@', 1)[1]}"
    query = re.sub(r"(?i)(^|&)password=[^&]*", r"\1password=***", parts.query)
    return urlunsplit(parts._replace(netloc=netloc, query=query))


def describe(url: str | None) -> dict[str, str]:
    """What `.harness/checkpointer.json` says about a store: its kind and where it is (no secrets)."""
    if not url:
        return {"kind": "sqlite", "where": f".harness/{SQLITE_FILE}"}
    parts = urlsplit(url)
    host = f"[{parts.hostname}]" if parts.hostname and ":" in parts.hostname else parts.hostname or ""
    where = f"postgresql://{parts.username + '@' if parts.username else ''}{host}"
    where += f":{parts.port}" if parts.port else ""
    where += parts.path or ""
    options = parse_qs(parts.query).get("options")  # e.g. -csearch_path=...: it selects the tables
    return {"kind": "postgres", "where": where + (f"?options={options[0]}" if options else "")}


def check_url(url: str | None) -> str | None:
    """Validate a --checkpoint-db value; an empty value means the workspace's SQLite file."""
    if not url:
        return None
    scheme = url.split(":", 1)[0].lower() if ":" in url else ""
    try:
        urlsplit(url).port  # noqa: B018 - raises on a malformed host or port
    except ValueError:
        scheme = ""
    if scheme not in POSTGRES_SCHEMES:
        raise UsageError(
            f"--checkpoint-db {redact(url)}: expected a postgresql://USER:PASSWORD@HOST:PORT/DB connection string"
        )
    return url


def _bind_to_store(ws: Workspace, url: str | None) -> None:
    """Record where this run's checkpoints live; refuse to reopen the run against another store."""
    _bind(ws, describe(url))


def bind_to_server(ws: Workspace, thread_id: str) -> None:
    """Record that a LangGraph Server thread holds this run's checkpoints (harness/server.py)."""
    _bind(ws, {"kind": "langgraph-server", "where": f"thread {thread_id}"})


def _hint(recorded: dict[str, Any]) -> str:
    kind, where = recorded.get("kind"), recorded.get("where", "?")
    if kind == "postgres":
        return f"resume it with --checkpoint-db {where}"
    if kind == "langgraph-server":
        return f"continue it through the LangGraph Server ({where})"
    return "resume it with no --checkpoint-db"


def _bind(ws: Workspace, wanted: dict[str, str]) -> None:
    data = ws.read_private(MARKER)
    if data is not None:
        try:
            recorded = json.loads(data)
        except ValueError:
            recorded = None
        if isinstance(recorded, dict) and (recorded.get("kind"), recorded.get("where")) != (
            wanted["kind"],
            wanted["where"],
        ):
            raise WorkspaceError(
                f"{ws.root}: this run's checkpoints are in {recorded.get('kind')} ({recorded.get('where')}), "
                f"not {wanted['kind']} ({wanted['where']}); {_hint(recorded)}"
            )
        return
    if wanted["kind"] != "sqlite" and ws.private_path(SQLITE_FILE).is_file():  # a run from before the marker existed
        raise WorkspaceError(
            f"{ws.root}: this run's checkpoints are in .harness/{SQLITE_FILE}; resume it with no --checkpoint-db"
        )
    ws.write_private(MARKER, (json.dumps(wanted, sort_keys=True) + "\n").encode("utf-8"), durable=False)


@contextmanager
def _sqlite(ws: Workspace) -> Iterator[Any]:
    from langgraph.checkpoint.sqlite import SqliteSaver

    conn = sqlite3.connect(str(ws.private_path(SQLITE_FILE)), check_same_thread=False)
    # The saver puts the database in WAL mode; there, synchronous=NORMAL syncs at WAL
    # checkpoints instead of every commit. A killed process loses nothing (the WAL is
    # in the page cache); a power cut may lose the last steps, which a resume redoes.
    conn.execute("PRAGMA synchronous=NORMAL")
    try:
        yield SqliteSaver(conn)
    finally:
        conn.close()


def _postgres_modules():
    try:
        import psycopg
        from langgraph.checkpoint.postgres import PostgresSaver
    except ImportError as exc:  # not installed, or psycopg finds no libpq
        raise extra_missing("--checkpoint-db postgresql://...", "postgres", exc.name or str(exc)) from None
    return psycopg, PostgresSaver


def setup_postgres(conn, timeout: float = SETUP_TIMEOUT) -> None:
    """Create or migrate the checkpoint tables, one process at a time (setup() is not safe to race).

    The lock is taken with pg_try_advisory_lock in a polling loop, not pg_advisory_lock:
    the migrations run CREATE INDEX CONCURRENTLY, which waits for every open transaction —
    including a session blocked in pg_advisory_lock — and would deadlock with it.
    """
    from langgraph.checkpoint.postgres import PostgresSaver

    deadline = time.monotonic() + timeout
    while not conn.execute("SELECT pg_try_advisory_lock(%s) AS ok", (_SETUP_LOCK_KEY,)).fetchone()["ok"]:
        if time.monotonic() > deadline:
            raise WorkspaceError(
                f"checkpoint database: another process held the setup lock for more than {timeout:.0f}s"
            )
        time.sleep(0.1)
    try:
        PostgresSaver(conn).setup()
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", (_SETUP_LOCK_KEY,))


def run_lock_key(run_id: str) -> int:
    """The pg_advisory_lock key (a signed 64-bit integer) that stands for one run."""
    return int.from_bytes(hashlib.sha256(f"research-run:{run_id}".encode()).digest()[:8], "big", signed=True)


@contextmanager
def _postgres(url: str, ws: Workspace) -> Iterator[Any]:
    psycopg, PostgresSaver = _postgres_modules()
    from psycopg.rows import dict_row

    try:
        conn = psycopg.Connection.connect(url, autocommit=True, prepare_threshold=0, row_factory=dict_row)
    except psycopg.Error as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise WorkspaceError(f"--checkpoint-db {redact(url)}: cannot connect ({first})") from None
    with conn:
        setup_postgres(conn)
        # One writer per run, across machines: a session lock in the database, held for as long
        # as this connection lives (a dead worker's lock goes with its connection). The file
        # lock in .harness/ cannot be trusted for this on shared storage (see docs/scale-out.md).
        key = run_lock_key(ws.run_id)
        if not conn.execute("SELECT pg_try_advisory_lock(%s) AS ok", (key,)).fetchone()["ok"]:
            raise WorkspaceError(
                f"{ws.root}: this run is already being worked on by another process "
                f"(its lock in {describe(url)['where']} is held)"
            )
        try:
            # one connection per run: PostgresSaver serializes its own calls with a lock, which
            # covers the parallel research branches of one run
            yield PostgresSaver(conn)
        finally:
            try:
                conn.execute("SELECT pg_advisory_unlock(%s)", (key,))
            except psycopg.Error:
                pass  # closing the connection releases it all the same


@contextmanager
def open_checkpointer(ws: Workspace, url: str | None = None) -> Iterator[Any]:
    """The run's LangGraph checkpointer: SQLite in the workspace when `url` is None, else PostgreSQL."""
    url = check_url(url)
    if url is None:
        _bind_to_store(ws, None)
        with _sqlite(ws) as saver:
            yield saver
        return
    with _postgres(url, ws) as saver:  # connected and set up before the run is bound to this store
        _bind_to_store(ws, url)
        yield saver
