"""The share benchmark's scoring: facts found in the report body only, and an older figure presented as current
unless its line says superseded or names its period."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench"


def _bench():
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location("bench_share", BENCH / "bench_share.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCH))


def test_facts_count_in_the_body_and_an_unmarked_older_figure_is_presented_as_current():
    bench = _bench()
    report = (
        "# Brief\n\n## Summary\n\nHalvard closed a $14.5 million Series B [@C1].\n"
        "Halvard operates a fleet of 180 robots [@C2].\n"
        "Revenue was $9.2 million [@C3]. *(Superseded figures: was “Revenue was $5.1 million” in 2023)*.\n\n"
        "## Evidence\n\nThe Series A raised $4.2 million.\n"
    )
    result = bench.score(report)
    found = {f for p in result["parts"] for f in p["found"]}
    assert {"series_b", "revenue_2024"} <= found and "series_a" not in found  # the Evidence section is not the body
    assert set(result["stale"]) == {"fleet_2023"}
