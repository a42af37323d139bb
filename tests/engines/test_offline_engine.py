"""The offline engine's answer: multi-hop retrieval, ranked and selective evidence, a report that reads like an
answer (Summary, comparison table, topic headings), all over small corpora written here. No network."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from fakes.workspaces import normalized_artifacts, write_docs
from harness.engines.offline.planner import make_plan
from harness.engines.offline.ranking import DATE, NUMBER, OTHER, PERSON, PLACE, YESNO, Ask, answer_type, entities
from harness.engines.offline.writer import CHAIN_MAX, NOT_FOUND, render_draft, topic
from harness.evidence.draft import parse_draft
from harness.orchestrator.config import build_config
from harness.orchestrator.lifecycle import start_run
from harness.workspace.validate import validate_workspace

# A bridge: the question describes a film's star; the film's page names her; her own page has the answer.
BRIDGE_DOCS = {
    "kiss.md": "# Kiss and Tell (1945 film)\n\nKiss and Tell is a 1945 American comedy film. "
    "The film stars Shirley Temple as Corliss Archer, a teenage girl.\n",
    "temple.md": "# Shirley Temple\n\nShirley Temple was an American actress and diplomat. "
    "She held the government position of United States ambassador to Ghana.\n",
    "archer.md": "# Meet Corliss Archer\n\nMeet Corliss Archer is an American radio sitcom about a teenage girl. "
    "The radio series ran for many seasons on several networks.\n",
    "comedy.md": "# Comedy film\n\nA comedy film is a film genre that emphasizes humor. "
    "Many comedy films of the 1940s starred teenage actors.\n",
}
BRIDGE_QUESTION = "What government position did the actress who starred as Corliss Archer in Kiss and Tell hold?"

COMPARE_DOCS = {
    "fastq.md": "# fastq\n\nThe fastq queue retries a failed job three times before giving up. "
    "When a worker is cancelled, fastq puts its job back on the queue.\n",
    "slowq.md": "# slowq\n\nThe slowq queue never retries a failed job and logs the error instead.\n",
    "other.md": "# Gardening\n\nTomatoes need full sun and regular watering in the summer months.\n",
}
COMPARE_QUESTION = "How do fastq and slowq differ in retries and cancellation?"


def run(corpus: Path, runs: Path, question: str, **kw):
    cfg = build_config(question, corpus=str(corpus), runs_dir=str(runs), yes=True, **kw)
    result = start_run(cfg)
    assert result.status == "completed", result.reason
    return result.run_dir


def cards(run_dir: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((run_dir / "source-cards").glob("*.json"))]


def title_of(run_dir: Path, card: dict) -> str:
    return json.loads((run_dir / "sources" / f"{card['source_id']}.json").read_text())["title"]


def cited_titles(run_dir: Path) -> set[str]:
    draft = sorted((run_dir / "drafts").glob("draft-*.md"))[-1].read_text()
    claims = {c["claim_id"]: c for c in json.loads((run_dir / "claims.json").read_text())["claims"]}
    by_id = {c["card_id"]: c for c in cards(run_dir)}
    keys = {k for s in parse_draft(draft) for k in s.claim_ids}
    return {title_of(run_dir, by_id[cid]) for k in keys for cid in claims[k]["supporting_cards"]}


# --- the question: its answer type and the things it names ------------------------------------


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Who directed the film?", PERSON),
        ("When was the bridge opened?", DATE),
        ("In what year did the war end?", DATE),
        ("How many albums did the band release?", NUMBER),
        ("Where is the academy located?", PLACE),
        ("In which city was she born?", PLACE),
        ("Are both rivers in Europe?", YESNO),
        ("What does functools.lru_cache do?", OTHER),
    ],
)
def test_the_answer_type_a_question_asks_for(question, kind):
    assert answer_type(question) == kind


def test_named_things_are_titles_capitalized_phrases_and_code_names_not_sentence_starts():
    found = entities('The film "Kiss and Tell" stars Shirley Temple; see asyncio.TaskGroup.')
    assert found == ["Kiss and Tell", "Shirley Temple", "asyncio.TaskGroup"]


def test_a_sentence_of_the_asked_for_type_from_a_document_titled_after_the_question_ranks_first():
    ask = Ask.of("When was Shirley Temple born?")
    dated = ask.score("Shirley Temple was born on April 23, 1928.", "Shirley Temple")
    undated = ask.score("Shirley Temple was born in a small town.", "Shirley Temple")
    elsewhere = ask.score("Shirley Temple was born on April 23, 1928.", "Hollywood actors")
    assert dated > undated and dated > elsewhere


# --- the Planner ------------------------------------------------------------------------------


def test_plan_questions_are_questions_not_instructions():
    plain = make_plan("Who wrote the Larkspur scheduler?")
    assert plain["questions"][0]["text"] == "Who wrote the Larkspur scheduler?"
    compare = make_plan(COMPARE_QUESTION)
    texts = [q["text"] for q in compare["questions"] if q["kind"] == "research"]
    assert len(texts) == 2 and all(t.endswith("?") and not t.startswith("Find") for t in texts)


# Two plain phrases compared within a subject the question names: "passive mode" means the subject's passive mode.
MODE_DOCS = {
    "frobnik.md": "# frobnik\n\nThe frobnik client sends its data transfers over a second connection. "
    "Call set_pasv(True) to make data transfers use passive mode, the default.\n"
    "Call set_pasv(False) to switch data transfers to active mode, where the server connects back.\n",
    "antenna.md": "# Antennas\n\nA passive antenna has no amplifier and draws no power in passive mode. "
    "An active antenna amplifies the signal, and active mode drains the battery of the active antenna.\n",
}
MODE_QUESTION = "Using frobnik, how do I switch data transfers between passive and active mode?"


def test_two_plain_phrases_compared_keep_the_subject_they_are_about():
    research = [q for q in make_plan(MODE_QUESTION)["questions"] if q["kind"] == "research"]
    # one branch per phrase, as the question means it ("passive" shares "mode"), each within the question's subject
    assert [q["search_terms"][0] for q in research] == ["passive mode", "active mode"]
    assert all("frobnik" in q["text"] and "data transfers" in q["text"] for q in research)
    assert all(not q["text"].startswith("Answer the question") for q in research)
    # an "In pdb," before the phrases is their subject, not a criterion; named candidates are not rewritten
    pdb = make_plan("In frobnik, what is the difference between the next and step commands?")
    assert pdb["criteria"] == [] and [q["search_terms"][0] for q in pdb["questions"][:2]] == [
        "next commands",
        "step commands",
    ]
    assert "(frobnik)" in pdb["questions"][0]["text"]
    named = make_plan(COMPARE_QUESTION)["questions"][0]
    assert named["text"] == "What do the sources say about fastq with respect to retries, cancellation?"


def test_a_branch_of_plain_phrases_cites_the_subjects_document(tmp_path):
    corpus = write_docs(tmp_path / "corpus", MODE_DOCS)
    run_dir = run(corpus, tmp_path / "runs", MODE_QUESTION)
    assert validate_workspace(run_dir) == []
    assert cited_titles(run_dir) == {"frobnik"}


def test_section_headings_read_as_topics():
    q = make_plan(COMPARE_QUESTION)["questions"][0]
    assert topic(q) == "fastq: retries and cancellation"
    assert topic({"id": "Q2", "text": "What do the sources say about the broker?"}) == "The broker"


# --- the Researcher: a second hop for a bridge ------------------------------------------------


def test_the_researcher_follows_a_bridge_and_cards_record_the_hop(tmp_path):
    corpus = write_docs(tmp_path / "corpus", BRIDGE_DOCS)
    run_dir = run(corpus, tmp_path / "runs", BRIDGE_QUESTION)
    assert validate_workspace(run_dir) == []
    found = cards(run_dir)
    assert all(c.get("hop") in (1, 2) for c in found)
    assert "Shirley Temple" in {title_of(run_dir, c) for c in found}
    # The answer sits in the bridge's own page, and the report cites it next to the film's page.
    report = (run_dir / "final-report.md").read_text()
    summary = report.split("## Summary", 1)[1].split("\n## ", 1)[0]
    assert "ambassador to Ghana" in summary
    assert {"Shirley Temple", "Kiss and Tell (1945 film)"} <= cited_titles(run_dir)
    assert "Comedy film" not in cited_titles(run_dir)


def test_a_bridge_not_found_by_the_first_search_is_searched_for_as_hop_two(tmp_path, monkeypatch):
    """With one search result per query the first searches miss the bridge's page; the name the
    film's page mentions is searched for next, and those cards say hop 2."""
    from dataclasses import replace

    from harness.engines.offline import profile

    # one result per query, also for a question about names
    monkeypatch.setattr(profile, "ENCYCLOPEDIA", replace(profile.ENCYCLOPEDIA, search_k=1, chain_k=1))
    corpus = write_docs(tmp_path / "corpus", BRIDGE_DOCS)
    run_dir = run(corpus, tmp_path / "runs", BRIDGE_QUESTION)
    hop2 = [c for c in cards(run_dir) if c.get("hop") == 2]
    hop1_titles = {title_of(run_dir, c) for c in cards(run_dir) if c.get("hop") == 1}
    assert hop2 and {title_of(run_dir, c) for c in hop2}.isdisjoint(hop1_titles)
    assert {title_of(run_dir, c) for c in hop2} == {"Shirley Temple"}
    assert all("found by searching for 'Shirley Temple'" in c["evidence_summary"] for c in hop2)


