"""Fixtures of the source tests."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def no_proxies(monkeypatch):
    """httpx honours proxy variables; a proxy must not sit between the web tests and 127.0.0.1."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
