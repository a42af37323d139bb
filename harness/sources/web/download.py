"""One page download, bounded: redirects followed by hand so every hop is checked, size and time caps,
a per-host concurrency limit, robots.txt, and connections only to addresses the guard checked.

Each hop, before it is requested: the question's domain policy (`policy`), the private-address guard
(`addresses`), robots.txt (`robots`). Then the status and content type are checked before the body is
read, and the body is streamed (decompressed by httpx: gzip, deflate, and br and zstd with the `web`
extra's brotli and zstandard) and cut off past `max_bytes` or the total deadline.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from urllib.parse import urljoin

import httpx

from harness.contract.version import __version__
from harness.sources.urls import host_of
from harness.sources.web.addresses import AddressGuard, AddressRefused, GuardedTransport, url_port
from harness.sources.web.pages import ACCEPT_HEADER, ACCEPTED_TYPES
from harness.sources.web.policy import WebPolicy, WebRefused
from harness.sources.web.robots import RobotsRules

REDIRECTS = (301, 302, 303, 307, 308)
_STATUS_HINTS = {
    401: "the page needs a login",
    402: "the page is behind a paywall",
    403: "the server refuses this page (a login, or no automated clients)",
    404: "the page does not exist",
    410: "the page was removed",
    429: "the server is rate-limiting requests: try later or another source",
}


@dataclass(frozen=True)
class FetchLimits:
    timeout: float = 10.0  # seconds per request, and for reading one page's body in total
    max_bytes: int = 5_000_000  # of the body, decompressed
    max_redirects: int = 5
    per_host: int = 2  # requests in flight to one host at a time, across the run's parallel branches


@dataclass(frozen=True)
class Download:
    requested_url: str
    final_url: str
    hops: tuple[str, ...]
    status: int
    content_type: str
    body: bytes
    charset: str | None
    robots_checked: bool


class Downloader:
    """Downloads for one run; shared by its parallel research branches."""

    def __init__(
        self,
        limits: FetchLimits,
        guard: AddressGuard,
        robots: RobotsRules | None,
        transport: httpx.BaseTransport | None = None,
    ):
        self.limits = limits
        self.guard = guard
        self.robots = robots
        self.transport = transport  # tests and benchmarks may swap the network out
        self._hosts: dict[str, threading.BoundedSemaphore] = {}
        self._hosts_lock = threading.Lock()
        self._shared: httpx.Client | None = None

    def _host_slot(self, url: str) -> threading.BoundedSemaphore:
        key = f"{host_of(url)}:{url_port(url)}"
        with self._hosts_lock:
            return self._hosts.setdefault(key, threading.BoundedSemaphore(max(1, self.limits.per_host)))

    def _client(self) -> httpx.Client:
        """One client for the run (httpx clients are thread-safe): its connections and TLS set-up are reused."""
        with self._hosts_lock:
            if self._shared is None:
                headers = {"User-Agent": f"research-harness/{__version__}", "Accept": ACCEPT_HEADER}
                self._shared = httpx.Client(
                    follow_redirects=False,
                    timeout=self.limits.timeout,
                    headers=headers,
                    transport=self.transport or GuardedTransport(self.guard),
                )
            return self._shared

    def close(self) -> None:
        with self._hosts_lock:
            if self._shared is not None:
                self._shared.close()
                self._shared = None

    def get(self, url: str, policy: WebPolicy) -> Download:
        """The page at `url` (the URL as given: normalizing drops trailing slashes, and a server that
        redirects /docs to /docs/ would otherwise loop), or WebRefused saying why not."""
        current, hops = url, []
        client = self._client()
        for _hop in range(self.limits.max_redirects + 1):
            policy.check(current)
            hops.append(current)
            try:
                self.guard.check_url(current)
                if self.robots is not None and not self.robots.allowed(client, current):
                    raise WebRefused(
                        current, f"robots.txt of {host_of(current)} disallows this page; try another source"
                    )
                with self._host_slot(current), client.stream("GET", current) as resp:
                    if resp.status_code in REDIRECTS:
                        location = resp.headers.get("location")
                        if not location:
                            raise WebRefused(current, f"HTTP {resp.status_code} redirect without a Location")
                        current = urljoin(current, location)
                        continue
                    content_type, body, charset = self._read(current, resp)
                    return Download(
                        url, current, tuple(hops), resp.status_code, content_type, body, charset, bool(self.robots)
                    )
            except AddressRefused as exc:
                raise WebRefused(current, exc.reason) from None
            except httpx.TimeoutException:
                raise WebRefused(current, f"timed out after {self.limits.timeout:g}s") from None
            except httpx.HTTPError as exc:
                raise WebRefused(current, f"request failed ({type(exc).__name__}: {exc})") from None
        raise WebRefused(url, f"too many redirects (more than {self.limits.max_redirects})")

    def _read(self, url: str, resp: httpx.Response) -> tuple[str, bytes, str | None]:
        """Check status and type before reading, then stream the body and stop past max_bytes or the deadline."""
        if resp.status_code >= 400:
            hint = _STATUS_HINTS.get(resp.status_code) or (
                "the server failed: try later or another source" if resp.status_code >= 500 else ""
            )
            status = f"HTTP {resp.status_code} {resp.reason_phrase}".rstrip()
            raise WebRefused(url, f"{status}: {hint}; it is not a source" if hint else f"{status}; it is not a source")
        if not 200 <= resp.status_code < 300:
            raise WebRefused(url, f"unexpected HTTP status {resp.status_code}")
        content_type = resp.headers.get("content-type", "").split(";")[0].strip().lower()
        if content_type not in ACCEPTED_TYPES:
            raise WebRefused(url, f"content type {content_type or '(none)'} is not one of {', '.join(ACCEPTED_TYPES)}")
        limit = self.limits.max_bytes
        too_big = f"larger than the {limit:,}-byte limit"
        declared = resp.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            raise WebRefused(url, f"the page is {int(declared):,} bytes, {too_big}")
        # httpx's timeout bounds each read; a server dripping bytes slowly also needs a total deadline.
        deadline = time.monotonic() + self.limits.timeout
        chunks, size = [], 0
        for chunk in resp.iter_bytes():  # decompressed: the limit holds against a compression bomb too
            size += len(chunk)
            if size > limit:
                raise WebRefused(url, f"the page is {too_big}")
            if time.monotonic() > deadline:
                raise WebRefused(url, f"timed out after {self.limits.timeout:g}s while reading the page")
            chunks.append(chunk)
        return content_type, b"".join(chunks), resp.charset_encoding
