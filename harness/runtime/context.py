"""What an agent is handed: guarded workspace access, its tools, and its budget.

Everything an agent does goes through here, whatever its engine, so the same guards
apply to the offline engine, to an LLM subagent and to a user's own class: the role's
read/write globs, the artifact schemas and cross-file checks, the write-retry bound,
and the per-delegation, per-role and per-run budgets.

It also does the mechanical work of provenance for the agent: `record_evidence` finds a
quote in the stored snapshot, stores the snapshot's own text and span, and names the
card; `check_draft` runs the Reviewer's deterministic checks on request.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import InitVar, dataclass, field
from pathlib import Path
from typing import Any

from harness.contract.globs import matches
from harness.contract.layout import PLAN, card_path, id_of, new_card_id, question_cards, snapshot_path
from harness.contract.quotes import Located, closest_passage, locate_quote, normalize_ws
from harness.contract.specs import AgentSpec
from harness.errors import ArtifactInvalid, HarnessError, PathRefused, PermissionRefused
from harness.runtime.budget import DelegationBudget
from harness.runtime.interface import Brief
from harness.sources.mcp import source_name
from harness.workspace.paths import normalize_relpath
from harness.workspace.store import ArtifactRecord, Workspace

DEFAULT_WRITE_RETRIES = 3
CLOSEST_CHARS = 300  # how much of the closest passage a refused quote's error shows


class WriteRetriesExhausted(HarnessError):
    """An agent kept writing invalid or forbidden content to one file past its retry bound."""


class QuoteNotFound(HarnessError):
    """A quote handed to `record_evidence` is not in the source's stored text (the error says what is closest)."""