def test_the_bridge_documents_answer_sentence_is_the_one_that_says_the_rest_not_its_opening(tmp_path):
    """The soundtrack's page names the singer; the singer's page opens with who he is, and says the asked-for
    number two sentences later: that sentence, ranked against what the bridge sentence leaves unsaid, is cited."""
    docs = {
        "soundtrack.md": "# Moonlit Harbor (soundtrack)\n\nMoonlit Harbor is the soundtrack to the film of that name. "
        "The songs are performed by pianist Arlo Fenwick, who won a jazz award.\n",
        "fenwick.md": "# Arlo Fenwick\n\nArlo Fenwick is a pianist and singer from the coast. He began playing "
        "piano as a child in his hometown. He has had seven top 20 US albums and ten number-one jazz albums.\n",
        "harbor.md": "# Moonlit Harbor\n\nMoonlit Harbor is a romantic film set in a small port town. "
        "The film follows two sailors over twelve years.\n",
        "jazz.md": "# Jazz piano\n\nJazz piano is a collective term for the techniques pianists use in jazz. "
        "Many jazz pianists have recorded albums with big bands.\n",
    }
    question = 'The songs from the soundtrack to "Moonlit Harbor" are performed by a singer who has had how many top 20 US albums?'
    run_dir = run(write_docs(tmp_path / "corpus", docs), tmp_path / "runs", question)
    summary = (run_dir / "final-report.md").read_text().split("## Summary", 1)[1].split("\n## ", 1)[0]
    assert "seven top 20 US albums" in summary and "performed by pianist Arlo Fenwick" in summary
    assert {"Moonlit Harbor (soundtrack)", "Arlo Fenwick"} <= cited_titles(run_dir)
    assert "Jazz piano" not in cited_titles(run_dir)


