"""The python-docs benchmark's key-phrase figure: a key phrase and a document may write one apostrophe two ways."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench"


def _bench():
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location("bench_pythondocs", BENCH / "bench_pythondocs.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCH))


def test_a_key_phrase_with_a_straight_apostrophe_is_found_where_the_report_has_a_typographic_one():
    bench = _bench()
    body = "The class\u2019s suite is then\n  executed in a new execution frame."
    assert bench.key_phrase_in(body, ["class's suite is then executed"])
    assert bench.key_phrase_in("He said \u201cyes\u201d.", ['said "YES"'])
    assert not bench.key_phrase_in(body, ["classes suite"])