@dataclass
class AgentContext:
    workspace: InitVar[Workspace]  # kept private: every access goes through the role's guards below
    spec: AgentSpec
    brief: Brief
    engine: str
    model: str | None
    run_id: str
    budget: DelegationBudget
    tools: Any = None  # ResearchTools for the researcher, else None
    web: Any = None  # WebTools when the web extra is enabled and the plan allows it
    mcp: Any = None  # McpSources when the run names MCP servers and the spec lists `mcp`
    transforms: list[Callable[[str, Any], Any]] = field(default_factory=list)
    outputs: dict[str, str] = field(default_factory=dict)  # path -> sha256 written in this delegation
    errors: list[str] = field(default_factory=list)  # refused writes, in order
    retries: int = 0  # refused writes the agent went on to retry
    provider_retries: int = 0  # model calls retried after a provider fault (llm engine)
    provider_errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the harness did for the agent (traced with the delegation)
    _write_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _refused: dict[str, int] = field(default_factory=dict, repr=False)  # file (or evidence target) -> refusals
    tokens: int = 0
    thinking_tokens: int = 0  # of `tokens`, what the model spent thinking (when the provider reports it)
    llm_calls: int = 0

    def __post_init__(self, workspace: Workspace) -> None:
        self._workspace = workspace

    @property
    def role(self) -> str:
        return self.spec.role

    @property
    def write_retries(self) -> int:
        """Refusals one file may get; the next refusal of that same file ends the step."""
        return int(self.spec.limits.get("write_retries", DEFAULT_WRITE_RETRIES))

    # ---- workspace ---------------------------------------------------------------

    @property
    def root(self) -> Path:
        """The run folder, for an engine that mounts it through its own guarded backend (the llm engine's
        FilesystemBackend, under permission rules derived from this spec). Never read or write it directly."""
        return self._workspace.root

    def read_text(self, rel: str) -> str:
        return self._workspace.read_text(rel, self.spec.policy)

    def read_json(self, rel: str) -> Any:
        return self._workspace.read_json(rel, self.spec.policy)

    def list(self, pattern: str) -> list[str]:
        return self._workspace.list(pattern, self.spec.policy)

    def exists(self, rel: str) -> bool:
        return self.spec.policy.may_read(rel) and self._workspace.exists(rel)

    def write(self, rel: str, content: Any) -> ArtifactRecord:
        """Write through the workspace guards; a refused write counts against its file's retry bound."""
        try:
            rel = normalize_relpath(rel)  # transforms and checks see the path the workspace will use
            if self.spec.policy.may_write(rel) and not self.declared(rel):
                raise PermissionRefused(
                    f"{rel}: not an output of this step (the brief names {', '.join(self.brief.outputs) or 'none'})"
                )
            for transform in self.transforms:
                content = transform(rel, content)
            record = self._workspace.write(rel, content, self.spec.policy)
        except (ArtifactInvalid, PermissionRefused, PathRefused) as exc:
            self.refused(rel, exc)
            raise
        self.outputs[record.path] = record.sha256
        return record

    def refused(self, target: str, exc: Exception) -> None:
        """Count one refusal of `target` (a file, or what an evidence call aimed at); past the bound the step ends."""
        with self._write_lock:  # parallel tool calls must not overshoot the bound
            self.errors.append(str(exc))
            n = self._refused[target] = self._refused.get(target, 0) + 1
            if n <= self.write_retries:
                self.retries += 1
        if n > self.write_retries:
            raise WriteRetriesExhausted(
                f"{self.role}: {target} was refused {n} times (limit {self.write_retries}); last: {exc}"
            ) from exc

    def declared(self, rel: str) -> bool:
        """Is `rel` one of the outputs the brief names? A role may write only this step's outputs,
        not everything its spec's globs allow (a Writer never rewrites a reviewed draft)."""
        if not self.brief.outputs:
            return True
        return matches(rel, [p + "**" if p.endswith("/") else p for p in self.brief.outputs])

    def missing_outputs(self) -> list[str]:
        """The brief's outputs this step has not written (a glob counts as written once one file matches it)."""
        globs = {p: p + "**" if p.endswith("/") else p for p in self.brief.outputs}
        return [p for p, glob in globs.items() if not any(matches(rel, [glob]) for rel in self.outputs)]

    # ---- budget --------------------------------------------------------------------

    def before_llm_call(self, estimated_tokens: int) -> dict[str, float]:
        """Refuse a model call that could take any budget over its limit; otherwise hold its estimate (returned:
        hand it to `after_llm_call`, or to `release` when the call never happened)."""
        return self.budget.reserve({"llm_calls": 1, "tokens": estimated_tokens})

    def after_llm_call(self, tokens: int, thinking: int = 0, held: dict[str, float] | None = None) -> None:
        self.llm_calls += 1
        self.tokens += tokens
        self.thinking_tokens += thinking
        self.budget.settle(held or {}, {"llm_calls": 1, "tokens": tokens})

    def release(self, held: dict[str, float]) -> None:
        """Give back what a call that was never made held."""
        self.budget.settle(held, {})

    def _spend_search(self, run: Callable[[], Any]) -> Any:
        """One search (or web fetch): held before it runs, charged once it answered, given back if it failed."""
        held = self.budget.reserve({"searches": 1})
        try:
            result = run()
        except BaseException:
            self.release(held)
            raise
        self.budget.settle(held, {"searches": 1})
        return result

    def check_deadline(self) -> None:
        self.budget.check_deadline()

    def budget_line(self) -> str:
        """What this step may still spend, in words: 'search 6 of 8; 21 model calls left'."""
        b = self.budget
        searches, calls = b.left("searches"), b.left("llm_calls")
        own = b.limits.get("searches")
        parts = []
        if own is not None:
            parts.append(f"search {b.spent['searches']} of {own}")
        if searches is not None and (own is None or searches < own - b.spent["searches"]):
            parts.append(f"{int(searches)} searches left")
        if calls is not None:
            parts.append(f"{int(calls)} model calls left")
        return "; ".join(parts)

    # ---- checks the harness runs on request ------------------------------------------

    def check_draft(self, draft: str, branches: dict[str, dict] | None = None, text: str | None = None) -> list[dict]:
        """The defects the Reviewer's deterministic checks find in `draft` (or in `text`, checked as if it were
        `draft`, before it is written): the same code the review runs."""
        from harness.evidence.checks import check_draft

        return check_draft(self._workspace.reader(cache=True), draft, branches, text=text)

    # ---- sources (Researcher) ------------------------------------------------------

    def question(self) -> dict[str, Any] | None:
        """This step's plan question (read through the role's own permission), or None."""
        if not self.brief.question_id or not self.exists(PLAN):
            return None
        plan = self.read_json(PLAN)
        return next(
            (q for q in plan.get("questions", []) if isinstance(q, dict) and q.get("id") == self.brief.question_id),
            None,
        )

    def refuse_unless_allowed(self, kind: str) -> None:
        """Refuse, before anything is spent, a `corpus` or `web` search the plan does not allow for this question."""
        question = self.question()
        allowed = question.get("allowed_sources") if question else None
        if allowed is not None and kind not in allowed:
            raise PermissionRefused(
                f"the plan allows {', '.join(allowed) or 'no'} sources for {self.brief.question_id}, not {kind}; "
                "nothing was spent"
            )

    def search(self, query: str, k: int = 5):
        if self.tools is None or "search" not in self.spec.tools:
            raise PermissionRefused(f"{self.role}: the search tool is not in this agent's spec")
        self.refuse_unless_allowed("corpus")
        return self._spend_search(lambda: self.tools.search(query, k, question_id=self.brief.question_id))

    def web_policy(self):
        """The question's domain policy: its allowed domains (none listed: the open web), minus its blocked ones."""
        from harness.sources.web import WebPolicy

        q = self.question() or {}
        return WebPolicy(tuple(q.get("allowed_domains") or ()), tuple(q.get("blocked_domains") or ()))

    def _web_tools(self, tool: str):
        if tool not in self.spec.tools:
            raise PermissionRefused(f"{self.role}: the {tool} tool is not in this agent's spec")
        if self.web is None:
            raise PermissionRefused(f"{tool}: web access is not enabled for this run (research run --web turns it on)")
        self.refuse_unless_allowed("web")
        return self.web

    def web_search(self, query: str, k: int = 5) -> list[dict[str, str]]:
        web = self._web_tools("web_search")
        return self._spend_search(lambda: web.web_search(query, max(1, min(int(k), 10)), self.web_policy()))

    def fetch_url(self, url: str):
        web = self._web_tools("fetch_url")
        policy = self.web_policy()
        policy.check(url)  # a host the plan does not allow is refused before anything is spent
        return self._spend_search(lambda: web.fetch_url(url, policy, question_id=self.brief.question_id))

    def mcp_allowed(self, server: str) -> bool:
        """May this step call `server`'s tools? Only when its plan question lists `mcp:<server>` explicitly."""
        question = self.question() or {}
        return (
            self.mcp is not None
            and "mcp" in self.spec.tools
            and source_name(server) in (question.get("allowed_sources") or ())
        )

    def mcp_tools(self) -> list:
        """The MCP tools this step may call (those of the servers its question allows)."""
        if self.mcp is None or "mcp" not in self.spec.tools:
            return []
        return [t for t in self.mcp.tools() if self.mcp_allowed(t.server)]

    def mcp_call(self, tool: str, arguments: dict[str, Any]):
        """Call an MCP tool (`mcp_<server>_<tool>`) and register its answer as a source; one search of the budget.
        Refused, before anything is spent, when the spec has no `mcp` or the question does not allow the server."""
        if self.mcp is None or "mcp" not in self.spec.tools:
            raise PermissionRefused(f"{self.role}: MCP tools are not in this agent's spec (or the run names no server)")
        found = next((t for t in self.mcp.tools() if t.qualified == tool), None)
        if found is None:
            raise PermissionRefused(f"{tool}: no such MCP tool in this run")
        if not self.mcp_allowed(found.server):
            allowed = (self.question() or {}).get("allowed_sources") or []
            raise PermissionRefused(
                f"the plan allows {', '.join(allowed) or 'no'} sources for {self.brief.question_id}, not "
                f"{source_name(found.server)}; nothing was spent"
            )
        return self._spend_search(lambda: self.mcp.call(tool, arguments, question_id=self.brief.question_id))

    def read_source(self, source_id: str, offset: int = 0, length: int = 2000):
        if self.tools is None or "read_source" not in self.spec.tools:
            raise PermissionRefused(f"{self.role}: the read_source tool is not in this agent's spec")
        self.check_deadline()
        return self.tools.read_source(source_id, offset, length)

    def record_evidence(
        self,
        source_id: str,
        quote: str,
        summary: str,
        confidence: str,
        limitations: list[str] | None = None,
        hint: int | None = None,
    ) -> tuple[str, Located, bool]:
        """Write an evidence card for this step's question: the harness finds the quote in the source's stored
        text, stores that text and its true span, and names the card. `hint` (a start offset the agent believes)
        only breaks ties. Returns (card id, where the quote is, whether the card is new: the same quote recorded
        twice is one card). A quote not in the source raises QuoteNotFound naming the closest passage, and
        counts as a refusal of that source's evidence."""
        qid = self.brief.question_id
        if not qid:
            raise PermissionRefused(f"{self.role}: record_evidence needs a brief that names a plan question")
        target = f"evidence from {source_id}"
        try:
            text = self.read_text(snapshot_path(source_id))
        except HarnessError as exc:
            self.refused(target, exc)
            raise HarnessError(
                f"{source_id} is not a registered source (source ids come from search results)"
            ) from None
        located = locate_quote(text, quote, hint)
        if located is None:
            exc = QuoteNotFound(_not_found(source_id, text, quote))
            self.refused(target, exc)
            raise exc
        cards = self._workspace.reader()  # the question's cards, read by the harness (a Researcher may not read them)
        existing = cards.list(question_cards(qid))
        for rel in existing:
            card = cards.read_json(rel) or {}
            if card.get("source_id") == source_id and card.get("span") == {"start": located.start, "end": located.end}:
                # the same evidence again (e.g. a branch run anew after its budget was raised): one card, and it
                # counts as this step's evidence
                self.outputs.setdefault(rel, self._workspace.sha256(rel) or "")
                return id_of(rel), located, False
        prefix = new_card_id(qid, source_id, 0)[:-1]
        taken = [int(n) for rel in existing if (n := id_of(rel).removeprefix(prefix)).isdigit()]
        card_id = new_card_id(qid, source_id, max(taken, default=0) + 1)
        card = {
            "card_id": card_id,
            "source_id": source_id,
            "question_id": qid,
            "quote": located.text,
            "span": {"start": located.start, "end": located.end},
            "evidence_summary": summary,
            "confidence": confidence,
            "limitations": list(limitations or []),
            "extracted_by": {"role": self.role, "engine": self.engine, "model": self.model},
            "run_id": self.run_id,
        }
        self.write(card_path(card_id), card)
        if located.how != "exact":
            self.notes.append(f"{card_id}: quote located by {located.how} at {located.start}..{located.end}")
        return card_id, located, True


def _not_found(source_id: str, text: str, quote: str) -> str:
    where = closest_passage(text, quote)
    head = f"quote not found in {source_id} ({len(text)} characters): its words do not occur there in this order"
    if where is None:
        return head
    start, end, score = where
    shown = normalize_ws(text[start:end])[:CLOSEST_CHARS]
    return (
        f'{head}. The closest passage is at {start}..{end} ({score:.0f}% alike): "{shown}". '
        "Quote the source's words exactly (you may drop Markdown marks), or read it with read_source."
    )
