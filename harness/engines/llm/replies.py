"""What a model's reply says once its reasoning is set aside.

Open models (Qwen, DeepSeek-R1 distills, ...) served by vLLM or Ollama often put their reasoning
in the text itself, `<think>…</think>` before the answer, or leave the block unclosed when the
reply is cut off. A reply is read as a status (`BLOCKED: …`) or as a document (a plan, a draft)
only after `strip_reasoning`, so the block never decides a step's status nor lands in a file.
"""

from __future__ import annotations

import re

_TAGS = "think|thinking|reasoning|thought"
_BLOCK = re.compile(rf"<({_TAGS})>.*?</\1>", re.S | re.I)
_UNCLOSED = re.compile(rf"<({_TAGS})>.*\Z", re.S | re.I)  # a block the reply was cut off in
_STRAY_CLOSE = re.compile(rf"\A.*?</({_TAGS})>", re.S | re.I)  # the opening tag was in the chat template


def strip_reasoning(text: str) -> str:
    """`text` without its reasoning blocks, stripped ('' when it held nothing else)."""
    if not text or "<" not in text:
        return (text or "").strip()
    out = _BLOCK.sub("", text)
    out = _STRAY_CLOSE.sub("", out) if not _BLOCK.search(text) and _STRAY_CLOSE.search(out) else out
    return _UNCLOSED.sub("", out).strip()