def test_an_ellipsis_before_a_lower_case_word_does_not_end_a_sentence():
    from harness.sources.sentences import split_sentences

    text = "When Harry Met Sally... is the soundtrack of the film. It sold well... Then it was reissued."
    assert [text[s:e] for s, e in split_sentences(text)] == [
        "When Harry Met Sally... is the soundtrack of the film.",
        "It sold well...",
        "Then it was reissued.",
    ]


# --- the Analyst: ranked claims, near-duplicates merged -----------------------------------------


def test_near_duplicate_quotes_become_one_claim_with_corroborating_cards(tmp_path):
    docs = {
        "a.md": "# Larkspur\n\nLarkspur retries a failed job up to three times before giving up.\n",
        "b.md": "# Larkspur guide\n\nLarkspur retries a failed job up to three times before it gives up.\n",
        "c.md": "# Larkspur logging\n\nLarkspur writes one log line for each retried job.\n",
    }
    run_dir = run(
        write_docs(tmp_path / "corpus", docs), tmp_path / "runs", "How often does Larkspur retry a failed job?"
    )
    claims = json.loads((run_dir / "claims.json").read_text())["claims"]
    merged = [c for c in claims if len(c["supporting_cards"]) == 2]
    assert len(merged) == 1 and "three times" in merged[0]["statement"]
    assert merged[0]["claim_id"] == "C1"  # ranked first: it answers the question, and two sources agree


def test_quotes_about_two_different_named_things_are_neither_merged_nor_a_conflict(tmp_path):
    """Two towns, said in the same words but for their names and sizes, are two claims, not one claim in dispute."""
    docs = {
        "a.md": "# Millbrook\n\nMillbrook is a home rule-class city in Jefferson County with 12,000 residents.\n",
        "b.md": "# Oakfield\n\nOakfield is a home rule-class city in Jefferson County with 14,000 residents.\n",
    }
    question = "How many residents does a home rule-class city in Jefferson County have?"
    run_dir = run(write_docs(tmp_path / "corpus", docs), tmp_path / "runs", question)
    claims = json.loads((run_dir / "claims.json").read_text())["claims"]
    assert len(claims) == 2
    assert all(len(c["supporting_cards"]) == 1 and c["status"] == "verified" for c in claims)


