"""Headless Chromium for the browser tests: Debian's `chromium` driven by Playwright.

Skipped when either is missing. `page` may load only file:// and 127.0.0.1 URLs: any other
request is refused and recorded in `page.offsite`; page errors and console errors are
recorded in `page.errors`, so a test can assert that nothing ran or fetched what it should not.
"""

from __future__ import annotations

import os
import shutil

import pytest

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def _chromium() -> str | None:
    path = os.environ.get("RESEARCH_TEST_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    return path if path and os.access(path, os.X_OK) else None


@pytest.fixture(scope="module")
def browser():
    executable = _chromium()
    if executable is None:
        pytest.skip("Chromium is not installed (Debian: apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed (pip install playwright; no `playwright install` needed)")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser):
    """A page that may load only file:// and 127.0.0.1 URLs; any other request is refused and recorded."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    pg.offsite = []
    pg.errors = []

    def guard(route):
        url = route.request.url
        if url.startswith(("file://", "http://127.0.0.1:", "data:")):
            route.continue_()
        else:
            pg.offsite.append(url)
            route.abort()

    context.route("**/*", guard)
    pg.on("pageerror", lambda exc: pg.errors.append(str(exc)))
    pg.on("console", lambda msg: pg.errors.append(msg.text) if msg.type == "error" else None)
    pg.on("dialog", lambda dialog: (pg.errors.append("dialog: " + dialog.message), dialog.dismiss()))
    yield pg
    context.close()
