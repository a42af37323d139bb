"""Orchestration overhead, fan-out speedup and token efficiency of a full llm-engine run.

Every role runs on the llm engine (deepagents agents) with a scripted tool-calling model
(tests/fakes/scripted.py) that sleeps a fixed latency per call, over a synthetic 16-topic corpus.
A fixed plan of N research questions (1, 4, 16) is written by the scripted Planner. For
each N the same run is made, side by side in one process, interleaved --repeat times (the
fastest is kept: other load on a shared machine only adds time):

  - with 200 ms per call at concurrency N and at concurrency 1;
  - with 0 ms per call at concurrency N and at concurrency 1 (what is left is harness time).

It prints, per N:
  1. wall / critical-path lower bound (the model latency along the longest chain of dependent
     calls: planner + the longest research branch + analyst + writer + reviewer, counted from
     the trace's delegation events `llm_calls`);
  2. fan-out speedup (wall at concurrency 1 / wall at concurrency N) against the ideal speedup
     (the same ratio for model latency alone: all calls in sequence / the critical path);
  3. harness overhead per model call (wall and CPU time not spent in the model), and as a
     share of the run's model time at 200 ms;
  4. tokens (chars / 4) sent to each role's model, the parent's checkpointed state in bytes,
     and a naive single-prompt baseline built from every passage the searches returned;
  5. where the harness time goes (inclusive time of the hot harness functions, one run).

Usage: .venv/bin/python bench/bench_orchestration.py                 # about 3 minutes
       .venv/bin/python bench/bench_orchestration.py --repeat 1 --questions 1 4   # quick check
       .venv/bin/python bench/bench_orchestration.py --ab             # candidate fixes / what-ifs vs baseline
       .venv/bin/python bench/bench_orchestration.py --try no-fsync   # all figures with one applied
       .venv/bin/python bench/bench_orchestration.py --profile 4      # cProfile one 0-ms run (concurrency 1)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage  # noqa: E402
from langchain_core.utils.function_calling import convert_to_openai_tool  # noqa: E402
from pydantic import Field  # noqa: E402

from fakes.scripted import (  # noqa: E402
    Say,
    ScriptedChatModel,
    Turn,
    analyst_policy,
    call,
    researcher_policy,
    reviewer_policy,
    writer_policy,
)
from fakes.scripted import make_plan as scripted_plan  # noqa: E402

QUESTION = "How do the sixteen bench components report and recover from errors?"
MODEL = "scripted:bench"
CHARS_PER_TOKEN = 4
# One invented keyword per topic, so each branch's search finds its own document first.
TOPICS = [
    "zorvex",
    "quillan",
    "brantor",
    "mevolia",
    "tarsk",
    "ulvane",
    "pexidor",
    "corrim",
    "halvet",
    "ostrine",
    "dwemmel",
    "fyrrac",
    "glossom",
    "ivantor",
    "jukkel",
    "nembrik",
]
WORDS = (
    "error failure retry timeout cancel propagate handler state queue buffer worker thread signal "
    "message record budget limit window request response client server cache index stream batch"
).split()


# ---- the corpus and the plan ---------------------------------------------------------------------


def write_corpus(folder: Path) -> None:
    rng = random.Random(9)
    folder.mkdir(parents=True, exist_ok=True)
    for topic in TOPICS:
        paras = [f"# The {topic} component"]
        for p in range(5):
            words = [rng.choice(WORDS) for _ in range(rng.randint(60, 110))]
            words[rng.randrange(len(words))] = topic
            paras.append(f"The {topic} component, part {p + 1}: " + " ".join(words) + ".")
        (folder / f"{topic}.md").write_text("\n\n".join(paras) + "\n", encoding="utf-8")


def make_plan(question: str, n: int) -> dict:
    """The scripted planner's plan over the first n bench topics, one search term per topic."""
    topics = [(t, f"Find how the {t} component reports and recovers from errors.", [f"{t} error"]) for t in TOPICS]
    return scripted_plan(question, n, topics)


def planner_policy(n: int):
    def policy(t: Turn):
        if not t.writes():
            return call(
                "write_file",
                file_path="/plan.json",
                content=json.dumps(make_plan(t.brief_line("question") or QUESTION, n)),
            )
        return Say(f"{n} research questions")

    return policy


