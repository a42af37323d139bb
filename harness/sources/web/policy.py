"""Which URLs a question may fetch: http(s) only, on the hosts its plan allows, never on a blocked one.

Checked before a search result is shown, before a fetch is charged, and again on every redirect hop,
so an allowed page cannot bounce the harness somewhere else. `WebRefused` is the one error every web
refusal raises: the URL and the reason, in one line the model (or the user) can act on.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from harness.errors import EXIT_USAGE, HarnessError
from harness.sources.urls import domain_matches, host_of, normalize_url


class WebRefused(HarnessError):
    """A web request the harness will not make or whose answer it will not keep: one line, URL and reason."""

    exit_code = EXIT_USAGE

    def __init__(self, url: str, reason: str):
        self.url = url
        self.reason = reason
        super().__init__(f"{url}: {reason}")


@dataclass(frozen=True)
class WebPolicy:
    """Which hosts a question may touch: its allowed domains, or the open web when it lists none; subdomains of
    a listed domain count, and a blocked domain always wins. (Whether a question may use the web at all is its
    `allowed_sources`, checked before any search is spent.) `primary_domains` does not limit anything: it says
    which pages the plan counts as primary sources."""

    allowed_domains: tuple[str, ...]
    blocked_domains: tuple[str, ...] = ()
    primary_domains: tuple[str, ...] = ()  # the plan's official sites: their pages are registered as primary

    def check(self, url: str) -> str:
        """The normalized URL, or WebRefused saying why it may not be fetched."""
        scheme = urlsplit(url).scheme.lower()
        if scheme not in ("http", "https"):
            raise WebRefused(url, f"only http and https URLs may be fetched, not {scheme or 'a relative URL'}")
        host = host_of(url)
        if not host:
            raise WebRefused(url, "the URL has no host")
        if any(domain_matches(host, d) for d in self.blocked_domains):
            raise WebRefused(url, f"host {host} is on the blocked-domain list")
        if self.allowed_domains and not any(domain_matches(host, d) for d in self.allowed_domains):
            raise WebRefused(url, f"host {host} is not in the allowed domains ({', '.join(self.allowed_domains)})")
        return normalize_url(url)
