"""The source registry: the only place source ids are made and snapshots are stored.

A tool that finds a document calls `register`; the registry derives the id from the
normalized locator (URL or corpus path), deduplicates by locator and by content hash,
flags instruction-like sentences (and keeps them out of the title: a title that repeats one
is replaced by the locator), merges the same paper found by two providers (by its work's keys: DOI, arXiv
id, normalized title; `contract/works.work_keys`) into one source, classifies the source as primary or secondary by the
configured rules, and writes `sources/<id>.txt` then `sources/<id>.json` through the
workspace API as the `tools` role. A model never names a source into existence.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from harness.contract.formats import now_iso, sha256_text
from harness.contract.globs import matches
from harness.contract.layout import SOURCE_RECORDS, snapshot_path, source_record_path
from harness.contract.policy import TOOLS
from harness.contract.works import csl_item, work_keys
from harness.sources.injection import find_injections, repeats_flagged
from harness.sources.urls import domain_matches, host_of, normalize_path, normalize_url
from harness.workspace.store import Workspace


@dataclass(frozen=True)
class KindRules:
    """Which sources count as primary. First matching rule wins; then the defaults apply."""

    secondary_paths: tuple[str, ...] = ("**/secondary/**", "**/blog/**", "**/blogs/**", "**/forum/**")
    primary_paths: tuple[str, ...] = ()
    primary_domains: tuple[str, ...] = ()
    secondary_domains: tuple[str, ...] = ()
    local_default: str = "primary"
    web_default: str = "secondary"
    paper_default: str = "primary"

    def kind_for(
        self, *, path: str | None = None, url: str | None = None, official: tuple[str, ...] = (), paper: bool = False
    ) -> str:
        """`official`: the domains the plan marks as primary (`primary_domains`), beside the configured ones; a
        configured secondary domain still wins. A `paper` (a literature provider's work: original research, as its
        authors reported it) is `paper_default` wherever its text was fetched from, unless a secondary domain."""
        if url is not None:
            host = host_of(url)
            if any(domain_matches(host, d) for d in self.secondary_domains):
                return "secondary"
            if paper:
                return self.paper_default
            if any(domain_matches(host, d) for d in (*self.primary_domains, *official)):
                return "primary"
            return self.web_default
        assert path is not None
        if self.secondary_paths and matches(path, self.secondary_paths):
            return "secondary"
        if self.primary_paths and matches(path, self.primary_paths):
            return "primary"
        return self.local_default

    @classmethod
    def from_config(cls, cfg: dict[str, Any] | None) -> KindRules:
        cfg = cfg or {}
        base = cls()
        return cls(
            secondary_paths=tuple(cfg.get("secondary_paths", base.secondary_paths)),
            primary_paths=tuple(cfg.get("primary_paths", base.primary_paths)),
            primary_domains=tuple(cfg.get("primary_domains", base.primary_domains)),
            secondary_domains=tuple(cfg.get("secondary_domains", base.secondary_domains)),
            local_default=cfg.get("local_default", base.local_default),
            web_default=cfg.get("web_default", base.web_default),
            paper_default=cfg.get("paper_default", base.paper_default),
        )


@dataclass(frozen=True)
class Registered:
    source_id: str
    kind: str
    title: str
    new: bool  # False when the locator or the content was already registered
    flags: tuple[dict[str, Any], ...] = field(default_factory=tuple)


def _qkey(question_id: str | None) -> int:
    return int(question_id[1:]) if question_id and question_id[1:].isdigit() else 10**6


def source_id_for(locator_key: str) -> str:
    return "src-" + sha256_text(locator_key)[:12]


def locator_key(*, url: str | None = None, path: str | None = None, corpus: str | None = None) -> str:
    if url is not None:
        return "url:" + normalize_url(url)
    return f"path:{corpus or ''}:{normalize_path(path or '')}"


class SourceRegistry:
    """Registers sources for one run workspace; safe to share between parallel research branches."""

    def __init__(self, workspace: Workspace, rules: KindRules | None = None):
        self.workspace = workspace
        self.rules = rules or KindRules()
        self._lock = threading.Lock()
        self._by_locator: dict[str, str] = {}
        self._by_hash: dict[str, str] = {}
        self._by_work: dict[str, str] = {}  # a work key (doi:…, arxiv:…, title:…) -> its source id
        self._records: dict[str, dict[str, Any]] = {}
        for rel in workspace.list(SOURCE_RECORDS, TOOLS):
            record = workspace.read_json(rel, TOOLS)
            self._remember(record)

    def _remember(self, record: dict[str, Any]) -> None:
        sid = record["source_id"]
        self._records[sid] = record
        key = (
            locator_key(url=record["url"])
            if "url" in record
            else locator_key(path=record["path"], corpus=record.get("corpus"))
        )
        self._by_locator[key] = sid
        self._by_hash.setdefault(record["sha256"], sid)
        for wkey in work_keys(record.get("work") or {}):
            self._by_work.setdefault(wkey, sid)

    def register(
        self,
        *,
        text: str,
        title: str,
        url: str | None = None,
        path: str | None = None,
        corpus: str | None = None,
        tool: str = "search",
        query: str | None = None,
        question_id: str | None = None,
        retrieved_at: str | None = None,
        web: dict[str, Any] | None = None,
        kind: str | None = None,
        mcp: dict[str, Any] | None = None,
        official: tuple[str, ...] = (),
        work: dict[str, Any] | None = None,
    ) -> Registered:
        """Register one document. A web source passes `web`, its provenance (`sources/web/tools.web_provenance`),
        and `retrieved_at`, when the page was downloaded (earlier than now when it came from the page cache).
        `kind` overrides the configured rules (an MCP server's configured kind); `mcp` is an MCP result's
        provenance (server, tool, arguments and their hash; `sources/mcp.py`); `official`, the web domains the plan
        marks as primary (`KindRules.kind_for`); `work`, a paper's scholarly identity (a literature provider's hit,
        with `abstract_only`), stored with its CSL-JSON item (`csl`). A work already registered under another URL
        (another provider) is that source; if the new provider says it is retracted, the record says so too."""
        if (url is None) == (path is None):
            raise ValueError("register needs exactly one of url= or path=")
        key = locator_key(url=url, path=path, corpus=corpus)
        digest = sha256_text(text)
        with self._lock:
            existing = self._by_locator.get(key) or self._same_work(work) or self._by_hash.get(digest)
            if existing is not None:
                self._by_locator.setdefault(key, existing)
                self._flag_retraction(existing, work)
                rec = self._records[existing]
                self._keep_first_origin(rec, tool, query, question_id)
                return Registered(existing, rec["kind"], rec["title"], False, tuple(rec["flags"]))
            sid = source_id_for(key)
            record: dict[str, Any] = {"source_id": sid}
            if url is not None:
                record["url"] = normalize_url(url)
                kind = kind or self.rules.kind_for(url=record["url"], official=official, paper=work is not None)
            else:
                assert path is not None  # exactly one of url= and path=, checked above
                record["path"] = normalize_path(path)
                kind = kind or self.rules.kind_for(path=record["path"])
            if corpus is not None:
                record["corpus"] = corpus
            if web is not None:
                record["web"] = web
            if mcp is not None:
                record["mcp"] = mcp
            if work is not None:
                record["work"] = work
                record["csl"] = csl_item(work, sid)
            flags = find_injections(text)
            if repeats_flagged(title, text, flags):
                title = ""  # a title never repeats instruction-like text: the locator stands in for it
            record.update(
                {
                    "title": title or (url or path or sid),
                    "retrieved_at": retrieved_at or now_iso(),
                    "sha256": digest,
                    "size": len(text),
                    "kind": kind,
                    "flags": flags,
                    "origin": {"tool": tool, "query": query, "question_id": question_id},
                }
            )
            self.workspace.write(snapshot_path(sid), text, TOOLS)
            self.workspace.write(source_record_path(sid), record, TOOLS)
            self._remember(record)
            return Registered(sid, kind, record["title"], True, tuple(flags))

    def _same_work(self, work: dict[str, Any] | None) -> str | None:
        """The source already registered for this paper, by its strongest shared key."""
        return next((self._by_work[k] for k in work_keys(work or {}) if k in self._by_work), None)

    def _flag_retraction(self, sid: str, work: dict[str, Any] | None) -> None:
        """A provider that says a registered paper is retracted is believed: the record is rewritten to say so."""
        rec = self._records[sid]
        if not (work and work.get("retracted")) or "work" not in rec or rec["work"].get("retracted"):
            return
        updated = {**rec, "work": {**rec["work"], "retracted": True}}
        self.workspace.write(source_record_path(sid), updated, TOOLS)
        self._records[sid] = updated

    def _keep_first_origin(self, rec: dict[str, Any], tool: str, query: str | None, question_id: str | None) -> None:
        """Record as origin the first (question, query) in plan order, not in time order.

        Parallel branches reach the same source in any order; ordering by question id keeps
        the source record identical from run to run.
        """
        old = rec.get("origin") or {}
        mine, theirs = (_qkey(question_id), query or ""), (_qkey(old.get("question_id")), old.get("query") or "")
        if old.get("tool") == tool and mine < theirs:
            updated = {**rec, "origin": {"tool": tool, "query": query, "question_id": question_id}}
            self.workspace.write(source_record_path(rec["source_id"]), updated, TOOLS)
            self._records[rec["source_id"]] = updated

    def record(self, source_id: str) -> dict[str, Any] | None:
        with self._lock:
            return self._records.get(source_id)

    def text(self, source_id: str) -> str:
        return self.workspace.read_text(snapshot_path(source_id), TOOLS)

    def ids(self) -> list[str]:
        with self._lock:
            return sorted(self._records)