def whole_file_writer_policy():
    """tests/fakes/scripted.py's Writer, but reading claims.json in one page (16 claims run past read_file's 100 lines)."""
    base = writer_policy()

    def policy(t: Turn):
        if not t.steps:
            return call("read_file", file_path="/claims.json", limit=2000)
        return base(t)

    return policy


# ---- a scripted model that records what it was sent -----------------------------------------------


def message_chars(m: BaseMessage) -> int:
    content = m.content if isinstance(m.content, str) else json.dumps(m.content)
    chars = len(content)
    if isinstance(m, AIMessage):
        chars += sum(len(c["name"]) + len(json.dumps(c["args"])) for c in m.tool_calls)
    return chars


class BenchModel(ScriptedChatModel):
    """ScriptedChatModel + per-call records: input characters (messages + tool schemas) and own CPU time."""

    records: list = Field(
        default_factory=list
    )  # (input chars, output chars, own seconds, system prompt + tool schema chars)
    tool_schema_chars: int = 0
    bind_seconds: float = 0.0
    search_results: dict = Field(default_factory=dict)  # tool_call_id -> search result text

    def bind_tools(self, tools, *, tool_choice=None, **kw):
        t0 = time.perf_counter()
        self.tool_schema_chars = sum(len(json.dumps(convert_to_openai_tool(t))) for t in tools)
        bound = super().bind_tools(tools, tool_choice=tool_choice, **kw)
        self.bind_seconds += time.perf_counter() - t0  # the bench's own accounting, charged to the model below
        return bound

    def _generate(self, messages, stop=None, run_manager=None, **kw):
        t0 = time.perf_counter()
        result = super()._generate(messages, stop=stop, run_manager=run_manager, **kw)
        chars_in = sum(message_chars(m) for m in messages) + self.tool_schema_chars
        for m in messages:
            if isinstance(m, ToolMessage) and m.name == "search":
                self.search_results[m.tool_call_id] = str(m.content)
        fixed = sum(message_chars(m) for m in messages if isinstance(m, SystemMessage)) + self.tool_schema_chars
        self.calls.clear()  # the parent class keeps every message list; the bench needs only the records
        # own CPU: the scripted policy and this accounting (bind_tools' schema sizing included), not the sleep
        own = time.perf_counter() - t0 - self.delay + self.bind_seconds
        self.bind_seconds = 0.0
        self.records.append((chars_in, message_chars(result.generations[0].message), own, fixed))
        return result


def bench_models(n: int, delay: float) -> dict[str, BenchModel]:
    policies = {
        "planner": planner_policy(n),
        "researcher": researcher_policy(),
        "analyst": analyst_policy(),
        "writer": whole_file_writer_policy(),
        "reviewer": reviewer_policy(),
    }
    return {role: BenchModel(policy=p, delay=delay) for role, p in policies.items()}


# ---- one run ---------------------------------------------------------------------------------------


@dataclass
class RunFigures:
    n: int
    concurrency: int
    delay: float
    status: str
    wall: float  # start_run, end to end
    cpu: float  # process CPU time (all threads) during start_run: robust to other load on the machine
    fsyncs: int  # os.fsync calls during the run (the harness's; SQLite's own syncs are not counted)
    graph_wall: float  # first delegation started -> last delegation ended (the orchestrated part)
    setup: float  # start_run until the first delegation started (corpus, index, workspace, agents)
    calls: dict[str, int]  # role -> model calls (from the trace)
    branch_calls: list[int]  # model calls per research branch
    model_own: float  # seconds the scripted models spent computing (not sleeping)
    chars_in: dict[str, int]  # role -> characters sent to its model
    chars_out: dict[str, int]
    fixed_chars: int  # of chars_in: system prompts and tool schemas, resent with every call
    search_chars: int  # characters of every distinct search result the researchers were sent
    passages: int
    trace_tokens: int  # the harness's own per-call token charge (estimate + output allowance), summed
    state_bytes: int  # the parent's latest checkpoint blob
    checkpoint_db_bytes: int
    checkpoints: int
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def total_calls(self) -> int:
        return sum(self.calls.values())

    @property
    def critical_calls(self) -> int:
        return sum(v for r, v in self.calls.items() if r != "researcher") + (
            max(self.branch_calls) if self.branch_calls else 0
        )


