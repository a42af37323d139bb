"""robots.txt, respected by default (`fetch.robots: false` in research.yaml, or `--web-ignore-robots`, turns it off).

One robots.txt per origin (scheme, host, port), read once per run through the same guarded client as
the pages, and parsed by the standard library's `urllib.robotparser`. What an unreadable robots.txt
means follows RFC 9309: a 4xx (none there) allows everything; a 5xx or a failed request disallows
everything, since the site may be saying "not now".
"""

from __future__ import annotations

import threading
from urllib.parse import urlsplit, urlunsplit
from urllib.robotparser import RobotFileParser

import httpx

ROBOTS_MAX_BYTES = 500_000  # RFC 9309 asks crawlers to read at least 500 KiB; more is ignored
AGENT = "research-harness"


class RobotsRules:
    """The robots.txt verdicts of one run, cached per origin; safe to share between threads."""

    def __init__(self, agent: str = AGENT):
        self.agent = agent
        self._lock = threading.Lock()
        self._parsers: dict[str, RobotFileParser] = {}

    def allowed(self, client: httpx.Client, url: str) -> bool:
        origin = _origin(url)
        with self._lock:
            parser = self._parsers.get(origin)
        if parser is None:
            parser = self._read(client, origin)
            with self._lock:
                parser = self._parsers.setdefault(origin, parser)
        return parser.can_fetch(self.agent, url)

    def _read(self, client: httpx.Client, origin: str) -> RobotFileParser:
        parser = RobotFileParser(origin + "/robots.txt")
        try:
            with client.stream("GET", origin + "/robots.txt") as resp:
                status = resp.status_code
                body = b""
                if status == 200:
                    for chunk in resp.iter_bytes():
                        body += chunk
                        if len(body) >= ROBOTS_MAX_BYTES:
                            break
        except httpx.HTTPError:
            status = 503  # unreachable: treated as a server error
        if 200 <= status < 300:
            parser.parse(body[:ROBOTS_MAX_BYTES].decode("utf-8", errors="replace").splitlines())
        elif status >= 500:
            parser.disallow_all = True  # type: ignore[attr-defined]  # robotparser's own flag, not in typeshed
        else:  # 3xx not followed, 4xx: no robots.txt, everything allowed
            parser.allow_all = True  # type: ignore[attr-defined]  # robotparser's own flag, not in typeshed
        return parser


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), "", "", ""))