# --- the Writer: a Summary that answers, a comparison table, no repeated deliverable -----------


def test_a_plain_question_gets_a_cited_summary_and_no_deliverable_section(tmp_path):
    corpus = write_docs(tmp_path / "corpus", BRIDGE_DOCS)
    run_dir = run(corpus, tmp_path / "runs", BRIDGE_QUESTION)
    draft = (run_dir / "drafts" / "draft-1.md").read_text()
    headings = re.findall(r"^## (.+)$", draft, re.M)
    assert headings == ["Summary", "Limitations"]
    summary = [s for s in parse_draft(draft) if s.section == "Summary" and s.factual]
    # the answer's chain: the bridge's sentence and the sentence of the document it leads to, each cited; short
    assert 1 <= len(summary) <= CHAIN_MAX and all(s.citations for s in summary)
    assert any("ambassador to Ghana" in s.text for s in summary) and any("Corliss Archer" in s.text for s in summary)
    assert "Find what the sources say" not in draft and "Answer the question" not in draft


def test_a_comparison_is_a_cited_table_with_gaps_marked_not_found(tmp_path):
    corpus = write_docs(tmp_path / "corpus", COMPARE_DOCS)
    run_dir = run(corpus, tmp_path / "runs", COMPARE_QUESTION)
    assert validate_workspace(run_dir) == []
    draft = (run_dir / "drafts" / "draft-1.md").read_text()
    assert "## fastq vs slowq: retries and cancellation" in draft
    rows = {line.split("|")[1].strip(): line for line in draft.splitlines() if line.startswith("| ") and "@C" in line}
    assert set(rows) == {"retries", "cancellation"}
    assert rows["retries"].count("[@C") == 2  # both candidates have cited evidence on retries
    assert NOT_FOUND in rows["cancellation"] and rows["cancellation"].count("[@C") == 1
    notes = draft.split("| cancellation |", 1)[1].split("\n## ", 1)[0]
    assert "What the evidence supports" in notes and "does not support" in notes
    assert "Gardening" not in cited_titles(run_dir)
    # slowq's cancellation is not in the corpus: the answer check sends that question back to research once
    reviews = [json.loads(p.read_text()) for p in sorted((run_dir / "reviews").glob("review-*.json"))]
    for review in reviews[:-1]:
        assert {d["code"] for d in review["defects"] if d["severity"] == "error"} == {"question_not_answered"}
    assert reviews[-1]["verdict"] == "pass", reviews[-1]["defects"]


def test_the_writer_cites_only_the_claims_that_carry_the_answer():
    plan = make_plan("Who maintains the scheduler?")
    claims = [
        {
            "claim_id": f"C{i}",
            "statement": f"Statement number {i} about the scheduler maintainers.",
            "question_id": "Q1",
            "supporting_cards": [f"q1-src-00000000000{i}-1"],
            "contradicting_cards": [],
            "limitations": [],
            "status": "verified",
        }
        for i in range(1, 6)
    ]
    cards = {
        f"q1-src-00000000000{i}-1": {
            "source_id": f"src-00000000000{i}",
            "confidence": conf,
            "in_answer": conf == "high",
        }
        | {"hop": 1}
        for i, conf in zip(range(1, 6), ["high", "medium", "high", "low", "medium"])
    }
    draft = render_draft(plan, claims, cards, {})
    cited = {k for s in parse_draft(draft) for k in s.claim_ids}
    assert cited == {"C1", "C3"}  # the best claim and the other link of the chain; not everything retrieved
    assert "3 further usable claim(s)" in draft


def test_same_question_same_corpus_same_report(tmp_path):
    corpus = write_docs(tmp_path / "corpus", BRIDGE_DOCS)
    a = run(corpus, tmp_path / "a", BRIDGE_QUESTION)
    b = run(corpus, tmp_path / "b", BRIDGE_QUESTION)
    left, right = normalized_artifacts(a), normalized_artifacts(b)
    assert sorted(left) == sorted(right)
    for rel in left:
        assert left[rel] == right[rel], rel


# --- budgets: a spent step or role search budget ends the searching, not the branch ------------


def _delegations(run_dir: Path, agent: str) -> list[dict]:
    lines = (run_dir / "trace.jsonl").read_text().splitlines()
    return [e for e in map(json.loads, lines) if e["event"] == "delegation" and e["agent"] == agent]


