"""Normalizing locators so the same document found twice gets the same source id."""

from __future__ import annotations

import posixpath
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

_TRACKING = ("utm_", "fbclid", "gclid", "mc_cid", "mc_eid", "ref_src")


def normalize_url(url: str) -> str:
    """Lower-case scheme and host, drop default ports, fragments and tracking parameters, sort the query."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower().rstrip(".")
    port = parts.port
    netloc = host if port is None or (scheme, port) in (("http", 80), ("https", 443)) else f"{host}:{port}"
    # normpath also drops a trailing slash: /docs/ and /docs name the same page.
    path = posixpath.normpath(parts.path) if parts.path not in ("", "/") else "/"
    query = urlencode(
        sorted((k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not k.lower().startswith(_TRACKING))
    )
    return urlunsplit((scheme, netloc, path, query, ""))


def normalize_path(path: str) -> str:
    """A corpus path in POSIX form without './' or duplicate slashes."""
    norm = posixpath.normpath(path.replace("\\", "/"))
    return norm.lstrip("./") if norm.startswith("./") else norm


def host_of(url: str) -> str:
    return (urlsplit(url).hostname or "").lower().rstrip(".")


def domain_matches(host: str, domain: str) -> bool:
    """True when `host` is `domain` or one of its subdomains."""
    domain = domain.lower().strip(".")
    return host == domain or host.endswith("." + domain)
