"""What `--web` needs installed, checked by importing it (not by looking for the package).

A fresh `pip install -e '.[dev]'` can resolve an lxml whose `lxml.html.clean` moved to the separate
`lxml_html_clean` package; then trafilatura is present but `import trafilatura` fails. Importing each
module here, at preflight, turns that into one line naming what to install, before any work.
"""

from __future__ import annotations

import importlib

from harness.errors import install_hint

NEEDED = ("httpx", "trafilatura", "lxml.html.clean", "charset_normalizer", "ddgs")
INSTALL = install_hint("web")


def extractor_missing(modules: tuple[str, ...] = NEEDED) -> str | None:
    """None when the web tools import; else one line naming what failed and how to install it."""
    failed = []
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception as exc:  # ImportError, or a module that breaks while importing
            failed.append(f"{name} ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})".rstrip())
    if not failed:
        return None
    return f"the web tools do not import: {'; '.join(failed)}: {INSTALL}"
