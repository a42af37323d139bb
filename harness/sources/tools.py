"""The Researcher's source tools: `search` and `read_source` (plus the web tools when enabled).

The tool, never the model, registers every document it returns and assigns its source
id. Text from sources is wrapped in clear delimiters, because it is data from the
outside world, never instructions.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from harness.contract.quotes import find_quote
from harness.errors import HarnessError
from harness.sources.index import CorpusIndex
from harness.sources.registry import SourceRegistry

OPEN, CLOSE = "<<<SOURCE", "SOURCE>>>"


class ToolError(HarnessError):
    """A tool call the tool refuses (unknown source, bad offset); the message goes back to the caller."""


@dataclass(frozen=True)
class SearchHit:
    source_id: str
    title: str
    path: str
    kind: str
    start: int  # offsets of the passage in the source snapshot
    end: int
    text: str
    score: float
    flagged: bool


@dataclass(frozen=True)
class SourceSlice:
    source_id: str
    offset: int
    end: int
    total: int
    text: str


def wrap(source_id: str, text: str, **attrs: object) -> str:
    """Delimit source text so prompts can never mistake it for instructions."""
    head = " ".join([OPEN, source_id] + [f"{k}={v!r}" if isinstance(v, str) else f"{k}={v}" for k, v in attrs.items()])
    body = text.replace(OPEN, "<<SOURCE").replace(CLOSE, "SOURCE>>")
    return f"{head}\n{body}\n{CLOSE}"


class ResearchTools:
    """Search and read sources for one run; shared by all research branches."""

    def __init__(
        self, index: CorpusIndex | None, registry: SourceRegistry, charge: Callable[[str], None] | None = None
    ):
        self.index = index
        self.registry = registry
        self._charge = charge or (lambda _what: None)
        self._searched: dict[str | None, set[str]] = {}  # question id -> source ids its searches returned
        self._lock = threading.Lock()

    def search(self, query: str, k: int = 5, *, question_id: str | None = None) -> list[SearchHit]:
        """BM25 search of the local corpus; every document returned is registered as a source."""
        if not query or not query.strip():
            raise ToolError("search: the query is empty")
        k = max(1, min(int(k), 20))
        if self.index is None:
            raise ToolError("search: no local corpus is configured for this run")
        self._charge("searches")
        corpus = self.index.corpus
        out = []
        for hit in self.index.search(query, k):
            doc = corpus.documents[hit.doc]
            reg = self.registry.register(
                text=doc.text,
                title=doc.title,
                path=doc.path,
                corpus=corpus.name,
                tool="search",
                query=query,
                question_id=question_id,
            )
            start, end, text = hit.start, hit.end, doc.text[hit.start : hit.end]
            record = self.registry.record(reg.source_id) or {}
            if not reg.new and record.get("sha256") != doc.sha256:
                # Registered earlier with other text (the file changed before a resume): the
                # offsets must point into the stored snapshot, so find the passage there.
                stored = self.registry.text(reg.source_id)
                span = find_quote(stored, text)
                if span is None:
                    continue  # the stored version of this source does not have the passage
                start, end = span
                text = stored[start:end]
            out.append(
                SearchHit(reg.source_id, doc.title, doc.path, reg.kind, start, end, text, hit.score, bool(reg.flags))
            )
        with self._lock:
            self._searched.setdefault(question_id, set()).update(h.source_id for h in out)
        return out

    def searched(self, question_id: str | None) -> set[str]:
        """Source ids the searches of one research branch returned (for duplicate counting at fan-in)."""
        with self._lock:
            return set(self._searched.get(question_id, set()))

    def read_source(self, source_id: str, offset: int = 0, length: int = 2000) -> SourceSlice:
        """A window of a registered source's snapshot."""
        if self.registry.record(source_id) is None:
            raise ToolError(
                f"read_source: {source_id} is not a registered source (source ids come from search results)"
            )
        text = self.registry.text(source_id)
        offset = max(0, int(offset))
        if offset > len(text):
            raise ToolError(f"read_source: offset {offset} is past the end of {source_id} ({len(text)} characters)")
        end = min(len(text), offset + max(1, min(int(length), 8000)))
        return SourceSlice(source_id, offset, end, len(text), text[offset:end])

    @staticmethod
    def format_hits(hits: list[SearchHit]) -> str:
        if not hits:
            return "No passages matched. Try other words (names, identifiers, exact phrases)."
        return "\n\n".join(
            wrap(
                h.source_id,
                h.text,
                title=h.title,
                path=h.path,
                kind=h.kind,
                start=h.start,
                end=h.end,
                **({"flag": "suspicious-instructions"} if h.flagged else {}),
            )
            for h in hits
        )

    @staticmethod
    def format_slice(s: SourceSlice) -> str:
        return wrap(s.source_id, s.text, start=s.offset, end=s.end, total=s.total)