def test_a_spent_role_search_budget_leaves_the_branch_its_cards(tmp_path):
    """The branch makes three searches (the question, the code name it names, its topic words); with a researcher
    budget of 2 the third is refused, and the branch writes cards from the hits of the first two."""
    corpus = write_docs(tmp_path / "corpus", COMPARE_DOCS)
    (tmp_path / "research.yaml").write_text("role_budgets:\n  researcher:\n    searches: 2\n")
    question = "How does fastq.retry treat a failed job?"
    assert len(make_plan(question)["questions"][0]["search_terms"]) == 2  # plus the topic words: 3 searches
    run_dir = run(corpus, tmp_path / "runs", question, config=tmp_path / "research.yaml", concurrency=1)
    manifest = json.loads((run_dir / "run.json").read_text())
    assert manifest["budget"]["roles"]["researcher"]["spent"]["searches"] == 2
    assert manifest["branches"]["Q1"]["status"] == "completed"
    assert cards(run_dir) and "fastq" in cited_titles(run_dir)
    (step,) = _delegations(run_dir, "researcher")
    assert step["stop_reason"] == "completed" and "searches stopped at the limit" in step["detail"]["summary"]
    assert "researcher budget for searches is exhausted" in step["detail"]["summary"]
    assert validate_workspace(run_dir) == []


def test_with_a_role_budget_of_two_searches_the_branches_that_searched_still_produce_cards(tmp_path):
    """Two branches of four searches each, one at a time, share a researcher budget of 2: the first stops after
    two searches with cards; the second can make none, so it is blocked with the limit as its reason. The run
    goes on to a report."""
    corpus = write_docs(tmp_path / "corpus", COMPARE_DOCS)
    (tmp_path / "research.yaml").write_text("role_budgets:\n  researcher:\n    searches: 2\n")
    run_dir = run(corpus, tmp_path / "runs", COMPARE_QUESTION, config=tmp_path / "research.yaml", concurrency=1)
    manifest = json.loads((run_dir / "run.json").read_text())
    branches = manifest["branches"]
    done = [q for q, b in branches.items() if b["status"] == "completed"]
    cut = [q for q, b in branches.items() if b["status"] == "blocked"]
    assert len(done) == 1 and len(cut) == 1
    assert {c["question_id"] for c in cards(run_dir)} == set(done)
    assert "researcher budget for searches is exhausted" in branches[cut[0]]["reason"]
    assert (run_dir / "final-report.md").is_file()


def test_the_runs_own_search_budget_still_ends_the_run(tmp_path):
    corpus = write_docs(tmp_path / "corpus", COMPARE_DOCS)
    cfg = build_config(
        "How does fastq.retry treat a failed job?",
        corpus=str(corpus),
        runs_dir=str(tmp_path / "runs"),
        yes=True,
        budget={"searches": 2},
    )
    result = start_run(cfg)
    assert result.status == "budget_exhausted" and "searches" in result.reason


def test_two_sources_saying_the_same_thing_with_different_negations_are_one_claim_not_a_conflict(tmp_path):
    """ "receives no heartbeat" and "passes without a heartbeat" say the same: both are negations, so the two
    quotes agree (the Analyst once reported them as a conflict, reading only "without" as a negation)."""
    docs = {
        "a.md": "# Raft election\n\nIn Raft, a leader election starts when a follower receives no heartbeat from the "
        "leader before its election timeout expires.\n",
        "b.md": "# Raft notes\n\nA Raft leader election is triggered when the election timeout of a follower passes "
        "without a heartbeat from the leader.\n",
    }
    run_dir = run(write_docs(tmp_path / "corpus", docs), tmp_path / "runs", "What starts a Raft leader election?")
    claims = json.loads((run_dir / "claims.json").read_text())["claims"]
    assert [c["status"] for c in claims if c["status"] == "conflicted"] == []


def test_a_statement_and_its_negation_from_two_sources_are_a_conflict(tmp_path):
    docs = {
        "a.md": "# Larkspur\n\nLarkspur retries a failed job before it reports the failure to the scheduler.\n",
        "b.md": "# Larkspur guide\n\nLarkspur never retries a failed job before it reports the failure to the "
        "scheduler.\n",
    }
    run_dir = run(write_docs(tmp_path / "corpus", docs), tmp_path / "runs", "Does Larkspur retry a failed job?")
    claims = json.loads((run_dir / "claims.json").read_text())["claims"]
    assert [c["status"] for c in claims].count("conflicted") == 1
