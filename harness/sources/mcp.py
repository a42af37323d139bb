"""MCP servers as sources: connect to the servers research.yaml names, call their tools, and
register every result a card may quote as a source.

- `servers_from_config` reads `mcp: {servers: {NAME: {command: [...]} | {url: ...}}}` (already
  validated against config.schema.json) into `McpServer`s;
- `McpHub.start` is the preflight: each server is started (stdio) or reached (streamable HTTP)
  and must list at least one tool within its timeout, or the run fails in one line naming it,
  before any work. The hub then keeps one session per server open for the run, on one
  background event loop, so research branches on any thread can call tools concurrently;
- `McpSources.call` makes one call and registers its text through `SourceRegistry.register`
  (the only place source ids are made), with provenance: server, tool, the arguments and the
  sha256 of their canonical JSON; `retrieved_at` is when it answered. The same call again is
  the same source. Injection flagging happens there, as for any source.

The mcp SDK (`mcp.Client`) does the protocol; this module only connects, bounds and records.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import re
import tempfile
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from harness.contract.formats import sha256_text
from harness.errors import HarnessError, UsageError
from harness.sources.registry import SourceRegistry

DEFAULT_TIMEOUT = 30.0  # seconds a server has to start and list its tools, and to answer one call
DEFAULT_KIND = "secondary"  # what an MCP result counts as unless its server is configured `kind: primary`
SOURCE = "mcp"  # a plan question allows a server as `mcp:NAME` (plan.schema.json allowed_sources)
TOOL_PREFIX = "mcp_"  # how a server's tool is named to a model: mcp_<server>_<tool>
TITLE_CHARS = 100
ERROR_CHARS = 300
CLOSE_SECONDS = 5.0


class McpCallError(HarnessError):
    """A tool call the server refused, failed or left unanswered; the message goes back to the caller."""


@dataclass(frozen=True)
class McpServer:
    name: str
    command: tuple[str, ...] = ()  # stdio: the argv that starts it
    url: str | None = None  # or streamable HTTP
    env: tuple[str, ...] = ()  # variables passed through from the harness's environment (stdio)
    kind: str = DEFAULT_KIND
    timeout: float = DEFAULT_TIMEOUT

    @property
    def where(self) -> str:
        return f"mcp server '{self.name}' (research.yaml mcp.servers.{self.name})"

    @property
    def target(self) -> str:
        return self.url or " ".join(self.command)


def servers_from_config(data: dict[str, Any] | None) -> tuple[McpServer, ...]:
    """The `mcp:` section of research.yaml (or of run.json's config snapshot) as servers."""
    servers = ((data or {}).get("servers")) or {}
    return tuple(
        McpServer(
            name=name,
            command=tuple(spec.get("command") or ()),
            url=spec.get("url"),
            env=tuple(spec.get("env") or ()),
            kind=spec.get("kind", DEFAULT_KIND),
            timeout=float(spec.get("timeout", DEFAULT_TIMEOUT)),
        )
        for name, spec in servers.items()
    )


def source_name(server: str) -> str:
    """How a plan question's allowed_sources names a server."""
    return f"{SOURCE}:{server}"


def tool_name(server: str, tool: str) -> str:
    """The name a model calls a server's tool by (providers accept [A-Za-z0-9_-], at most 64 characters)."""
    return (TOOL_PREFIX + server + "_" + re.sub(r"[^A-Za-z0-9_-]", "_", tool))[:64]


def canonical_arguments(arguments: dict[str, Any]) -> str:
    """The arguments as canonical JSON (keys sorted, no spaces): what the provenance hash is taken of."""
    return json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True)
class McpTool:
    server: str
    name: str  # the tool's own name on its server
    description: str
    input_schema: dict[str, Any]

    @property
    def qualified(self) -> str:
        return tool_name(self.server, self.name)


@dataclass(frozen=True)
class McpAnswer:
    text: str
    error: bool
    skipped: int = 0  # content blocks with no text (images, audio): not stored


def answer_text(result: Any) -> McpAnswer:
    """The text of a CallToolResult: its text blocks (and embedded text resources), else its structured content."""
    parts, skipped = [], 0
    for block in result.content or []:
        text = getattr(block, "text", None)
        if text is None:
            text = getattr(getattr(block, "resource", None), "text", None)
        if isinstance(text, str):
            parts.append(text)
        else:
            skipped += 1
    text = "\n\n".join(p for p in parts if p.strip())
    if not text.strip() and result.structured_content is not None:
        text = json.dumps(result.structured_content, indent=2, sort_keys=True, ensure_ascii=False)
    return McpAnswer(text, bool(result.is_error), skipped)


