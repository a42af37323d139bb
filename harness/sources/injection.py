"""Spotting instruction-like text in sources: it is flagged for the Reviewer, never obeyed."""

from __future__ import annotations

import re

_ADDRESSEE = r"(?:assistant|agent|ai|llm|model|language\s+model|researcher|writer)s?"
_PATTERNS = [
    # "ignore previous instructions" and its variants
    r"\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|the\s+|your\s+)?(?:previous|prior|above|earlier|preceding|former)\s+(?:instructions?|prompts?|rules?|directions?|context)",
    r"\b(?:ignore|disregard)\s+(?:all\s+|your\s+)(?:instructions?|rules?|guidelines)\b",
    r"\byou\s+are\s+now\s+(?:a|an|the|in)\s+\w+",
    r"\b(?:new|updated|real)\s+(?:system\s+)?instructions?\s*:",
    # requests to reveal the prompt
    r"\b(?:reveal|print|show|output|repeat|leak)\s+(?:me\s+)?(?:your|the)\s+(?:system\s+)?(?:prompt|instructions)\b",
    # requests to write files or call tools, addressed to the agent
    r"\b(?:call|use|invoke)\s+(?:the\s+)?(?:write_file|edit_file|fetch_url|web_search)\b",
    r"\b"
    + _ADDRESSEE
    + r"\s+(?:must|should|need\s+to|are\s+required\s+to)\s+(?:now\s+)?(?:write|create|save|delete|overwrite)\s+(?:\w+\s+){0,4}?files?\b",
    # requests to visit URLs, addressed to the agent
    r"\b"
    + _ADDRESSEE
    + r"\s+(?:must|should|need\s+to)\s+(?:now\s+)?(?:visit|open|fetch|browse|go\s+to|navigate\s+to)\b",
    r"\b(?:send|post|upload|exfiltrate|email)\s+(?:the\s+|your\s+|all\s+)?(?:api\s+keys?|secrets?|credentials?|passwords?)\b",
    # instructions about what the report must say
    r"\b"
    + _ADDRESSEE
    + r"\s+(?:reading\s+this\s+)?(?:must|should)\s+(?:always\s+|now\s+)?(?:recommend|say|state|conclude|report|answer)\b",
]
_REGEX = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), re.IGNORECASE)


def find_injections(text: str, limit: int = 20) -> list[dict[str, object]]:
    """Instruction-like passages: [{'code': 'injection_suspected', 'excerpt': ..., 'offset': ...}]."""
    flags = []
    for m in _REGEX.finditer(text):
        start = max(0, m.start())
        end = min(len(text), m.end() + 60)
        excerpt = " ".join(text[start:end].split())
        flags.append({"code": "injection_suspected", "excerpt": excerpt[:200], "offset": m.start()})
        if len(flags) >= limit:
            break
    return flags


def flagged_spans(record: dict, text: str) -> list[tuple[int, int]]:
    """The spans of a source's snapshot that no card may quote, from its record's flags: the whole paragraph
    around each flag (injected advice often follows its trigger by a sentence or two)."""
    spans = []
    for flag in record.get("flags", []):
        offset = flag["offset"]
        start, end = text.rfind("\n\n", 0, offset), text.find("\n\n", offset)
        spans.append((0 if start < 0 else start + 2, len(text) if end < 0 else end))
    return spans