FSYNCS = [0]
_fsync = os.fsync


def _counted_fsync(fd):
    FSYNCS[0] += 1  # not locked: a rare lost count under threads is fine for a figure
    return _fsync(fd)


os.fsync = _counted_fsync


def run_once(n: int, concurrency: int, delay: float, corpus: Path, runs: Path) -> RunFigures:
    from harness.orchestrator.config import build_config
    from harness.orchestrator.lifecycle import start_run
    from harness.workspace.trace import read_events

    models = bench_models(n, delay)
    marks: list[tuple[float, str]] = []
    lock = threading.Lock()

    def on_event(e: dict) -> None:
        if e.get("event") in ("delegation_started", "delegation_ended"):
            with lock:
                marks.append((time.perf_counter(), e["event"]))

    cfg = build_config(
        QUESTION, corpus=str(corpus), runs_dir=str(runs), engine="llm", model=MODEL, yes=True, concurrency=concurrency
    )
    fsyncs0 = FSYNCS[0]
    c0, t0 = time.process_time(), time.perf_counter()
    result = start_run(cfg, models=models, events=on_event)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    events = read_events(result.run_dir)
    delegations = [e for e in events if e["event"] == "delegation"]
    calls: dict[str, int] = {}
    for e in delegations:
        calls[e["agent"]] = calls.get(e["agent"], 0) + e["llm_calls"]
    branch_calls = [e["llm_calls"] for e in delegations if e["agent"] == "researcher"]
    recorded = {r: len(m.records) for r, m in models.items() if m.records}
    if recorded != {r: v for r, v in calls.items() if v}:
        raise SystemExit(f"model calls recorded {recorded} differ from the trace's {calls}")
    searches = {k: v for m in models.values() for k, v in m.search_results.items()}
    db = result.run_dir / ".harness" / "checkpoints.sqlite"
    conn = sqlite3.connect(str(db))
    try:
        # the parent's own checkpoints have the root namespace; subagents' inner steps land under 'node:task-id'
        rows = conn.execute(
            "SELECT length(checkpoint) FROM checkpoints WHERE checkpoint_ns = '' ORDER BY rowid"
        ).fetchall()
        inner = conn.execute(
            "SELECT count(*), coalesce(sum(length(checkpoint)), 0) FROM checkpoints WHERE checkpoint_ns != ''"
        ).fetchone()
        writes = conn.execute("SELECT coalesce(sum(length(value)), 0) FROM writes").fetchone()[0]
    finally:
        conn.close()
    figures = RunFigures(
        n=n,
        concurrency=concurrency,
        delay=delay,
        status=result.status,
        wall=wall,
        cpu=cpu,
        fsyncs=FSYNCS[0] - fsyncs0,
        graph_wall=(marks[-1][0] - marks[0][0]) if marks else 0.0,
        setup=(marks[0][0] - t0) if marks else 0.0,
        calls=calls,
        branch_calls=branch_calls,
        model_own=sum(r[2] for m in models.values() for r in m.records),
        chars_in={r: sum(x[0] for x in m.records) for r, m in models.items()},
        chars_out={r: sum(x[1] for x in m.records) for r, m in models.items()},
        fixed_chars=sum(x[3] for m in models.values() for x in m.records),
        search_chars=sum(len(v) for v in searches.values()),
        passages=sum(v.count("<<<SOURCE ") for v in searches.values()),
        trace_tokens=sum(e["tokens"] for e in delegations),
        state_bytes=rows[-1][0] if rows else 0,
        checkpoint_db_bytes=db.stat().st_size,
        checkpoints=len(rows),
        extra={
            "writes_blob_bytes": writes,
            "inner_checkpoints": inner[0],
            "inner_checkpoint_bytes": inner[1],
            "run_json_bytes": (result.run_dir / "run.json").stat().st_size,
            "run_dir": str(result.run_dir),
        },
    )
    if result.status != "completed":
        raise SystemExit(f"N={n} C={concurrency}: run ended {result.status}: {result.reason}")
    return figures


