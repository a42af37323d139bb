"""The offline engine over a documentation folder nobody tuned on: does the report find, cite and quote the answer?

A set file (`bench/uvdocs_questions.json`, `bench/fastapidocs_questions.json`) names the public repository, commit
and sub-folder its corpus was taken from, and holds questions written from the documents before any run, each with
a `kind` ("what", "how", "compare"), its `gold` documents (paths relative to the corpus folder), `key_phrases`
copied from the gold document's answering sentence, and a `split` ("tune" or "test") made once, stratified by kind
(`stratified_split`). Each question of one split is run offline over `--corpus DIR` (plan approved), and the run
is scored side by side, per kind:

- gold document retrieved: some search of the run registered a gold document (cited or not);
- gold document carded: an evidence card quotes a gold document;
- key phrase in a card: a card's quote holds a key phrase (the answering sentence reached the evidence);
- gold document cited: a claim the report body cites rests on a card from a gold document;
- citation precision: the share of cited documents that are gold (0 when nothing is cited);
- key phrase in body: a key phrase occurs in the report body (read `plain`, as bench_pythondocs does);
- completed runs.

The test half is read once, at the end (bench/README.md): the script runs the tune half unless `--split test`
is given, and never prints a test question's own line. `--check` only checks the set against the corpus (every
gold document present, every key phrase in a gold document and free of Markdown markup) and runs nothing.
`--verbose` prints a line per tune question and, under it, why each branch's answer card won: the named terms of its
`Score` (`profile.Score`), through the Researcher's `CARD_HOOKS`.

Usage:
    .venv/bin/python bench/bench_docs.py --questions bench/uvdocs_questions.json --corpus /work/corpora/uv-docs --check
    .venv/bin/python bench/bench_docs.py --questions bench/uvdocs_questions.json --corpus /work/corpora/uv-docs
    .venv/bin/python bench/bench_docs.py --questions bench/fastapidocs_questions.json \\
        --corpus /work/corpora/fastapi-docs --verbose --workers 2 --json /tmp/fastapi-tune.json
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_hotpot import body_of, cited_cards  # noqa: E402  (the report body and citations every bench scores)
from bench_pythondocs import key_phrase_in, plain, retrieved_documents  # noqa: E402  (the same key-phrase rule)

KINDS = ("what", "how", "compare")
SPLITS = ("tune", "test")
# Characters that Markdown may drop or move when a document is rendered to text: a key phrase holding one could
# stop matching the report once documents are read as text, so a set may not use them.
MARKUP = set("`*[]<>|")
FIGURES = (
    ("gold document retrieved", "gold_retrieved"),
    ("gold document carded", "gold_carded"),
    ("key phrase in a card", "phrase_in_card"),
    ("gold document cited", "gold_cited"),
    ("citation precision", "citation_precision"),
    ("key phrase in body", "answer_in_body"),
)


class SetError(ValueError):
    """A set file that cannot be used, in one line naming the file and the field."""


def load_set(path: Path) -> dict:
    """The set file, checked field by field (kinds, splits, gold paths and key phrases)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SetError(f"{path}: {exc}") from None
    corpus = data.get("corpus") if isinstance(data, dict) else None
    if not isinstance(corpus, dict) or not all(isinstance(corpus.get(k), str) for k in ("repo", "commit", "folder")):
        raise SetError(f"{path}: corpus: needs repo, commit and folder")
    questions = data.get("questions")
    if not isinstance(questions, list) or not questions:
        raise SetError(f"{path}: questions: needs a non-empty list")
    for i, item in enumerate(questions):
        where = f"{path}: questions[{i}]"
        if not isinstance(item, dict) or not isinstance(item.get("question"), str) or not item["question"].strip():
            raise SetError(f"{where}.question: needs a question")
        if item.get("kind") not in KINDS:
            raise SetError(f"{where}.kind: {item.get('kind')!r} is not one of {', '.join(KINDS)}")
        if item.get("split") not in SPLITS:
            raise SetError(f"{where}.split: {item.get('split')!r} is not one of {', '.join(SPLITS)}")
        for field in ("gold", "key_phrases"):
            value = item.get(field)
            if not isinstance(value, list) or not value or not all(isinstance(v, str) and v.strip() for v in value):
                raise SetError(f"{where}.{field}: needs a non-empty list of strings")
    return data


def stratified_split(kinds: list[str], seed: int) -> list[str]:
    """The split of each question, given by its kind in file order: within each kind, a fixed-seed shuffle of its
    questions, the first half (rounded down) "tune", the rest "test"."""
    rng = random.Random(seed)
    labels = [""] * len(kinds)
    for kind in KINDS:
        members = [i for i, k in enumerate(kinds) if k == kind]
        rng.shuffle(members)
        for rank, i in enumerate(members):
            labels[i] = "tune" if rank < len(members) // 2 else "test"
    return labels


