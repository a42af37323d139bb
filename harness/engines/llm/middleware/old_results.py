"""`shorten_old_results`: as a conversation grows, earlier source-tool results shrink to what names them.

Every model call resends the whole conversation, so a page fetched early is paid for again by every later
call. Once the conversation passes a size (`SHORTEN_AFTER` tokens), each result of `fetch_url`,
`web_search`, `search` and `read_source` older than the last `KEEP` tool results is replaced by one line
per source it showed: its id, title, the span it showed and the source's length, and how to see it again
(`read_source`). Nothing is lost: the sources stay stored, quotes are located in their snapshots, and the
model's own calls (what it asked for) stay. This is langchain's `ContextEditingMiddleware` (the library's
context-editing hook, run before every model call on a copy of the messages) with our edit: langchain's
own `ClearToolUsesEdit` would leave a fixed placeholder and lose the source ids.
"""

from __future__ import annotations

import re
from typing import Any

from langchain_core.messages import ToolMessage

SHORTEN_AFTER = 2_500  # tokens of conversation (about 10,000 characters; the system prompt aside) before shortening
KEEP = 3  # the most recent tool results stay whole (langchain's own default)
SOURCE_TOOLS = ("fetch_url", "web_search", "search", "read_source")
_HEAD = re.compile(r"<<<SOURCE (\S+)([^\n]*)")
_ATTR = re.compile(r"(title|url|start|end|total)=('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|\d+)")
MARK = "[shortened: an earlier result]"


def shortened(name: str, content: str) -> str:
    """One line per source a result showed, and how to see it again."""
    lines = []
    for m in _HEAD.finditer(content):
        sid, attrs = m.group(1), dict(_ATTR.findall(m.group(2)))
        where = f" {attrs['start']}-{attrs['end']}" if "start" in attrs else ""
        size = f" of {attrs['total']}" if "total" in attrs else ""
        label = " ".join(attrs[k] for k in ("title", "url") if attrs.get(k))
        lines.append(f"- {sid} {label}{where}{size}".rstrip())
    again = "read_source(source_id, offset) shows a source again"
    listed = ("\n" + "\n".join(dict.fromkeys(lines))) if lines else ""
    return f"{MARK} {name} showed:{listed}\n({again}.)"


class ShortenOldResults:
    """A `ContextEdit` (langchain's protocol): shortens old source-tool results past a conversation size."""

    def __init__(self, trigger: int = SHORTEN_AFTER, keep: int = KEEP, tools: tuple[str, ...] = SOURCE_TOOLS):
        self.trigger, self.keep, self.tools = trigger, keep, tools

    def apply(self, messages: list[Any], *, count_tokens) -> None:
        if count_tokens(messages) <= self.trigger:
            return
        # Only results that showed sources count toward the KEEP most recent: a refusal ("No search was made")
        # or a record_evidence reply must not push the last real passages out of view.
        showing = [i for i, m in enumerate(messages) if _shows_sources(m, self.tools)]
        for i in showing[: max(0, len(showing) - self.keep)]:
            msg = messages[i]
            messages[i] = msg.model_copy(update={"content": shortened(msg.name, msg.content)})


def _shows_sources(msg: Any, tools: tuple[str, ...]) -> bool:
    """A whole (not yet shortened) source-tool result that showed at least one source."""
    content = msg.content if isinstance(msg, ToolMessage) and isinstance(msg.content, str) else ""
    return (
        (msg.name in tools if content else False)
        and msg.status != "error"
        and not content.startswith(MARK)
        and bool(_HEAD.search(content))
    )


def shorten_old_results(**kw: Any):
    from langchain.agents.middleware import ContextEditingMiddleware

    return ContextEditingMiddleware(edits=[ShortenOldResults(**kw)])