# ---- where the harness time goes (wrappers on the hot functions) ----------------------------------


class Timers:
    """Inclusive seconds and call counts of wrapped functions, summed over all threads."""

    def __init__(self):
        self.seconds: dict[str, float] = {}
        self.calls: dict[str, int] = {}
        self.lock = threading.Lock()
        self.undo: list[tuple[Any, str, Any]] = []

    def add(self, key: str, dt: float) -> None:
        with self.lock:
            self.seconds[key] = self.seconds.get(key, 0.0) + dt
            self.calls[key] = self.calls.get(key, 0) + 1

    def wrap(self, owner: Any, attr: str, key: str | Any) -> None:
        original = getattr(owner, attr)

        def timed(*a, **kw):
            t0 = time.perf_counter()
            try:
                return original(*a, **kw)
            finally:
                self.add(key(*a, **kw) if callable(key) else key, time.perf_counter() - t0)

        setattr(owner, attr, timed)
        self.undo.append((owner, attr, original))

    def restore(self) -> None:
        for owner, attr, original in reversed(self.undo):
            setattr(owner, attr, original)
        self.undo.clear()


def _schema_key(value, schema, *a, **kw) -> str:
    return {
        "run.schema.json": "schema validation: run.json",
        "trace-event.schema.json": "schema validation: trace events",
    }.get(schema, "schema validation: artifacts")


def instrument() -> Timers:
    from deepagents.middleware.summarization import _DeepAgentsSummarizationMiddleware
    from langgraph.checkpoint.sqlite import SqliteSaver

    import harness.workspace.store as workspace
    from harness.engines.llm.agent import DeepAgentRole
    from harness.engines.llm.middleware import budget_guard as llm_middleware
    from harness.orchestrator import nodes
    from harness.runtime.budget import Budget
    from harness.sources.research_tools import ResearchTools

    t = Timers()
    t.wrap(nodes, "delegate", "delegations (whole)")
    t.wrap(DeepAgentRole, "prepare", "agent graphs compiled (once per role and run, mostly ahead on a thread)")
    t.wrap(Budget, "settle", "budget settle -> run.json rewrite (per model call and search)")
    t.wrap(workspace.Workspace, "update_manifest", "run.json rewrites (all)")
    t.wrap(workspace.Workspace, "set_status", "status changes (checked run.json rewrite + trace)")
    t.wrap(workspace.Workspace, "write", "guarded artifact writes (validate, journal, index, trace)")
    t.wrap(workspace.Workspace, "trace", "trace.jsonl appends (validated)")
    t.wrap(workspace, "validate", _schema_key)
    t.wrap(os, "fsync", "os.fsync")
    t.wrap(SqliteSaver, "put", "checkpoints, parent + subagents (SqliteSaver.put)")
    t.wrap(SqliteSaver, "put_writes", "checkpoints, parent + subagents (put_writes)")
    t.wrap(ResearchTools, "search", "BM25 search + source registration")
    t.wrap(llm_middleware, "estimate_tokens", "budget estimate per model call (BudgetGuard)")
    t.wrap(_DeepAgentsSummarizationMiddleware, "_count_tokens", "token count per model call (deepagents summarization)")
    return t


# ---- candidate fixes, applied in-process so their effect is measured before anyone edits harness/ ------
# Each returns an undo function, so `--ab` can interleave runs with and without it. The fixes measured
# this way earlier (subagents without checkpoints, one budget rewrite per call, run.json rewrites without
# fsync, tool schemas sized once) are in the harness now; what is left here are what-ifs.


def _patch(owner: Any, attr: str, value: Any):
    original = getattr(owner, attr)
    setattr(owner, attr, value)
    return lambda: setattr(owner, attr, original)


def try_no_fsync():
    """What-if, not a fix: every os.fsync a no-op (the harness's own and the test harness's; SQLite syncs
    itself), to show how much of the overhead is waiting for the disk rather than CPU."""
    return _patch(sys.modules[__name__], "_fsync", lambda fd: None)  # still counted by _counted_fsync