def check_set(questions: list[dict], corpus: Path) -> list[str]:
    """What makes a set unfit for this corpus, one line each: a gold document missing from the folder, a key
    phrase with Markdown markup, a question that already holds its key phrase, no key phrase in a gold document."""
    problems = []
    for i, item in enumerate(questions):
        where = f"questions[{i}]"
        texts = []
        for gold in item["gold"]:
            path = corpus / gold
            if not path.is_file():
                problems.append(f"{where}.gold: {gold} is not in {corpus}")
            else:
                texts.append(plain(path.read_text(encoding="utf-8", errors="replace")))
        for phrase in item["key_phrases"]:
            if MARKUP & set(phrase):
                problems.append(f"{where}.key_phrases: {phrase!r} holds Markdown markup")
            if plain(phrase) in plain(item["question"]):
                problems.append(f"{where}.key_phrases: {phrase!r} is in the question itself")
        if texts and not any(plain(p) in t for p in item["key_phrases"] for t in texts):
            problems.append(f"{where}.key_phrases: none occurs in a gold document")
    return problems


def phrase_elsewhere(questions: list[dict], corpus: Path) -> dict[int, list[str]]:
    """Per question (by index), the documents other than its gold ones that hold one of its key phrases: a report
    can score "key phrase in body" from them without citing a gold document (read that figure beside gold cited)."""
    texts = {
        p.relative_to(corpus).as_posix(): plain(p.read_text(encoding="utf-8", errors="replace"))
        for p in sorted(corpus.rglob("*"))
        if p.is_file()
    }
    out = {}
    for i, item in enumerate(questions):
        phrases = [plain(k) for k in item["key_phrases"]]
        found = [path for path, text in texts.items() if path not in item["gold"] and any(k in text for k in phrases)]
        if found:
            out[i] = found
    return out


def card_quotes(run_dir: Path) -> list[tuple[str, str]]:
    """(corpus path, quote) of every evidence card the run wrote, cited or not."""
    out = []
    for card_file in sorted((run_dir / "source-cards").glob("*.json")):
        card = json.loads(card_file.read_text(encoding="utf-8"))
        record = run_dir / "sources" / f"{card['source_id']}.json"
        path = (json.loads(record.read_text(encoding="utf-8")).get("path") or "") if record.is_file() else ""
        out.append((path, card.get("quote", "")))
    return out


def score_run(item: dict, run_dir: Path, status: str) -> dict:
    """One question's figures from its run folder (a run without a final report scores as one that cites and
    says nothing)."""
    report = run_dir / "final-report.md"
    completed = status == "completed" and report.is_file()
    body = body_of(report.read_text(encoding="utf-8")) if completed else ""
    gold = set(item["gold"])
    cited = {card["path"] for card in cited_cards(run_dir)} if completed else set()
    cards = card_quotes(run_dir) if (run_dir / "source-cards").is_dir() else []
    return {
        "question": item["question"],
        "kind": item["kind"],
        "split": item["split"],
        "status": status,
        "gold_retrieved": bool(retrieved_documents(run_dir) & gold) if (run_dir / "sources").is_dir() else False,
        "gold_carded": any(path in gold for path, _ in cards),
        "phrase_in_card": any(key_phrase_in(quote, item["key_phrases"]) for _, quote in cards),
        "gold_cited": bool(cited & gold),
        "citation_precision": len(cited & gold) / len(cited) if cited else 0.0,
        "answer_in_body": key_phrase_in(body, item["key_phrases"]),
        "cited": sorted(cited),
        "run_dir": str(run_dir),
    }


def run_one(item: dict, corpus: str, runs_dir: Path, why: bool = False) -> dict:
    """One question run and scored; with `why`, each branch's winning answer card and its `Score` terms too."""
    import harness
    from harness.engines.offline import researcher

    answers: list[tuple[str | None, list]] = []

    def hook(question_id: str | None, chain: list) -> None:
        answers.append((question_id, chain))

    if why:
        researcher.CARD_HOOKS.append(hook)
    try:
        result = harness.run(item["question"], corpus=corpus, runs_dir=runs_dir, engine="offline", yes=True)
    finally:
        if why:
            researcher.CARD_HOOKS.remove(hook)
    scored = score_run(item, result.run_dir, result.status)
    if why:
        # a branch the run researched twice (a rerun) answers the same way: its line once
        lines = [why_line(question_id, chain) for question_id, chain in sorted(answers, key=lambda a: str(a[0]))]
        scored["why"] = list(dict.fromkeys(lines))
    return scored


def why_line(question_id: str | None, chain: list) -> str:
    """Why a branch's winning answer card won: its sentence and the named terms of its `Score` (zero terms left out)."""
    if not chain:
        return f"{question_id}: no answer card"
    best = chain[0]
    terms = ", ".join(f"{name} {value:+.3f}" for name, value in (best.score.terms if best.score else ()) if value)
    sentence = " ".join(best.text.split())
    return f'{question_id} "{best.title}": "{sentence[:90]}" = {best.relevance:.3f} ({terms or "no terms"})'


