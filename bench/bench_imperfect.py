"""How often a competent but imperfect model gets a run through the guards, and whether the guards still hold.

Each seed draws a mix of real-model behaviours (tests/fakes/realistic.py `random_quirks`):
one-sentence quotes with the passage's span or offsets a few characters off, dropped
Markdown marks, curly quotes, paraphrased first quotes, too many searches, plans and drafts
replied in text, piecemeal reads, unknown card ids, natural drafts, stray reviewer errors,
re-research. The whole pipeline runs on the llm engine with those scripted models (no
network), over a small Markdown corpus, and the run is judged from its folder:

- completed: status `completed`, a final report, and `research validate` clean;
- invariant violations: a workspace that does not validate, a card quote not verbatim in
  its snapshot at its span, a final-report citation that does not resolve to a claim's
  card, a rejected/unsupported claim in the report, a budget spent past its limit, a file
  outside the run folder.

    .venv/bin/python bench/bench_imperfect.py --seeds 60
    .venv/bin/python bench/bench_imperfect.py --seeds 60 --transport gemini   # the real Gemini client, local stub
    .venv/bin/python bench/bench_imperfect.py --seeds 20 --transport openai-weak   # the real OpenAI client, a weak model

`openai-weak` adds what a weak open model behind vLLM or Ollama sends (tests/fakes/weak.py):
tool arguments that are not JSON, wrong and extra argument names, calls to tools that do not
exist, several calls in one message, `<think>` blocks, replies cut at the length limit.

Prints one line per seed (status, quirks) and the totals.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from fakes.realistic import DOCS, random_quirks, realistic_policies  # noqa: E402
from fakes.scripted import scripted_models  # noqa: E402

QUESTION = "How do asyncio.TaskGroup and asyncio.gather differ when a task fails?"
CARD_LINK = re.compile(r"\[(C\d+)[^\]]*\]\((source-cards/[^)]+\.json)\)")


def _harness():
    from harness.orchestrator.config import build_config
    from harness.orchestrator.lifecycle import start_run
    from harness.workspace.validate import validate_workspace

    return build_config, start_run, validate_workspace


def violations(run_dir: Path, validate_workspace) -> list[str]:
    """Every invariant the run folder breaks (empty when it holds them all)."""
    out = [f"validate: {p}" for p in validate_workspace(run_dir)]
    for path in sorted((run_dir / "source-cards").glob("*.json")):
        card = json.loads(path.read_text())
        text = (run_dir / f"sources/{card['source_id']}.txt").read_text()
        got = text[card["span"]["start"] : card["span"]["end"]]
        if " ".join(got.split()) != " ".join(card["quote"].split()):
            out.append(f"quote not verbatim: {path.name}")
    report = run_dir / "final-report.md"
    if report.is_file():
        claims = {c["claim_id"]: c for c in json.loads((run_dir / "claims.json").read_text())["claims"]}
        for cid, link in CARD_LINK.findall(report.read_text()):
            claim = claims.get(cid)
            card_id = link.split("/")[-1][:-5]
            if claim is None or card_id not in claim["supporting_cards"] + claim["contradicting_cards"]:
                out.append(f"citation does not resolve: {cid} -> {link}")
            elif claim["status"] in ("rejected", "unsupported"):
                out.append(f"unusable claim reported: {cid}")
    budget = json.loads((run_dir / "run.json").read_text())["budget"]
    for dim, limit in (budget.get("limits") or {}).items():
        if limit is not None and dim != "wall_seconds" and (budget.get("spent") or {}).get(dim, 0) > limit:
            out.append(f"budget exceeded: {dim}")
    return out


def run_seed(seed: int, base: Path, transport: str) -> tuple[str, list[str], float]:
    build_config, start_run, validate_workspace = _harness()
    corpus = base / "corpus"
    for name, text in DOCS.items():
        (corpus / name).parent.mkdir(parents=True, exist_ok=True)
        (corpus / name).write_text(text, encoding="utf-8")
    quirks = random_quirks(seed)
    t0 = time.perf_counter()
    if transport == "gemini":
        from fakes.gemini_stub import GeminiStub
        from fakes.scripted import GeminiDispatch

        with GeminiStub(GeminiDispatch(realistic_policies(quirks))) as stub:
            os.environ.update(GOOGLE_API_KEY="stub-key", GOOGLE_GEMINI_BASE_URL=stub.base_url, NO_PROXY="127.0.0.1")
            cfg = build_config(
                QUESTION,
                corpus=str(corpus),
                runs_dir=str(base / "runs"),
                engine="llm",
                model="google_genai:gemini-3.5-flash",
                yes=True,
            )
            result = start_run(cfg)
    elif transport.startswith("openai"):
        from fakes.openai_stub import OpenAIStub
        from fakes.scripted import OpenAIDispatch
        from fakes.weak import WeakShape

        shape = WeakShape(seed) if transport == "openai-weak" else None
        with OpenAIStub(OpenAIDispatch(realistic_policies(quirks), shape=shape)) as stub:
            os.environ["NO_PROXY"] = "127.0.0.1"
            cfg = build_config(
                QUESTION,
                corpus=str(corpus),
                runs_dir=str(base / "runs"),
                engine="llm",
                model="openai:qwen2.5-7b-instruct",
                model_base_url=stub.base_url,
                yes=True,
            )
            result = start_run(cfg)
        if shape is not None:
            quirks = f"{quirks} slips={dict(shape.slips)}"
    else:
        cfg = build_config(
            QUESTION, corpus=str(corpus), runs_dir=str(base / "runs"), engine="llm", model="scripted:fake", yes=True
        )
        result = start_run(cfg, models=scripted_models(realistic_policies(quirks)))
    seconds = time.perf_counter() - t0
    found = violations(result.run_dir, validate_workspace)
    done = result.status == "completed" and (result.run_dir / "final-report.md").is_file() and not found
    label = "completed" if done else f"{result.status}: {(result.reason or '')[:110]}"
    return label, found, seconds, quirks


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=60)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--transport", choices=["scripted", "gemini", "openai", "openai-weak"], default="scripted")
    args = ap.parse_args()
    for key in ("GOOGLE_API_KEY", "GEMINI_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        os.environ.pop(key, None)
    outcomes: Counter = Counter()
    broken = 0
    with tempfile.TemporaryDirectory(prefix="bench-imperfect-") as tmp:
        os.environ["RESEARCH_CACHE_DIR"] = str(Path(tmp) / "cache")  # removed with the runs
        for seed in range(args.start, args.start + args.seeds):
            base = Path(tmp) / f"seed-{seed}"
            base.mkdir()
            label, found, seconds, quirks = run_seed(seed, base, args.transport)
            outcomes["completed" if label == "completed" else label.split(":")[0]] += 1
            broken += bool(found)
            print(f"seed {seed:3d} {seconds:5.1f}s {label}" + (f"  VIOLATIONS: {found}" if found else ""), flush=True)
            print(f"         quirks: {quirks}", flush=True)
    n = args.seeds
    print(
        f"\n{args.transport}: {outcomes['completed']}/{n} completed ({outcomes['completed'] / n:.0%}); "
        f"runs with an invariant violation: {broken}; outcomes: {dict(outcomes)}"
    )


if __name__ == "__main__":
    main()