FIXES = {"no-fsync": try_no_fsync}


def ab(args, corpus: Path, runs: Path) -> None:
    """Each candidate fix alone and all together against the baseline, runs interleaved, best of --repeat."""
    variants = (
        [("baseline", [])]
        + [(name, [name]) for name in FIXES]
        + ([("all of them", list(FIXES))] if len(FIXES) > 1 else [])
    )
    n = max(args.questions)
    cases = [(n, n, args.delay), (n, 1, 0.0), (1, 1, args.delay)]
    samples: dict[tuple[str, tuple], list[RunFigures]] = {}
    for rep in range(args.repeat):
        for label, names in variants:
            undo = [FIXES[x]() for x in names]
            try:
                for case in cases:
                    samples.setdefault((label, case), []).append(run_once(*case, corpus, runs))
            finally:
                for u in reversed(undo):
                    u()
        print(f"  [{rep + 1}/{args.repeat}] done", file=sys.stderr)
    d = args.delay
    print(f"A/B of candidate fixes (best of {args.repeat}, interleaved; N={n})")
    print(
        f"{'variant':<32} {'wall/bound':>10} {'wall/bound':>10} {'wall ms':>8} {'CPU ms':>7} {'% of':>6} "
        f"{'fsyncs':>7} {'sqlite':>7}"
    )
    print(
        f"{'':<32} {'N=' + str(n) + ' C=' + str(n):>10} {'N=1':>10} {'/call':>8} {'/call':>7} {'200ms':>6} "
        f"{'/call':>7} {'KiB':>7}"
    )
    for label, _ in variants:
        par, one = pick(samples[(label, cases[0])]), pick(samples[(label, cases[2])])
        zero_runs = samples[(label, cases[1])]
        zero = pick(zero_runs)
        per_call = (zero.wall - zero.model_own) / zero.total_calls * 1000
        cpu_call = min(r.cpu - r.model_own for r in zero_runs) / zero.total_calls * 1000
        print(
            f"{label:<32} {par.wall / (par.critical_calls * d):>10.3f} {one.wall / (one.critical_calls * d):>10.3f} "
            f"{per_call:>8.1f} {cpu_call:>7.1f} {per_call / (d * 1000) * 100:>5.1f}% "
            f"{zero.fsyncs / zero.total_calls:>7.1f} {par.checkpoint_db_bytes / 1024:>7.0f}"
        )
    print(
        f"   (wall/bound: wall over the critical-path model latency at {d * 1000:.0f} ms a call; wall and CPU ms/call:"
        f" {n} questions, concurrency 1, 0 ms models, minus the scripted models' own CPU)"
    )


# ---- the report -------------------------------------------------------------------------------------


def tokens(chars: int) -> int:
    return round(chars / CHARS_PER_TOKEN)


STAT = "min"


