"""Screen a change to the HotpotQA document chain (`engines/offline/chain.py`) without re-running the engine.

`dump` runs tune questions through the offline engine (as `bench_hotpot.py` does) and keeps, per question, what
the chain was chosen from: the `Ask`, the sentence pool `chain_docs` / `chain_sentences` read, the chain the run
wrote, and the cited cards (which span of which paragraph, chain card or not). `replay` then calls a variant of
the chain functions on each pool and scores the report the variant would have cited: the run's other cited cards
plus the variant's chain sentences (each with the antecedent it quotes). The Writer's merging of cards into claims
and its checks are not modelled; on the code as it stands the replay gives the bench's figures (tune, first 200:
F1 0.692, every gold 0.840, answer 0.842, precision 0.842), but a variant's are a screen: measure a kept idea with
`bench_hotpot.py`. Tune part only (bench/README.md, issue 23).

Usage:
    .venv/bin/python bench/replay_hotpot_chain.py dump --n 543 --out /tmp/pools.pkl
    .venv/bin/python bench/replay_hotpot_chain.py replay /tmp/pools.pkl            # the code as it is
    .venv/bin/python bench/replay_hotpot_chain.py replay /tmp/pools.pkl --variant mymodule:chain
      (`chain(ask, pool) -> sentences`, in a module on sys.path)
"""

from __future__ import annotations

import argparse
import importlib
import json
import pickle
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bench_hotpot as bh  # noqa: E402


def _dump_one(row: dict) -> dict:
    import harness
    from harness.engines.offline import researcher

    seen: dict = {}
    original = researcher.chain_sentences

    def spy(ask, pool, chain):
        out = original(ask, pool, chain)
        seen.update(ask=ask, pool=pool, chain=chain, sentences=out)
        return out

    researcher.chain_sentences = spy
    try:
        with tempfile.TemporaryDirectory(prefix="hotpot-replay-") as tmp:
            corpus = Path(tmp) / "corpus"
            corpus.mkdir()
            layout = bh.write_corpus(row, corpus)
            if not layout:
                return {"row": row, "score": bh.score_run(row, layout, Path(tmp), "no_context"), "layout": layout}
            result = harness.run(row["question"].strip(), corpus=corpus, runs_dir=Path(tmp) / "runs", yes=True)
            score = bh.score_run(row, layout, result.run_dir, result.status)
            report = result.run_dir / "final-report.md"
            completed = result.status == "completed" and report.is_file()
            cards = bh.cited_cards(result.run_dir) if completed else []
            body = bh.body_of(report.read_text(encoding="utf-8")) if report.is_file() else ""
    finally:
        researcher.chain_sentences = original
    return {"row": row, "score": score, "layout": layout, "cards": cards, "body": body, **seen}


def dump(args) -> int:
    rows = [json.loads(line) for line in bh.DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    part = set(json.loads(bh.SPLIT.read_text(encoding="utf-8"))["tune"])
    rows = [row for row in rows if row["_id"] in part][args.start : args.start + args.n]
    import os

    os.environ.setdefault("RESEARCH_CACHE_DIR", tempfile.mkdtemp(prefix="hotpot-cache-"))
    with ProcessPoolExecutor(args.workers) as ex:
        items = list(ex.map(_dump_one, rows, chunksize=4))
    args.out.write_bytes(pickle.dumps(items))
    bh.print_table([it["score"] for it in items])
    return 0


def rescore(item: dict, sentences: list) -> dict:
    """The item's scores with `sentences` as its chain in place of the run's."""
    row, layout = item["row"], item["layout"]
    if "pool" not in item:  # no chain of documents in this run: as measured
        return item["score"]
    paths = {c["source_id"]: c["path"] for c in item["cards"]}
    for sid, sents in item["pool"].items():
        paths.setdefault(sid, _path_of(layout, sents[0].title) if sents else "")

    def key(s) -> tuple:
        return (s.source_id, s.start - len(s.lead), s.end)

    kept = {key(s) for s in sentences}
    dropped = {key(s) for s in item["sentences"]} - kept
    added = [s for s in sentences if key(s) not in {key(o) for o in item["sentences"]}]
    # the run's cited cards less the chain sentences the variant drops, plus the ones it adds (a chain sentence
    # both keep stays as the run wrote it: cited or not)
    cited = [c for c in item["cards"] if (c["source_id"], *c["span"]) not in dropped] + [
        {"source_id": s.source_id, "path": paths[s.source_id], "span": key(s)[1:], "quote": s.lead + s.text}
        for s in added
    ]
    answer = bh.normalize_answer(row["answer"])
    score = dict(item["score"])
    if score["answer_in_body"] is not None:
        quoted = bh.normalize_answer(" ".join(c["quote"] for c in item["cards"]))
        elsewhere = score["answer_in_body"] and answer not in quoted  # a table header, a heading
        score["answer_in_body"] = elsewhere or answer in bh.normalize_answer(" ".join(c["quote"] for c in cited))
    score.update(bh.citation_scores(row, layout, cited))
    return score


def _path_of(layout: dict, title: str) -> str:
    return next((p for p, (t, _) in layout.items() if t == title), "")


def replay(args) -> int:
    items = pickle.loads(args.pools.read_bytes())[args.start : args.start + args.n]
    if args.variant:
        module, _, name = args.variant.partition(":")
        variant = getattr(importlib.import_module(module), name or "chain")
    else:
        from harness.engines.offline.chain import chain_docs, chain_sentences

        def variant(ask, pool):
            return chain_sentences(ask, pool, chain_docs(ask, pool))

    scores = [rescore(it, variant(it["ask"], it["pool"])) if "pool" in it else it["score"] for it in items]
    s = bh.summarize(scores)
    print(
        f"n={s['n']} F1 {s['sp_f1']:.3f} every {s['every_gold_cited']:.3f} answer {s['answer_in_body']:.3f} "
        f"precision {s['citation_precision']:.3f} sp P/R {s['sp_precision']:.3f}/{s['sp_recall']:.3f}"
    )
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump", help="run tune questions, keep each chain's pool")
    d.add_argument("--start", type=int, default=0)
    d.add_argument("--n", type=int, default=543)
    d.add_argument("--workers", type=int, default=2)
    d.add_argument("--out", type=Path, required=True)
    r = sub.add_parser("replay", help="score a chain variant over dumped pools")
    r.add_argument("pools", type=Path)
    r.add_argument("--variant", help="module:function(ask, pool) -> chain sentences (default: chain.py as it is)")
    r.add_argument("--start", type=int, default=0)
    r.add_argument("--n", type=int, default=543)
    args = ap.parse_args(argv)
    return dump(args) if args.cmd == "dump" else replay(args)


if __name__ == "__main__":
    sys.exit(main())