@dataclass
class _Connection:
    server: McpServer
    client: Any = None
    tools: tuple[McpTool, ...] = ()
    task: concurrent.futures.Future | None = None
    stop: asyncio.Event | None = None
    errlog: Any = None
    failure: BaseException | None = None  # set when the session ended during the run
    finished: threading.Event = field(default_factory=threading.Event)  # the session (and its process) is gone


class McpHub:
    """Open sessions to the configured MCP servers, on one background event loop shared by every branch."""

    def __init__(self, servers: Iterable[McpServer]):
        self.servers = {s.name: s for s in servers}
        self._connections: dict[str, _Connection] = {}
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="mcp-hub", daemon=True)
        self._thread.start()

    @classmethod
    def start(cls, servers: Iterable[McpServer]) -> McpHub:
        """Connect to every server and list its tools, or close what was opened and raise a one-line UsageError
        naming the server that cannot be started, answers nothing in time, or lists no tools."""
        hub = cls(servers)
        try:
            for server in hub.servers.values():
                hub._connect(server)
            hub._check_names()
        except BaseException:
            hub.close()
            raise
        return hub

    # ---- connecting ----------------------------------------------------------------------

    def _transport(self, server: McpServer, errlog: Any) -> Any:
        from mcp.client.stdio import StdioServerParameters, stdio_client

        if server.url:
            return server.url
        missing = [name for name in server.env if name not in os.environ]
        if missing:
            raise UsageError(f"{server.where}: environment variable {missing[0]} (listed under env) is not set")
        params = StdioServerParameters(
            command=server.command[0], args=list(server.command[1:]), env={n: os.environ[n] for n in server.env}
        )
        return stdio_client(params, errlog=errlog)

    async def _serve(self, conn: _Connection, ready: concurrent.futures.Future) -> None:
        """Hold one server's session open until `close`: enter and leave it in this one task, as anyio needs."""
        from mcp import Client

        conn.stop = asyncio.Event()
        try:
            async with Client(
                self._transport(conn.server, conn.errlog), read_timeout_seconds=conn.server.timeout
            ) as client:
                tools, cursor = [], None
                while True:
                    listed = await client.list_tools(cursor=cursor)
                    tools += listed.tools
                    cursor = listed.next_cursor
                    if not cursor:
                        break
                conn.client = client
                ready.set_result(tools)
                await conn.stop.wait()
        except BaseException as exc:  # anything: the caller reports it in one line
            if not ready.done():
                ready.set_exception(exc)
            else:
                conn.failure = exc
            if not isinstance(exc, Exception):
                raise
        finally:
            conn.finished.set()

    def _connect(self, server: McpServer) -> None:
        conn = _Connection(server, errlog=tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace"))
        self._connections[server.name] = conn
        ready: concurrent.futures.Future = concurrent.futures.Future()
        conn.task = asyncio.run_coroutine_threadsafe(self._serve(conn, ready), self._loop)
        try:
            listed = ready.result(timeout=server.timeout)
        except concurrent.futures.TimeoutError:
            raise UsageError(
                f"{server.where}: `{server.target}` did not answer within {server.timeout:g}s" + self._stderr_tail(conn)
            ) from None
        except UsageError:
            raise
        except BaseException as exc:
            raise UsageError(
                f"{server.where}: could not start or reach `{server.target}`: {_one_line(exc)}"
                + self._stderr_tail(conn)
            ) from None
        if not listed:
            raise UsageError(f"{server.where}: `{server.target}` lists no tools")
        conn.tools = tuple(
            McpTool(server.name, t.name, (t.description or t.title or "").strip(), dict(t.input_schema or {}))
            for t in listed
        )

    def _check_names(self) -> None:
        seen: dict[str, McpTool] = {}
        for tool in self.tools():
            other = seen.setdefault(tool.qualified, tool)
            if other is not tool:
                raise UsageError(
                    f"mcp server '{tool.server}': tools {other.name!r} and {tool.name!r} would both be named "
                    f"{tool.qualified} for the model; rename one on the server"
                )

    @staticmethod
    def _stderr_tail(conn: _Connection) -> str:
        log = conn.errlog
        if log is None:
            return ""
        try:
            log.seek(0)
            lines = [ln.strip() for ln in log.read().splitlines() if ln.strip()]
        except (OSError, ValueError):
            return ""
        return f" (its last stderr line: {lines[-1][:ERROR_CHARS]})" if lines else ""

    # ---- using ---------------------------------------------------------------------------

    def tools(self, server: str | None = None) -> list[McpTool]:
        return [t for c in self._connections.values() if server in (None, c.server.name) for t in c.tools]

    def tool(self, qualified: str) -> McpTool | None:
        return next((t for t in self.tools() if t.qualified == qualified), None)

    def call(self, server: str, tool: str, arguments: dict[str, Any]) -> McpAnswer:
        """One tool call, bounded by the server's timeout; a failure raises McpCallError in one line."""
        conn = self._connections.get(server)
        if conn is None or conn.client is None:
            raise McpCallError(f"mcp server '{server}' is not connected in this run")
        if conn.failure is not None:
            raise McpCallError(f"mcp server '{server}' stopped answering: {_one_line(conn.failure)}")
        timeout = conn.server.timeout
        future = asyncio.run_coroutine_threadsafe(
            conn.client.call_tool(tool, arguments, read_timeout_seconds=timeout), self._loop
        )
        try:
            result = future.result(timeout=timeout + 1)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise McpCallError(f"{tool_name(server, tool)}: no answer within {timeout:g}s") from None
        except Exception as exc:
            raise McpCallError(f"{tool_name(server, tool)}: {_one_line(exc)}") from None
        return answer_text(result)

    def close(self) -> None:
        """End every session (a stdio server's process with it), then the loop."""
        for conn in self._connections.values():
            if conn.client is not None and conn.stop is not None:
                self._loop.call_soon_threadsafe(conn.stop.set)  # leaves the session the way it was entered
            elif conn.task is not None:
                conn.task.cancel()  # still connecting (a server that never answered): its transport ends it
        for conn in self._connections.values():
            if conn.task is not None and not conn.finished.wait(CLOSE_SECONDS):
                conn.task.cancel()
                conn.finished.wait(CLOSE_SECONDS)
            if conn.errlog is not None:
                conn.errlog.close()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=CLOSE_SECONDS)
        if not self._thread.is_alive():
            self._loop.close()

    def __enter__(self) -> McpHub:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def _one_line(exc: BaseException) -> str:
    """An exception (or the first leaf of an exception group) as one line."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[:ERROR_CHARS]


# ---- results as sources ------------------------------------------------------------------------


@dataclass(frozen=True)
class McpResult:
    source_id: str
    tool: McpTool
    title: str
    kind: str
    text: str  # the stored snapshot (the first answer to this call, when it was made before)
    flags: tuple[dict[str, Any], ...] = field(default_factory=tuple)
    new: bool = True
    skipped: int = 0


class McpSources:
    """MCP calls for research branches: every answer with text is registered as a source before it is shown."""

    def __init__(self, hub: McpHub, registry: SourceRegistry):
        self.hub = hub
        self.registry = registry

    def tools(self) -> list[McpTool]:
        return self.hub.tools()

    def call(self, qualified: str, arguments: dict[str, Any], *, question_id: str | None = None) -> McpResult:
        tool = self.hub.tool(qualified)
        if tool is None:
            raise McpCallError(f"{qualified}: no such MCP tool in this run")
        server = self.hub.servers[tool.server]
        answer = self.hub.call(tool.server, tool.name, arguments)
        if answer.error:
            raise McpCallError(
                f"{qualified}: the tool reported an error: {' '.join(answer.text.split())[:ERROR_CHARS]}"
            )
        if not answer.text.strip():
            raise McpCallError(f"{qualified}: the tool returned no text; nothing was stored")
        canonical = canonical_arguments(arguments)
        digest = sha256_text(canonical)
        safe_tool = re.sub(r"[^A-Za-z0-9_.-]", "_", tool.name)
        shown = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in sorted(arguments.items()))
        title = f"{tool.server}/{tool.name}({shown})"
        if len(title) > TITLE_CHARS:
            title = title[: TITLE_CHARS - 1] + "…"
        reg = self.registry.register(
            text=answer.text,
            title=title,
            path=f"{source_name(tool.server)}/{safe_tool}/{digest[:12]}",
            tool=SOURCE,
            question_id=question_id,
            kind=server.kind,
            mcp={"server": tool.server, "tool": tool.name, "arguments_sha256": digest, "arguments": arguments},
        )
        text = answer.text if reg.new else self.registry.text(reg.source_id)
        return McpResult(reg.source_id, tool, reg.title, reg.kind, text, reg.flags, reg.new, answer.skipped)