def pick(runs: list[RunFigures]) -> RunFigures:
    """The fastest run (other load on a shared machine only ever adds time, as timeit assumes), or the median."""
    ordered = sorted(runs, key=lambda r: r.wall)
    return ordered[0] if STAT == "min" else ordered[len(ordered) // 2]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--questions", type=int, nargs="+", default=[1, 4, 16])
    ap.add_argument("--delay", type=float, default=0.2, help="model latency per call, seconds")
    ap.add_argument("--repeat", type=int, default=3, help="runs per case, interleaved (see --stat for which is kept)")
    ap.add_argument("--stat", choices=["min", "median"], default="min", help="which of the repeats to keep")
    ap.add_argument("--profile", type=int, metavar="N", help="cProfile one 0-latency run with N questions instead")
    ap.add_argument("--ab", action="store_true", help="measure each candidate fix against the baseline instead")
    ap.add_argument("--json", action="store_true", help="also print every kept run's figures as JSON")
    ap.add_argument("--keep", action="store_true", help="keep the temporary runs folder")
    ap.add_argument(
        "--try",
        dest="fixes",
        action="append",
        default=[],
        choices=sorted(FIXES),
        help="apply a candidate fix in-process before measuring (repeatable)",
    )
    args = ap.parse_args()
    for name in args.fixes:
        FIXES[name]()  # for the whole process
    global STAT
    STAT = args.stat

    work = Path(tempfile.mkdtemp(prefix="bench-orch-"))
    os.environ["RESEARCH_CACHE_DIR"] = str(work / "cache")
    for key in ("GOOGLE_API_KEY", "GEMINI_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI"):
        os.environ.pop(key, None)
    corpus = work / "corpus"
    write_corpus(corpus)
    runs = work / "runs"
    try:
        run_once(1, 1, 0.0, corpus, runs)  # warm-up: imports, the corpus index cache, schema compilation
        if args.profile:
            profile(args.profile, corpus, runs, work)
            return
        if args.ab:
            ab(args, corpus, runs)
        else:
            report(args, corpus, runs)
    finally:
        if args.keep:
            print(f"runs kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def profile(n: int, corpus: Path, runs: Path, work: Path) -> None:
    import cProfile
    import pstats

    # cProfile sees only the thread that enabled it, and LangGraph runs nodes on pool threads:
    # every thread started during the run gets its own profiler, and their stats are merged.
    profilers: list[cProfile.Profile] = []

    def start_thread_profiler(*_):
        prof = cProfile.Profile()
        profilers.append(prof)
        prof.enable()  # replaces this hook for the rest of the thread

    main = cProfile.Profile()
    profilers.append(main)
    threading.setprofile(start_thread_profiler)
    main.enable()
    try:
        fig = run_once(n, 1, 0.0, corpus, runs)
    finally:
        main.disable()
        threading.setprofile(None)
    for prof in profilers:
        prof.disable()  # a no-op for threads that ended; stats are kept either way
    outs = []
    for i, prof in enumerate(profilers):
        prof.create_stats()
        if prof.stats:
            outs.append(work / f"orch-{n}-{i}.prof")
            prof.dump_stats(outs[-1])
    print(
        f"N={n}: {fig.wall:.2f} s, {fig.total_calls} model calls ({fig.wall / fig.total_calls * 1000:.1f} ms a call), "
        f"{len(outs)} threads profiled (times below are summed over threads)"
    )
    stats = pstats.Stats(*map(str, outs))
    stats.files = []  # one header line per thread file says nothing
    stats.sort_stats("cumulative").print_stats(45)
    stats.sort_stats("tottime").print_stats(30)


def report(args, corpus: Path, runs: Path) -> None:
    d = args.delay
    cases = [(n, c, delay) for n in args.questions for c in sorted({n, 1}, reverse=True) for delay in (d, 0.0)]
    samples: dict[tuple[int, int, float], list[RunFigures]] = {k: [] for k in cases}
    t_start = time.perf_counter()
    for rep in range(args.repeat):  # interleaved, so a burst of load on the shared machine hits different cases
        for key in cases:
            r = run_once(*key, corpus, runs)
            samples[key].append(r)
            print(
                f"  [{rep + 1}/{args.repeat}] N={key[0]:>2} concurrency={key[1]:>2} latency={key[2] * 1000:>3.0f} ms: "
                f"{r.wall:6.2f} s ({r.total_calls} calls, critical path {r.critical_calls})",
                file=sys.stderr,
            )
    results = {k: pick(v) for k, v in samples.items()}
    n_max = max(args.questions)
    timers = instrument()
    try:
        profiled = run_once(n_max, 1, 0.0, corpus, runs)
    finally:
        timers.restore()
    print(
        f"bench_orchestration: model latency {d * 1000:.0f} ms a call, {'best' if STAT == 'min' else 'median'} of {args.repeat} run(s) per case, "
        f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, {time.perf_counter() - t_start:.0f} s of runs\n"
    )

    print("1. wall time / critical-path lower bound (concurrency = N)")
    print(
        f"{'N':>3} {'calls':>5} {'crit':>5} {'bound s':>8} {'wall s':>7} {'ratio':>6} {'graph s':>8} {'ratio':>6} {'setup s':>8}"
    )
    for n in args.questions:
        r = results[(n, n, d)]
        bound = r.critical_calls * d
        print(
            f"{n:>3} {r.total_calls:>5} {r.critical_calls:>5} {bound:>8.2f} {r.wall:>7.2f} {r.wall / bound:>6.3f} "
            f"{r.graph_wall:>8.2f} {r.graph_wall / bound:>6.3f} {r.setup:>8.2f}"
        )
    print("   (ratio: start_run end to end; graph: first delegation start to last delegation end; target <= 1.10)\n")

    print("2. fan-out speedup: wall at concurrency 1 / wall at concurrency N")
    print(
        f"{'N':>3} {'wall C=1':>9} {'wall C=N':>9} {'speedup':>8} {'ideal':>6} {'/ideal':>7} {'ideal*':>7} {'/ideal*':>8}"
    )
    for n in args.questions:
        if n == 1:
            continue
        s, p = results[(n, 1, d)], results[(n, n, d)]
        ideal = s.total_calls / p.critical_calls  # model latency alone: every call in sequence / the critical path
        # ideal*: Amdahl with the measured time of the serial part (everything but the research phase's model
        # latency) left as it is at concurrency 1
        serial_part = s.wall - sum(s.branch_calls) * d
        ideal_star = s.wall / (serial_part + max(s.branch_calls) * d)
        speedup = s.wall / p.wall
        print(
            f"{n:>3} {s.wall:>9.2f} {p.wall:>9.2f} {speedup:>8.2f} {ideal:>6.2f} {speedup / ideal:>7.2f} "
            f"{ideal_star:>7.2f} {speedup / ideal_star:>8.2f}"
        )
    print(
        "   (ideal = all calls x latency / critical-path calls x latency; ideal* = Amdahl with the measured serial part;"
        " target speedup >= 0.8 x ideal)\n"
    )

    print("3. harness overhead per model call: everything but the model's latency (validation, writes, hashing, fsync,")
    print("   checkpoints, tracing, agent construction, the agent loop itself)")
    print(
        f"{'N':>3} {'C':>3} {'calls':>5} | {'wall s':>6} {'ms/call':>7} {'CPU ms':>6} {'fsyncs':>6} {'% model':>7} | "
        f"{'wall s':>6} {'beyond':>6} {'% crit':>6}"
    )
    print(f"{'':>13} | {'at 0 ms':<38} | {'at ' + str(int(d * 1000)) + ' ms':<20}")
    for n in args.questions:
        for c in sorted({n, 1}, reverse=True):
            zs, r = samples[(n, c, 0.0)], results[(n, c, d)]
            z = pick(zs)
            per_call_0 = (z.wall - z.model_own) / z.total_calls * 1000
            cpu_call = min(x.cpu - x.model_own for x in zs) / z.total_calls * 1000
            # at latency d, the wall time beyond the model latency on the critical path (serial: every call)
            lat_calls = r.critical_calls if c >= n else r.total_calls
            beyond = r.wall - r.model_own - lat_calls * d
            print(
                f"{n:>3} {c:>3} {z.total_calls:>5} | {z.wall:>6.2f} {per_call_0:>7.1f} {cpu_call:>6.1f} "
                f"{z.fsyncs / z.total_calls:>6.1f} {per_call_0 / (d * 1000) * 100:>6.1f}% | {r.wall:>6.2f} {beyond:>6.2f} "
                f"{beyond / (lat_calls * d) * 100:>5.1f}%"
            )
    print(
        f"   (at 0 ms: ms/call = (wall - the scripted models' own CPU) / calls; CPU ms = process CPU time (all threads)"
        f" per call;\n    % model = ms/call over {d * 1000:.0f} ms, i.e. overhead as a share of the run's model time"
        f" (target < 5%);\n    at {d * 1000:.0f} ms: beyond = wall - latency of the calls on the critical path"
        f" (all calls at C=1), % crit = beyond / that latency)\n"
    )

    print(f"4. tokens (chars / {CHARS_PER_TOKEN}) sent to the models per run (concurrency = N; identical at 0 ms)")
    roles = ["planner", "researcher", "analyst", "writer", "reviewer"]
    print(
        f"{'N':>3} {'parent':>7} " + " ".join(f"{r:>10}" for r in roles) + f" {'all':>8} {'/question':>9} "
        f"{'parent %':>8} {'sys+tools':>9} {'naive':>7} {'all/naive':>9} {'budget est':>10}"
    )
    for n in args.questions:
        r = results[(n, n, d)]
        total = sum(r.chars_in.values())
        naive = r.search_chars + len(QUESTION)
        print(
            f"{n:>3} {0:>7} "
            + " ".join(f"{tokens(r.chars_in.get(x, 0)):>10,}" for x in roles)
            + f" {tokens(total):>8,} {tokens(total) / n:>9,.0f} {0:>7.1f}% {r.fixed_chars / total * 100:>8.0f}%"
            f" {tokens(naive):>7,} {total / naive:>9.1f}"
            f" {r.trace_tokens:>10,}"
        )
    if len(args.questions) > 1:
        n0, t0 = args.questions[0], sum(results[(args.questions[0], args.questions[0], d)].chars_in.values())
        slopes = [(n, (sum(results[(n, n, d)].chars_in.values()) - t0) / (n - n0)) for n in args.questions[1:]]
        print(
            "   tokens per added question: "
            + ", ".join(f"{tokens(v):,} (N={n0}->{n})" for n, v in slopes)
            + "  (equal slopes = linear growth)"
        )
    print(
        "   parent: the LangGraph parent is not a model and sends 0 tokens; sys+tools: share of the input that is"
        " system prompts and tool schemas, resent with every call;\n   naive: the question plus every passage the"
        " searches returned, in one prompt;\n   budget est: what the harness charged its token budget (chars/3 +"
        " tool schemas + a 4,096-token output allowance per call)"
    )
    print(
        f"{'N':>3} {'parent state B':>14} {'/all chars':>10} {'parent ckpts':>12} {'subagent ckpts':>14} "
        f"{'subagent ckpt B':>15} {'sqlite KiB':>10} {'run.json B':>10} {'passages':>8}"
    )
    for n in args.questions:
        r = results[(n, n, d)]
        total = sum(r.chars_in.values())
        print(
            f"{n:>3} {r.state_bytes:>14,} {r.state_bytes / total * 100:>9.1f}% {r.checkpoints:>12} "
            f"{r.extra['inner_checkpoints']:>14} {r.extra['inner_checkpoint_bytes']:>15,} "
            f"{r.checkpoint_db_bytes / 1024:>10.0f} {r.extra['run_json_bytes']:>10,} {r.passages:>8}"
        )
    print(
        "   parent state B: the parent's latest checkpoint (the whole graph state); subagent ckpts: inner agent steps"
        " that LangGraph also checkpoints into the parent's store\n"
    )

    print(
        f"5. where the harness time goes: one {n_max}-question run, concurrency 1, 0 ms models "
        f"({profiled.wall:.2f} s, {profiled.total_calls} model calls; inclusive, nested rows overlap)"
    )
    print(f"{'':<60} {'calls':>6} {'ms':>8} {'ms/model call':>14} {'% of wall':>10}")
    rows = sorted(timers.seconds.items(), key=lambda kv: -kv[1])
    rows.insert(0, ("scripted models' own CPU (not harness)", profiled.model_own))
    for key, sec in rows:
        calls = timers.calls.get(key, profiled.total_calls)
        print(
            f"{key:<60} {calls:>6} {sec * 1000:>8.0f} {sec * 1000 / profiled.total_calls:>14.2f} "
            f"{sec / profiled.wall * 100:>9.1f}%"
        )
    print()

    if args.json:
        print(
            json.dumps(
                {
                    f"N{k[0]}-C{k[1]}-{int(k[2] * 1000)}ms": {
                        "wall": round(v.wall, 3),
                        "graph_wall": round(v.graph_wall, 3),
                        "setup": round(v.setup, 3),
                        "calls": v.calls,
                        "branch_calls": v.branch_calls,
                        "model_own": round(v.model_own, 3),
                        "chars_in": v.chars_in,
                        "chars_out": v.chars_out,
                        "search_chars": v.search_chars,
                        "passages": v.passages,
                        "state_bytes": v.state_bytes,
                        "checkpoint_db_bytes": v.checkpoint_db_bytes,
                        "checkpoints": v.checkpoints,
                    }
                    for k, v in results.items()
                }
            )
        )


if __name__ == "__main__":
    main()
