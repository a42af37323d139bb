"""The documentation-set benchmark's own rules: the split made once, the set checked against its corpus, a run
folder scored, and the test half kept unread."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections import Counter
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"


def _bench():
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location("bench_docs", BENCH / "bench_docs.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCH))


def _set(tmp_path: Path, questions: list[dict]) -> Path:
    path = tmp_path / "set.json"
    corpus = {"repo": "someone/docs", "commit": "0" * 40, "folder": "docs"}
    path.write_text(json.dumps({"corpus": corpus, "questions": questions}), encoding="utf-8")
    return path


def _question(**fields) -> dict:
    item = {
        "question": "How do I pin a tool?",
        "kind": "how",
        "gold": ["tools.md"],
        "key_phrases": ["pin it with an exact version"],
        "split": "tune",
    }
    return item | fields


def test_the_split_halves_each_kind_and_is_the_same_for_the_same_seed():
    bench = _bench()
    kinds = ["what"] * 7 + ["how"] * 6 + ["compare"] * 5
    labels = bench.stratified_split(kinds, 3905)
    assert labels == bench.stratified_split(kinds, 3905)
    tune = Counter(k for k, label in zip(kinds, labels) if label == "tune")
    assert tune == {"what": 3, "how": 3, "compare": 2}  # half of each kind, rounded down
    assert set(labels) == {"tune", "test"}
    assert any(bench.stratified_split(kinds, seed) != labels for seed in range(5))  # the seed decides, not the order


@pytest.mark.parametrize(
    "name",
    [
        "uvdocs_questions.json",
        "fastapidocs_questions.json",
        "prometheusdocs_questions.json",
        "valkeydocs_questions.json",
        "hugodocs_questions.json",
    ],
)
def test_a_committed_set_holds_the_split_its_recorded_seed_makes(name):
    bench = _bench()
    data = bench.load_set(BENCH / name)
    questions = data["questions"]
    assert len(questions) >= 40
    assert {q["kind"] for q in questions} == set(bench.KINDS)
    assert [q["split"] for q in questions] == bench.stratified_split(
        [q["kind"] for q in questions], data["split"]["seed"]
    )
    assert len(data["corpus"]["commit"]) == 40


def test_a_set_with_a_bad_field_is_refused_in_one_line_naming_it(tmp_path):
    bench = _bench()
    path = _set(tmp_path, [_question(), _question(kind="why")])
    with pytest.raises(bench.SetError, match=r"set\.json: questions\[1\]\.kind: 'why'"):
        bench.load_set(path)
    path = _set(tmp_path, [_question(key_phrases=[])])
    with pytest.raises(bench.SetError, match=r"questions\[0\]\.key_phrases"):
        bench.load_set(path)


def test_the_check_finds_what_makes_a_set_unfit_for_its_corpus(tmp_path):
    bench = _bench()
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "tools.md").write_text(
        "# Tools\n\nTo keep a tool, **pin** it with an exact\nversion.\n", encoding="utf-8"
    )
    good = _question(key_phrases=["it with an exact version"])  # across a line break: whitespace read as one space
    assert bench.check_set([good], corpus) == []
    problems = bench.check_set(
        [
            _question(gold=["missing.md"]),
            _question(key_phrases=["**pin** it"]),
            _question(key_phrases=["pin a tool"]),
            _question(key_phrases=["not in the document"]),
        ],
        corpus,
    )
    (corpus / "guide.md").write_text("Pin it with an exact version, as the tools page says.\n", encoding="utf-8")
    assert bench.phrase_elsewhere([good, _question(key_phrases=["**pin**"])], corpus) == {0: ["guide.md"]}
    assert problems == [
        "questions[0].gold: missing.md is not in " + str(corpus),
        "questions[1].key_phrases: '**pin** it' holds Markdown markup",
        "questions[2].key_phrases: 'pin a tool' is in the question itself",
        "questions[2].key_phrases: none occurs in a gold document",
        "questions[3].key_phrases: none occurs in a gold document",
    ]


def _run_folder(root: Path) -> Path:
    """A finished run: two sources, three cards, two claims, a draft citing one claim, the final report."""
    run = root / "run"
    for folder in ("sources", "source-cards", "drafts"):
        (run / folder).mkdir(parents=True)
    for sid, path in (("S1", "tools.md"), ("S2", "cache.md")):
        (run / "sources" / f"{sid}.json").write_text(json.dumps({"source_id": sid, "path": path}))
    cards = {
        "k1": ("S1", "Pin it with an exact version."),
        "k2": ("S2", "The cache is shared."),
        "k3": ("S2", "Clean it with uv cache clean."),
    }
    for cid, (sid, quote) in cards.items():
        card = {"card_id": cid, "source_id": sid, "quote": quote, "span": {"start": 0, "end": len(quote)}}
        (run / "source-cards" / f"{cid}.json").write_text(json.dumps(card))
    claims = [
        {"claim_id": "C1", "supporting_cards": ["k2"], "contradicting_cards": []},
        {"claim_id": "C2", "supporting_cards": ["k1"], "contradicting_cards": []},
    ]
    (run / "claims.json").write_text(json.dumps({"claims": claims}))
    (run / "drafts" / "draft-1.md").write_text("# Q\n\nThe cache is shared [@C1].\n")
    (run / "final-report.md").write_text(
        "# Q\n\nThe cache is shared.\n\n## Limitations\n\nPin it with an exact version.\n"
    )
    return run


def test_a_run_is_scored_from_its_folder(tmp_path):
    bench = _bench()
    run = _run_folder(tmp_path)
    item = _question(gold=["tools.md"], key_phrases=["exact version"])
    r = bench.score_run(item, run, "completed")
    assert (r["gold_retrieved"], r["gold_carded"], r["phrase_in_card"]) == (True, True, True)
    # the body cites only C1 (cache.md); the key phrase is only under Limitations, which is not the body
    assert (r["gold_cited"], r["citation_precision"], r["answer_in_body"]) == (False, 0.0, False)
    assert r["cited"] == ["cache.md"]
    r = bench.score_run(_question(gold=["cache.md"], key_phrases=["cache is shared"]), run, "completed")
    assert (r["gold_cited"], r["citation_precision"], r["answer_in_body"]) == (True, 1.0, True)
    r = bench.score_run(_question(gold=["cache.md"], key_phrases=["cache is shared"]), run, "failed")
    assert (r["gold_cited"], r["answer_in_body"], r["gold_carded"]) == (False, False, True)  # no report: says nothing


def test_the_table_puts_each_kind_beside_all():
    bench = _bench()
    row = dict.fromkeys(("gold_retrieved", "gold_carded", "phrase_in_card", "gold_cited", "answer_in_body"), True)
    results = [
        row | {"kind": "what", "citation_precision": 1.0, "status": "completed"},
        row | {"kind": "how", "citation_precision": 0.5, "answer_in_body": False, "status": "failed"},
    ]
    lines = bench.table(results)
    assert lines[0] == "| figure | all (n=2) | what (n=1) | how (n=1) |"
    assert "| citation precision | 0.75 | 1.00 | 0.50 |" in lines
    assert "| key phrase in body | 0.50 | 1.00 | 0.00 |" in lines
    assert lines[-1] == "| completed | 1 of 2 | 1 of 1 | 0 of 1 |"


def test_per_question_lines_are_refused_for_the_test_half(tmp_path, capsys):
    bench = _bench()
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "tools.md").write_text("Pin it with an exact version.\n", encoding="utf-8")
    path = _set(tmp_path, [_question(split="test")])
    args = ["--questions", str(path), "--corpus", str(corpus), "--split", "test", "--verbose"]
    assert bench.main(args) == 2
    assert "--verbose: per-question lines are for the tune half only" in capsys.readouterr().err
    assert bench.main(["--questions", str(path), "--corpus", str(corpus), "--check"]) == 0
    assert "how: tune 0, test 1" in capsys.readouterr().out
