"""The answer check's judge of meaning (evidence/answer_meaning.py): it lowers an `answered` whose cited quotes are
all far in meaning from the question, keeps one with a quote near it, and never raises a verdict."""

from __future__ import annotations

import pytest

from harness.contract.statuses import ANSWERED, NOT_ANSWERED, PARTLY
from harness.engines.answer_encoder import similarity
from harness.evidence.answer_meaning import CLOSE_ENOUGH, install_similarity, installed_similarity, judge_meaning
from harness.evidence.answer_rule import Finding, ask_of, judge
from harness.evidence.answers import judge_question

BUMP = "How do I bump my project's version number with Poetry?"
ON_SUBJECT = (
    "In package mode, the only required fields are `name` and `version` (either in the `project` section or in "
    "the `tool.poetry` section)."
)
SETTINGS = "How can I see which settings Ruff resolved for a particular file?"


def _ask(text: str):
    return ask_of({"id": "Q1", "text": text, "kind": "research"})


@pytest.fixture
def encoder():
    """The judge with the engines' encoder, as every run has it; put back as it was."""
    before = installed_similarity()
    install_similarity(similarity)
    yield
    install_similarity(before)


def test_a_quote_on_the_subject_that_does_not_answer_is_not_answered(encoder):
    findings = [Finding(ON_SUBJECT, "Poetry The pyproject.toml file")]
    assert judge(_ask(BUMP), findings).verdict == ANSWERED  # the word rules alone: subject and a "setting"
    v = judge_question(_ask(BUMP), findings)
    assert v.verdict == PARTLY
    assert "close in meaning" in v.reason


@pytest.mark.parametrize(
    "question, quote",
    [
        (BUMP, "Run `poetry version minor` to raise the number in pyproject.toml to the next minor release."),
        (SETTINGS, "Use `ruff check --show-settings path/to/file.py` to print the configuration that applies to it."),
    ],
)
def test_a_paraphrased_answer_with_few_shared_words_is_answered(encoder, question, quote):
    assert judge_question(_ask(question), [Finding(quote, "")]).verdict == ANSWERED


def test_a_setting_for_another_action_is_not_answered(encoder):
    quote = (
        'Application of unsafe fixes when using "Fix all" can be enabled by setting `unsafe-fixes = true` in your '
        "Ruff configuration file."
    )
    assert judge(_ask(SETTINGS), [Finding(quote, "Ruff")]).verdict == ANSWERED
    assert judge_question(_ask(SETTINGS), [Finding(quote, "Ruff")]).verdict == PARTLY


def test_the_judge_only_lowers_and_only_answered():
    ask, findings = _ask(BUMP), [Finding(ON_SUBJECT, "Poetry")]
    words = judge(ask, findings)
    assert judge_meaning(words, ask, findings, lambda q, a: CLOSE_ENOUGH).verdict == ANSWERED  # at the threshold
    assert judge_meaning(words, ask, findings, lambda q, a: CLOSE_ENOUGH - 0.01).verdict == PARTLY
    assert judge_meaning(words, ask, findings, None) == words  # no encoder handed in: the word rules alone
    unanswered = judge(ask, [])
    assert unanswered.verdict == NOT_ANSWERED
    assert judge_meaning(unanswered, ask, [], lambda q, a: 1.0) == unanswered  # never raised


def test_every_cited_quote_is_weighed(encoder):
    """A short answer is far from its question; a neighbour on the topic, cited for it too, keeps the verdict."""
    question = "How long does Larkspur keep job results?"
    answer = Finding("Results are kept for 24 hours after the job finishes, then deleted.", "Job results")
    topic = Finding("Larkspur stores the return value of every finished job in the result backend.", "Job results")
    assert judge_question(_ask(question), [answer, topic]).verdict == ANSWERED


def test_the_closest_quote_decides():
    ask = _ask(BUMP)
    far, near = Finding(ON_SUBJECT, "Poetry"), Finding("Poetry project version numbers can be bumped.", "Poetry")
    words = judge(ask, [far, near])
    assert words.verdict == ANSWERED

    def close_to_near(question: str, quote: str) -> float:
        return 0.9 if "Poetry project version" in quote else 0.1

    assert judge_meaning(words, ask, [far, near], close_to_near).verdict == ANSWERED
    assert judge_meaning(words, ask, [far], close_to_near).verdict == PARTLY


def test_the_judge_and_retrieval_hold_one_copy_of_the_weights(encoder, monkeypatch):
    """The default retrieval model is the judge's model: both use one loaded encoder, not two ~90 MB copies."""
    from harness.contract.meaning import MINILM_INT8
    from harness.engines.offline import minilm
    from harness.engines.offline.semantic import Meaning

    loads = []
    real = minilm.Encoder.load.__func__
    monkeypatch.setattr(minilm.Encoder, "load", classmethod(lambda cls, model: loads.append(model) or real(cls, model)))
    minilm.shared.cache_clear()
    try:
        Meaning(MINILM_INT8).similarity("a fresh question about weights", "a fresh quote about weights")
        similarity("another fresh question for the judge", "another fresh quote for the judge")
        assert loads == [MINILM_INT8]
    finally:
        minilm.shared.cache_clear()
