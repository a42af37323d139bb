"""The optional web tools: `web_search` and `fetch_url`, fenced in by the plan's domain policy.

Everything the web returns is untrusted, so fetching is deliberately narrow, one concern per module:

- `policy`: only http(s), only hosts the plan allows, checked on every redirect hop;
- `addresses`: no private, loopback or link-local address, after DNS resolution and on every hop,
  connecting to the very address checked (unless the run allows private addresses);
- `robots`: robots.txt respected by default;
- `download`: size and time caps, a per-host concurrency limit, compressed responses;
- `pages`: HTML (trafilatura), PDF (the corpus's own reader) and plain text, charset detection, and
  pages with no readable text (JavaScript-only, login walls, errors) refused, never registered;
- `boilerplate`: cookie banners, navigation and footers kept out of snapshots;
- `cache`: pages kept across runs by normalized URL, with a time-to-live;
- `tools`: `WebTools`, which registers what it fetched through `SourceRegistry.register`.

Needs the `web` extra (ddgs, httpx, trafilatura and what they need); `extractor_missing` says what
is not installed, so `--web` is refused at preflight rather than at the first fetch.
"""

from __future__ import annotations

import importlib
from typing import Any

# Loaded on first use, so `harness.sources.web.preflight` can say what is missing when httpx or
# trafilatura is not installed (importing this package must not need them).
_EXPORTS = {
    "FetchResult": "tools",
    "WebTools": "tools",
    "WebPolicy": "policy",
    "WebRefused": "policy",
    "extractor_missing": "preflight",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(name)
    return getattr(importlib.import_module(f"harness.sources.web.{_EXPORTS[name]}"), name)