def table(results: list[dict]) -> list[str]:
    """The figures as a Markdown table: every question, then each kind, side by side."""
    groups = [("all", results)] + [(kind, [r for r in results if r["kind"] == kind]) for kind in KINDS]
    groups = [(name, rs) for name, rs in groups if rs]
    lines = [
        "| figure | " + " | ".join(f"{name} (n={len(rs)})" for name, rs in groups) + " |",
        "| --- |" + " ---: |" * len(groups),
    ]
    for label, key in FIGURES:
        lines.append(
            f"| {label} | " + " | ".join(f"{sum(r[key] for r in rs) / len(rs):.2f}" for _, rs in groups) + " |"
        )
    completed = " | ".join(f"{sum(r['status'] == 'completed' for r in rs)} of {len(rs)}" for _, rs in groups)
    lines.append(f"| completed | {completed} |")
    return lines


def question_line(r: dict) -> str:
    """One tune question: which figures it scored (R retrieved, D carded, Q phrase in a card, C cited, K key
    phrase in body; '.' where it missed), its precision, what it cited."""
    marks = "".join(
        m if r[k] else "."
        for m, k in zip("RDQCK", ("gold_retrieved", "gold_carded", "phrase_in_card", "gold_cited", "answer_in_body"))
    )
    cited = ", ".join(r["cited"]) or "nothing cited"
    return f"  {marks} p={r['citation_precision']:.2f} [{r['kind']}] {r['question']} -> {cited} ({r['status']})"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--questions", type=Path, required=True, help="set file (JSON)")
    ap.add_argument("--corpus", type=Path, required=True, help="the corpus folder the set was written on")
    ap.add_argument("--split", choices=SPLITS, default="tune", help="the half to run (test: read once, at the end)")
    ap.add_argument("--check", action="store_true", help="check the set against the corpus and run nothing")
    ap.add_argument(
        "--verbose", action="store_true", help="one line per question, and why its answer won (tune half only)"
    )
    ap.add_argument("--n", type=int, default=0, help="the first N questions of the half (0: all)")
    ap.add_argument("--workers", type=int, default=1, help="processes")
    ap.add_argument("--json", type=Path, help="write per-question scores here")
    ap.add_argument("--keep", type=Path, help="keep the run folders under this folder")
    args = ap.parse_args(argv)
    try:
        data = load_set(args.questions)
    except SetError as exc:
        print(f"bench_docs: --questions: {exc}", file=sys.stderr)
        return 2
    if not args.corpus.is_dir():
        print(f"bench_docs: --corpus: {args.corpus} is not a folder", file=sys.stderr)
        return 2
    problems = check_set(data["questions"], args.corpus)
    if args.check:
        counts = {(k, s): 0 for k in KINDS for s in SPLITS}
        for item in data["questions"]:
            counts[item["kind"], item["split"]] += 1
        print(f"{args.questions.name}: {len(data['questions'])} questions over {args.corpus}")
        for kind in KINDS:
            print(f"  {kind}: " + ", ".join(f"{s} {counts[kind, s]}" for s in SPLITS))
        elsewhere = phrase_elsewhere(data["questions"], args.corpus)
        print(f"  key phrase also in a non-gold document: {len(elsewhere)} of {len(data['questions'])} questions")
        for i, paths in elsewhere.items():
            print(f"  note: questions[{i}]: also in {', '.join(paths)}")
        for line in problems:
            print(f"  problem: {line}")
        return 1 if problems else 0
    if problems:
        print(f"bench_docs: --questions: {args.questions}: {problems[0]} (see --check)", file=sys.stderr)
        return 2
    if args.verbose and args.split == "test":
        print("bench_docs: --verbose: per-question lines are for the tune half only", file=sys.stderr)
        return 2
    items = [item for item in data["questions"] if item["split"] == args.split]
    items = items[: args.n] if args.n else items
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="docs-bench-") as tmp:
        runs_dir = args.keep or Path(tmp)
        corpus = str(args.corpus.resolve())
        if args.workers > 1:
            from concurrent.futures import ProcessPoolExecutor

            with ProcessPoolExecutor(args.workers) as pool:
                n = len(items)
                results = list(pool.map(run_one, items, [corpus] * n, [runs_dir] * n, [args.verbose] * n))
        else:
            results = [run_one(item, corpus, runs_dir, args.verbose) for item in items]
    elapsed = time.perf_counter() - started
    source = data["corpus"]
    print(f"{args.questions.name}: split {args.split}, {len(results)} questions, corpus {args.corpus}")
    print(f"  from {source['repo']}@{source['commit'][:12]}:{source['folder']}")
    print("\n".join(table(results)))
    print(f"time: {elapsed:.0f} s ({elapsed / len(results):.1f} s a question, {args.workers} worker(s))")
    if args.verbose:
        for r in results:
            print(question_line(r))
            for line in r.get("why", []):
                print(f"      why {line}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
