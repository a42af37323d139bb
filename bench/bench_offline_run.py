"""Time and peak memory of a full offline run, and how they grow.

Measures, each in a fresh subprocess (so peak RSS is that run's alone):
  1. the main job: the built-in python-docs corpus, the README's question (cold cache, then warm);
  2. growth with the number of plan questions: 1, 4 and 16 research questions (warm cache);
  3. growth with corpus size: 25%, 50% and 100% of python-docs written out as a folder corpus.

Prints seconds, peak RSS and ratios against the smallest case, side by side in one run.
Usage: .venv/bin/python bench/bench_offline_run.py
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
QUESTION = "How do asyncio.TaskGroup and asyncio.gather differ in error handling and cancellation?"
TOPICS = [
    "asyncio.gather",
    "asyncio.TaskGroup",
    "json.dumps",
    "pathlib.Path",
    "subprocess.run",
    "threading.Lock",
    "functools.lru_cache",
    "itertools.groupby",
    "collections.Counter",
    "dataclasses.field",
    "logging.Logger",
    "re.compile",
    "os.replace",
    "tempfile.mkstemp",
    "sqlite3.connect",
    "contextlib.suppress",
]


class FixedPlanner:
    """A planner for the benchmark: one research question per topic, N taken from $BENCH_QUESTIONS."""

    def __init__(self, spec=None):
        self.spec = spec

    def run(self, brief, ctx):
        from harness.runtime.interface import AgentResult

        n = int(os.environ["BENCH_QUESTIONS"])
        questions = [
            {
                "id": f"Q{i + 1}",
                "text": f"Find what the sources say about {t} with respect to errors.",
                "kind": "research",
                "critical": False,
                "criteria": ["errors"],
                "allowed_sources": ["corpus"],
                "allowed_domains": [],
                "blocked_domains": [],
                "search_terms": [t, f"{t} errors"],
                "tag": None,
            }
            for i, t in enumerate(TOPICS[:n])
        ]
        questions.append(
            {"id": f"Q{n + 1}", "text": "Summarize the findings.", "kind": "deliverable", "critical": True, "tag": None}
        )
        ctx.write(
            "plan.json",
            {
                "schema_version": 1,
                "question": brief.facts["question"],
                "revision": 1,
                "scope": {"in_scope": TOPICS[:n], "out_of_scope": []},
                "deliverable": "A summary.",
                "criteria": ["errors"],
                "questions": questions,
                "stop_conditions": ["None."],
                "refinement": None,
                "approval": None,
            },
        )
        return AgentResult("completed", f"{n} questions")


def measure(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(seconds, peak RSS in MiB) of one `research run` in a fresh process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness", "run", *args, "--yes", "--quiet"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) not in (0, 3):
        raise SystemExit(f"run failed: {proc.stderr.read().decode()[-2000:]}")
    return seconds, usage.ru_maxrss / 1024


def dump_python_docs(target: Path, fraction: float) -> int:
    from harness.sources.corpus import load_python_docs

    docs = load_python_docs().documents
    keep = docs[: max(1, int(len(docs) * fraction))]
    for d in keep:
        path = target / (d.path.replace(".", "_") + ".md")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(d.text, encoding="utf-8")
    return len(keep)


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="bench-offline-"))
    env = {**os.environ, "RESEARCH_CACHE_DIR": str(work / "cache"), "PYTHONPATH": str(HERE)}
    env.pop("GOOGLE_API_KEY", None)
    runs = ["--runs-dir", str(work / "runs")]
    rows = []
    cold = measure([QUESTION, "--corpus", "python-docs", *runs], env)
    warm = measure([QUESTION, "--corpus", "python-docs", *runs], env)
    rows.append(("main job, python-docs, cold cache", *cold))
    rows.append(("main job, python-docs, warm cache", *warm))
    base = None
    for n in (1, 4, 16):
        env_n = {**env, "BENCH_QUESTIONS": str(n)}
        sec, mib = measure(
            [
                "bench: fixed plan",
                "--corpus",
                "python-docs",
                "--agent",
                "planner=python:bench_offline_run:FixedPlanner",
                *runs,
            ],
            env_n,
        )
        base = base or sec
        rows.append((f"{n:>2} research questions (warm)", sec, mib, sec / base))
    base = None
    for fraction in (0.25, 0.5, 1.0):
        folder = work / f"corpus-{int(fraction * 100)}"
        ndocs = dump_python_docs(folder, fraction)
        measure([QUESTION, "--corpus", str(folder), *runs], env)  # warm this corpus's cache
        sec, mib = measure([QUESTION, "--corpus", str(folder), *runs], env)
        base = base or sec
        rows.append((f"corpus {int(fraction * 100):>3}% ({ndocs} docs, warm)", sec, mib, sec / base))
    print(f"{'case':<42} {'seconds':>8} {'peak MiB':>9} {'× smallest':>10}")
    for row in rows:
        ratio = f"{row[3]:>10.2f}" if len(row) > 3 else f"{'':>10}"
        print(f"{row[0]:<42} {row[1]:>8.2f} {row[2]:>9.0f} {ratio}")
    print(json.dumps({"rows": [list(r) for r in rows]}))
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
