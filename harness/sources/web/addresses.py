"""The private-address guard: what a search result or a page points to may not be this machine or its network.

Server-side request forgery: a result, a link or a redirect can name http://127.0.0.1:…, http://10.0.0.1/…
or the cloud metadata address http://169.254.169.254/. Unless the run allows private addresses
(`--web-allow-private`, for intranets and tests), every host a fetch touches is resolved and each address
it resolves to must be globally routable: loopback, private, link-local, shared, reserved and multicast
addresses (IPv4 and IPv6, IPv4-mapped included) are refused before any connection is made.

DNS rebinding: checking a name and then letting the HTTP client resolve it again leaves a window in which a
hostile DNS server can change its answer. `GuardedTransport` closes that window: it resolves and checks the
name itself, then opens the TCP connection to the very address it checked (TLS still verifies the name, and
the Host header still carries it). What is not covered: with a proxy from the environment (HTTP_PROXY,
HTTPS_PROXY) the proxy resolves names itself, so there only the check made before each hop applies. The
search endpoint the user configured is not guarded here (a self-hosted SearXNG on localhost is normal);
only what results and pages point to is.
"""

from __future__ import annotations

import ipaddress
import socket
import ssl
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import httpcore
import httpx

from harness.sources.urls import host_of
from harness.sources.web.policy import WebRefused

Resolver = Callable[[str, int], list[str]]  # (host, port) -> the addresses it resolves to, as strings


def system_resolver(host: str, port: int) -> list[str]:
    """The host's addresses from the system resolver (getaddrinfo), in its order, without repeats."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def why_refused(address: str) -> str | None:
    """Why a fetch may not connect to `address` ('a loopback address', ...), or None for a public address."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # an IPv6 zone id (fe80::1%eth0) is not part of it
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_unspecified:
        return "the unspecified address (it reaches this machine)"
    if ip.is_loopback:
        return "a loopback address"
    if ip.is_link_local:
        return "a link-local address"
    if ip.is_private:
        return "a private address"
    if not ip.is_global or ip.is_multicast:
        return "not a public address"
    return None


class AddressRefused(Exception):
    """A host that resolves to an address the guard refuses (or that does not resolve at all)."""

    def __init__(self, host: str, reason: str):
        self.host = host
        self.reason = reason
        super().__init__(f"{host}: {reason}")


def url_port(url: str) -> int:
    parts = urlsplit(url)
    return parts.port or (443 if parts.scheme.lower() == "https" else 80)


def _literal(host: str) -> str | None:
    try:
        return str(ipaddress.ip_address(host.strip("[]").split("%", 1)[0]))
    except ValueError:
        return None


@dataclass(frozen=True)
class AddressGuard:
    """Resolves hosts and refuses private addresses, unless `allow_private`."""

    allow_private: bool = False
    resolver: Resolver = field(default=system_resolver)

    def addresses(self, host: str, port: int) -> list[str]:
        """The checked addresses to connect to for host:port; AddressRefused if any of them is not public."""
        literal = _literal(host)
        if literal is not None:
            found = [literal]
        else:
            try:
                found = self.resolver(host, port)
            except OSError as exc:
                raise AddressRefused(host, f"the host name does not resolve ({exc})") from None
            if not found:
                raise AddressRefused(host, "the host name does not resolve")
        if not self.allow_private:
            for address in found:
                reason = why_refused(address)
                if reason:
                    raise AddressRefused(
                        host,
                        f"{host} is {reason} ({address}); private, loopback and link-local addresses are refused "
                        "unless the run allows them (--web-allow-private)",
                    )
        return found

    def check_url(self, url: str) -> None:
        """WebRefused for a URL whose host may not be contacted, before anything is sent to it (no lookup at
        all when private addresses are allowed)."""
        if self.allow_private:
            return
        try:
            self.addresses(host_of(url), url_port(url))
        except AddressRefused as exc:
            raise WebRefused(url, exc.reason) from None


class _GuardedBackend(httpcore.SyncBackend):
    """Opens each TCP connection to an address the guard resolved (and checked, unless private addresses are
    allowed), never to a name resolved again later."""

    def __init__(self, guard: AddressGuard):
        self.guard = guard

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):  # noqa: D102
        last: Exception | None = None
        for address in self.guard.addresses(host, port):
            try:
                return super().connect_tcp(address, port, timeout, local_address, socket_options)
            except httpcore.ConnectError as exc:  # try the next checked address, as a browser would
                last = exc
        assert last is not None
        raise last


_SSL: dict[bool, ssl.SSLContext] = {}  # built once per process: loading the CA bundle is slow


def _ssl_context(verify: bool) -> ssl.SSLContext:
    if verify not in _SSL:
        _SSL[verify] = httpx.create_ssl_context(verify=verify)
    return _SSL[verify]


class GuardedTransport(httpx.HTTPTransport):
    """httpx's own transport, with its connection pool opening connections through the guard.

    httpx does not take a network backend, so this sets up the pool httpx's transport would build (its
    only state) with `_GuardedBackend`, httpcore's extension point for how connections are opened.
    """

    def __init__(self, guard: AddressGuard, *, verify: bool = True):  # noqa: B027 - replaces httpx's pool setup
        self._pool = httpcore.ConnectionPool(
            ssl_context=_ssl_context(verify),
            max_connections=100,
            max_keepalive_connections=20,
            keepalive_expiry=5.0,
            network_backend=_GuardedBackend(guard),
        )
