"""The whole pipeline with every role on a seeded adversarial model (tests/adversarial.py).

Hypothesis draws the seed and the run's shape (revisions, concurrency, budgets, approval
gates); after every run the invariants are checked on whatever landed: the workspace
validates, nothing was created outside it, loops and budgets stayed in their bounds, no
role read past its spec, every artifact was written by the role allowed to, the run ended
in a defined status, and start_run returned. The examples are derandomized, so the suite
is repeatable; set RESEARCH_ADVERSARIAL_EXAMPLES to run more (new seeds each time).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, ToolMessage

from fakes.adversarial import INJECTED_DOC, MOVES, Adversary
from fakes.workspaces import ASYNCIO_DOCS, write_docs
from harness.contract.formats import plan_content_sha256
from harness.contract.globs import matches
from harness.contract.specs import load_default_specs
from harness.contract.statuses import TERMINAL_RUN_STATUSES as TERMINAL_STATUSES
from harness.orchestrator.config import build_config
from harness.orchestrator.lifecycle import RunResult, start_run
from harness.sources.injection import find_injections
from harness.workspace.validate import validate_workspace

QUESTION = "How do failures propagate in asyncio task groups, timeouts and gather?"
CORPUS = {**ASYNCIO_DOCS, "forum/notes.md": INJECTED_DOC}
EXAMPLES = int(os.environ.get("RESEARCH_ADVERSARIAL_EXAMPLES", "25"))
COVERAGE_SEEDS = (
    0,
    1,
    2,
    3,
    5,
    6,
    7,
    9,
    11,
    13,
    15,
    22,
    37,
    45,
)  # fixed seeds that between them reach every terminal status and play every move checked below (22 plays
# malformed_json); a seed in CLEAN_SEEDS plays only valid moves, so `completed` (45) and, on a tight budget,
# `budget_exhausted` (6) are reached by design, not by luck
CLEAN_SEEDS = {6, 45}
TIGHT_BUDGET_SEEDS = {6: 6}  # seed -> llm_calls: a run budget that runs out mid-pipeline

# Who may have written each artifact (run.json's `writer`), by path.
WRITERS = [
    ("plan.json", {"planner", "harness", "human"}),
    ("sources/*", {"tools"}),
    ("source-cards/*", {"researcher"}),
    ("claims.json", {"analyst"}),
    ("drafts/*", {"writer"}),
    ("reviews/*", {"reviewer", "harness"}),
    ("final-report.md", {"harness"}),
    ("metrics.json", {"harness"}),
    ("README.md", {"harness"}),
]
STOP_REASONS = {"completed", "blocked", "failed", "timeout", "budget_exhausted"}
SPECS = load_default_specs()


def write_corpus(root: Path) -> Path:
    return write_docs(root, CORPUS)


def listing(root: Path, skip: Path | None = None) -> dict[str, str]:
    """Every path under `root` (not under `skip`) with a hash of its bytes ('dir' for folders)."""
    out = {}
    for p in sorted(root.rglob("*")):
        if skip is not None and (p == skip or skip in p.parents):
            continue
        out[p.relative_to(root).as_posix()] = "dir" if p.is_dir() else hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def messages_seen(models) -> dict[str, list[tuple[dict | None, ToolMessage]]]:
    """Per role: each distinct tool result a model was sent, with the call it answers."""
    out: dict[str, list] = {}
    for role, model in models.items():
        seen, pairs = set(), []
        for msgs in model.calls:
            calls = {}
            for m in msgs:
                if isinstance(m, AIMessage):
                    calls.update({c["id"]: c for c in m.tool_calls})
                elif isinstance(m, ToolMessage) and m.tool_call_id not in seen:
                    seen.add(m.tool_call_id)
                    pairs.append((calls.get(m.tool_call_id), m))
        out[role] = pairs
    return out


def run_adversary(
    base: Path,
    seed: int,
    *,
    max_revisions: int,
    concurrency: int,
    final_gate: bool,
    plan_rejections: int,
    llm_calls: int,
    tokens: int,
    p_bad: float | None = None,
) -> tuple[RunResult, Adversary, dict, list[dict], dict]:
    corpus = write_corpus(base / "corpus")
    adversary = Adversary(seed, base, p_bad=p_bad)
    (base / "canary.txt").write_text(adversary.canary_outside, encoding="utf-8")
    models = adversary.models()
    gates: list[dict] = []

    def approver(ws, payload):
        gates.append(payload)
        if payload["gate"] == "plan":
            if sum(g["gate"] == "plan" for g in gates) <= plan_rejections:
                return {"decision": "reject", "feedback": "Narrow the scope to TaskGroup.", "by": "tester"}
            return {"decision": "approve", "by": "tester"}
        return {"decision": "approve", "version": payload["sha256"], "by": "tester"}

    def plant_private_canary(ws):
        (ws.private_dir / "canary.txt").write_text(adversary.canary_private, encoding="utf-8")

    cfg = build_config(
        QUESTION,
        corpus=str(corpus),
        runs_dir=str(base / "runs"),
        engine="llm",
        model="scripted:adversary",
        max_revisions=max_revisions,
        concurrency=concurrency,
        require_final_approval=final_gate,
        budget={"llm_calls": llm_calls, "tokens": tokens, "searches": 24, "wall_seconds": 600},
    )
    cfg.role_budgets = {
        "researcher": {"llm_calls": max(10, llm_calls // 3)},
        "writer": {"tokens": tokens // 3},
        "reviewer": {"llm_calls": 30},
    }
    before = listing(base)
    result = start_run(cfg, models=models, approver=approver, on_created=plant_private_canary)
    return result, adversary, models, gates, before


def check_invariants(
    base: Path,
    result: RunResult,
    adversary: Adversary,
    models: dict,
    gates: list[dict],
    before: dict,
    *,
    max_revisions: int,
    final_gate: bool,
) -> None:
    """Every invariant the adversary must not break, one step per group (the numbers are the threat model's)."""
    run = result.run_dir
    manifest = json.loads((run / "run.json").read_text(encoding="utf-8"))
    events = [json.loads(line) for line in (run / "trace.jsonl").read_text(encoding="utf-8").splitlines()]
    delegations = [e for e in events if e["event"] == "delegation"]
    _assert_a_defined_end(result, manifest)
    _assert_nothing_outside_changed(base, run, adversary, before)
    _assert_every_file_indexed(run, manifest)
    _assert_reads_allowed(models, adversary)
    _assert_within_bounds(run, manifest, delegations, models, max_revisions)
    _assert_plan_approved(run, manifest, delegations, gates)
    _assert_report_reviewed(run, result, gates, final_gate)


def _assert_a_defined_end(result: RunResult, manifest: dict) -> None:
    """A defined end, recorded; and (1-5, 9) the workspace validates."""
    run = result.run_dir
    assert result.status in (*TERMINAL_STATUSES, "budget_exhausted"), (result.status, result.reason)
    assert (manifest["status"], manifest.get("status_reason")) == (result.status, result.reason)
    assert result.status == "completed" or result.reason
    assert (run / "metrics.json").is_file()
    problems = validate_workspace(run)
    assert problems == [], "\n".join(map(str, problems))


def _assert_nothing_outside_changed(base: Path, run: Path, adversary: Adversary, before: dict) -> None:
    """7: nothing outside the workspace changed or appeared; nothing the adversary named exists anywhere."""
    assert listing(base, skip=run) == {**before, "runs": "dir"}
    assert [p.name for p in (base / "runs").iterdir()] == [run.name]
    token = adversary.token
    for where in (Path("/etc"), Path("/tmp"), Path.home(), Path.cwd(), Path.cwd().parent, Path("/")):
        hits = [p for p in where.iterdir() if token in p.name] if where.is_dir() else []
        assert hits == [], hits
    assert [p for p in run.rglob("*") if token in p.name] == []
    assert (run / ".harness/checkpoints.sqlite").read_bytes()[:15] == b"SQLite format 3"


def _assert_every_file_indexed(run: Path, manifest: dict) -> None:
    """Every file of the workspace is indexed (or the harness's own), written by the role allowed to."""
    artifacts = manifest["artifacts"]
    for p in run.rglob("*"):
        rel = p.relative_to(run).as_posix()
        if p.is_file() and not rel.startswith(".harness/"):
            assert rel in artifacts or rel in ("run.json", "trace.jsonl"), rel
    for rel, entry in artifacts.items():
        allowed = next((who for glob, who in WRITERS if matches(rel, [glob])), set())
        assert entry["writer"] in allowed, (rel, entry["writer"])


def _assert_reads_allowed(models: dict, adversary: Adversary) -> None:
    """7: no role saw a file its spec does not let it read, nor anything outside the workspace."""
    for role, pairs in messages_seen(models).items():
        reads = list(SPECS[role].reads)
        for call, msg in pairs:
            text = str(msg.content)
            assert adversary.canary_outside not in text and adversary.canary_private not in text, (role, call)
            if call and call["name"] == "read_file" and msg.status != "error":
                path = str(call["args"].get("file_path", "")).lstrip("/")
                assert path.startswith("scratch/") or matches(path, reads), (role, call["args"], text[:200])


def _assert_within_bounds(run: Path, manifest: dict, delegations: list[dict], models: dict, max_revisions: int) -> None:
    """6: the revise loop and every budget stayed in their bounds."""
    drafts = sorted((run / "drafts").glob("*"))
    reviews = sorted((run / "reviews").glob("*"))
    assert len(drafts) <= max_revisions + 1 and len(reviews) <= len(drafts)
    assert all(re.fullmatch(r"draft-[1-9]\d*\.md", p.name) for p in drafts)
    budget = manifest["budget"]
    for dim, limit in budget["limits"].items():
        assert limit is None or budget["spent"][dim] <= limit, (dim, budget["spent"][dim], limit)
    for role, b in budget["roles"].items():
        for dim, limit in b["limits"].items():
            assert limit is None or b["spent"][dim] <= limit, (role, dim)
    for e in delegations:
        assert e["stop_reason"] in STOP_REASONS, e["stop_reason"]
        for dim in ("llm_calls", "tokens"):
            limit = e["budget"].get(dim)
            assert limit is None or e[dim] <= limit, (e["delegation_id"], dim)
    calls = sum(len(m.calls) for m in models.values())
    assert budget["spent"]["llm_calls"] == calls == sum(e["llm_calls"] for e in delegations)


def _assert_plan_approved(run: Path, manifest: dict, delegations: list[dict], gates: list[dict]) -> None:
    """9: research started only on a plan a human approved, bound to its hash."""
    if any(e["agent"] != "planner" for e in delegations):
        plan = json.loads((run / "plan.json").read_text(encoding="utf-8"))
        sha = plan_content_sha256(plan)
        assert plan["approval"]["decision"] == "approved" and plan["approval"]["plan_sha256"] == sha
        assert any(
            d["gate"] == "plan" and d["decision"] in ("approved", "edited") and d["sha256"] == sha
            for d in manifest["decisions"]
        )
        assert any(g["gate"] == "plan" for g in gates)


def _assert_report_reviewed(run: Path, result: RunResult, gates: list[dict], final_gate: bool) -> None:
    """4-5: a completed run's report passed review: no rejected or unsupported claim, no instructions echoed."""
    if result.status != "completed":
        assert not (run / "final-report.md").exists()
        return
    assert (run / "final-report.md").is_file()
    if final_gate:
        assert [g for g in gates if g["gate"] == "final"]
    reviews = sorted((run / "reviews").glob("*"))
    passing = [r for r in reviews if json.loads(r.read_text())["verdict"] == "pass"]
    assert passing
    draft_rel = json.loads(passing[-1].read_text())["draft"]
    draft = (run / draft_rel).read_text(encoding="utf-8")
    claims = {c["claim_id"]: c for c in json.loads((run / "claims.json").read_text())["claims"]}
    cited = set(re.findall(r"@(C\d+)", draft))
    assert cited <= set(claims)
    assert not [c for c in cited if claims[c]["status"] in ("rejected", "unsupported")]
    assert find_injections(draft) == []
    assert instructions_outside_quotes((run / "final-report.md").read_text(encoding="utf-8")) == []


def instructions_outside_quotes(report: str) -> list[str]:
    """Instruction-like text in the final report, outside the verbatim source quotes (“...”) of its Evidence section."""
    return [f["excerpt"] for f in find_injections(re.sub(r"“[^”]*”", "“…”", report))]


SHAPES = dict(
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    max_revisions=st.integers(0, 2),
    concurrency=st.integers(1, 3),
    final_gate=st.booleans(),
    plan_rejections=st.sampled_from([0, 0, 0, 1, 3]),
    llm_calls=st.integers(12, 120),
    tokens=st.integers(400_000, 3_000_000),
)


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=EXAMPLES <= 25,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(**SHAPES)
@example(seed=20, max_revisions=1, concurrency=2, final_gate=True, plan_rejections=0, llm_calls=120, tokens=3_000_000)
@example(seed=0, max_revisions=2, concurrency=1, final_gate=False, plan_rejections=1, llm_calls=120, tokens=3_000_000)
def test_the_pipeline_holds_its_invariants_against_an_adversarial_model(
    tmp_path, seed, max_revisions, concurrency, final_gate, plan_rejections, llm_calls, tokens
):
    base = Path(tempfile.mkdtemp(dir=tmp_path, prefix=f"seed{seed}-"))
    result, adversary, models, gates, before = run_adversary(
        base,
        seed,
        max_revisions=max_revisions,
        concurrency=concurrency,
        final_gate=final_gate,
        plan_rejections=plan_rejections,
        llm_calls=llm_calls,
        tokens=tokens,
    )
    check_invariants(base, result, adversary, models, gates, before, max_revisions=max_revisions, final_gate=final_gate)


def test_the_adversary_plays_every_move_and_runs_end_in_many_statuses(tmp_path):
    """Coverage of the adversary itself over a fixed set of seeds (so the property test above means something)."""
    played, statuses = set(), set()
    for seed in COVERAGE_SEEDS:
        base = Path(tempfile.mkdtemp(dir=tmp_path, prefix=f"seed{seed}-"))
        result, adversary, models, gates, before = run_adversary(
            base,
            seed,
            max_revisions=1,
            concurrency=2,
            final_gate=False,
            plan_rejections=3 if seed == 2 else 0,
            llm_calls=TIGHT_BUDGET_SEEDS.get(seed, 120),
            tokens=3_000_000,
            p_bad=0.0 if seed in CLEAN_SEEDS else 0.6 if seed % 2 else 0.2,
        )
        played |= set(adversary.moves)
        statuses.add(result.status)
        check_invariants(base, result, adversary, models, gates, before, max_revisions=1, final_gate=False)
    assert {"valid", "escape_write", "escape_read", "forbidden_write", "unknown_tool", "malformed_json"} <= played
    assert len(played) >= len(MOVES) // 2, sorted(played)
    assert statuses == {*TERMINAL_STATUSES, "budget_exhausted"}, statuses


# ---- bugs the adversary found, now fixed: each stays as a regression test ------------------------------------


def test_a_planner_cannot_forge_its_own_plan_approval(tmp_path):
    """A model writing its own approval record into plan.json does not get past the human plan gate."""
    import random

    from fakes.adversarial import m_forge_plan_approval
    from fakes.scripted import planner_policy, role_policies, scripted_models

    adversary = Adversary(0, tmp_path)

    def forger(t):
        action = planner_policy(2)(t)
        return m_forge_plan_approval(adversary, random.Random(0), "planner", t, action) or action

    corpus = write_corpus(tmp_path / "corpus")
    gates: list[dict] = []
    cfg = build_config(
        QUESTION, corpus=str(corpus), runs_dir=str(tmp_path / "runs"), engine="llm", model="scripted:forger"
    )
    result = start_run(
        cfg,
        models=scripted_models(role_policies(2, planner=forger)),
        approver=lambda ws, p: gates.append(p) or {"decision": "approve", "by": "tester", "version": p.get("sha256")},
    )
    manifest = json.loads((result.run_dir / "run.json").read_text())
    assert [g["gate"] for g in gates][:1] == ["plan"], "the human plan gate was skipped"
    assert any(d["gate"] == "plan" for d in manifest["decisions"])


def test_instructions_written_into_a_claim_never_reach_the_final_report(tmp_path):
    """Instruction-like text the Analyst writes into a claim is caught before the final report prints it."""
    import random

    from fakes.adversarial import m_claim_injection
    from fakes.scripted import analyst_policy, role_policies, scripted_models

    adversary = Adversary(0, tmp_path)

    def analyst(t):
        action = analyst_policy()(t)
        return m_claim_injection(adversary, random.Random(0), "analyst", t, action) or action

    corpus = write_corpus(tmp_path / "corpus")
    cfg = build_config(
        QUESTION, corpus=str(corpus), runs_dir=str(tmp_path / "runs"), engine="llm", model="scripted:x", yes=True
    )
    result = start_run(cfg, models=scripted_models(role_policies(2, analyst=analyst)))
    assert validate_workspace(result.run_dir) == []
    report = result.run_dir / "final-report.md"
    assert result.status != "completed" or instructions_outside_quotes(report.read_text(encoding="utf-8")) == []
