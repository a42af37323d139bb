"""The offline engine's sense of meaning (MiniLM by default, or the static model in the wordllama wheel), and answers
that name the function a docstring sentence documents."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from test_offline_engine import cited_titles, run

from fakes.workspaces import use_profile, write_docs
from harness.engines.offline import semantic
from harness.engines.offline.cited_sentences import unsigned
from harness.engines.offline.profile import ENCYCLOPEDIA, REFERENCE
from harness.engines.offline.researcher import OfflineResearcher
from harness.engines.offline.semantic import Meaning

MEDIAN = "How do I compute the median of some numbers?"
# The sound module's sentence shares "compute" and "number(s)" with the question; the statistics module's
# answer shares only "median".
MEANING_DOCS = {
    "stats.md": "# stats\n\nBasic statistics: averages and measures of central location of numeric data.\n\n"
    "Return the median (middle value) of numeric data, using the common mean of the two middle values.\n",
    "sound.md": "# sound\n\nRead and write sound files in several formats.\n\n"
    "To compute the total time, divide the number of frames by the sampling rate of the file.\n",
    "cards.md": "# cards\n\nShuffle a deck of playing cards and deal hands to the players at the table.\n",
}


def test_the_bundled_model_gives_the_same_similarity_every_time_and_sees_meaning():
    similarity = Meaning("minilm-int8").similarity
    answer = "Return the median (middle value) of numeric data."
    other = "To compute the total time, divide the number of frames by the sampling rate."
    assert similarity(MEDIAN, answer) == similarity(MEDIAN, answer)
    assert similarity(MEDIAN, answer) > similarity(MEDIAN, other) + 0.2


def test_closeness_is_relative_to_the_texts_compared():
    closeness = Meaning("minilm-int8").closeness
    got = closeness(MEDIAN, {k: v for k, v in MEANING_DOCS.items()})
    assert got["stats.md"] == 1.0 and min(got.values()) == 0.0
    assert all(0.0 <= v <= 1.0 for v in got.values())
    assert closeness(MEDIAN, {"a": "same text", "b": "same text"}) == {"a": 0.0, "b": 0.0}
    assert closeness(MEDIAN, {}) == {}


@pytest.mark.parametrize("documentation", [True, False])
def test_the_document_whose_subject_the_question_asks_about_is_cited(tmp_path, monkeypatch, documentation):
    """Meaning weighs in where the profile reads it (REFERENCE, not ENCYCLOPEDIA)."""
    corpus = write_docs(tmp_path / "corpus", MEANING_DOCS)
    use_profile(monkeypatch, REFERENCE if documentation else ENCYCLOPEDIA)
    cited = cited_titles(run(corpus, tmp_path / "runs", MEDIAN))
    if documentation:
        assert "stats" in cited
    else:  # the lexical rule alone cites only the sentence sharing more words: what meaning fixes
        assert cited == {"sound"}


@pytest.mark.parametrize(
    ("statement", "written"),
    [
        ("def b64encode(s, altchars=None) Encode the bytes.", "`b64encode(s, altchars=None)`: Encode the bytes."),
        (
            "def Path.joinpath(self, *args) -> Path Combine this path.",
            "`Path.joinpath(self, *args)`: Combine this path.",
        ),
        ("def f(a=(1, 2), b={1: [2]}) -> dict[str, int] Does x.", "`f(a=(1, 2), b={1: [2]})`: Does x."),
        ("class Event Class implementing event objects.", "`class Event`: Class implementing event objects."),
        # a class keeps its keyword: its bases are not a call's arguments
        (
            "class CancelledError(BaseException) The Future or Task was cancelled.",
            "`class CancelledError(BaseException)`: The Future or Task was cancelled.",
        ),
        ("Plain prose stays as it is.", "Plain prose stays as it is."),
        ("def broken(a, b Unbalanced stays as it is.", "def broken(a, b Unbalanced stays as it is."),
    ],
)
def test_a_signature_line_is_written_as_the_name_it_documents(statement, written):
    assert unsigned(statement) == written


def test_a_docstrings_first_sentence_is_quoted_with_its_signature_and_the_answer_names_the_function(tmp_path: Path):
    docs = {
        "b64.md": "# b64\n\nBase-N encodings of binary data.\n\n"
        "def b64encode(s, altchars=None)\nEncode the bytes-like object s using Base64 and return a bytes object.\n\n"
        "def b64decode(s)\nDecode the Base64 encoded bytes-like object or ASCII string s.\n",
        "other.md": "# other\n\nTomatoes need full sun and regular watering in the summer months.\n",
    }
    run_dir = run(write_docs(tmp_path / "corpus", docs), tmp_path / "runs", "How do I base64-encode bytes?")
    summary = (run_dir / "final-report.md").read_text().split("## Summary", 1)[1].split("\n## ", 1)[0]
    assert "`b64encode(s, altchars=None)`: Encode the bytes-like object s using Base64" in summary


@pytest.mark.parametrize("weight", [None, 0.0])
def test_a_sentence_close_in_meaning_to_the_question_outranks_one_sharing_more_words(tmp_path, monkeypatch, weight):
    """A candidate sentence's own cosine with the question (the profile's `sentence_meaning` times the meaning model's
    similarity, a sentence encoder's only) joins its relevance: here document meaning is off and the cosine is
    stubbed, so only that term can make the statistics sentence, which shares one word with the question, outrank
    the sound one."""
    corpus = write_docs(tmp_path / "corpus", MEANING_DOCS)
    sentence = 1.0 if weight is None else weight
    use_profile(monkeypatch, replace(REFERENCE, document_meaning=0.0, sentence_meaning=sentence))
    monkeypatch.setattr(Meaning, "similarity", lambda self, q, s: 0.9 if "median (middle value)" in s else 0.1)
    cited = cited_titles(run(corpus, tmp_path / "runs", MEDIAN))
    assert ("stats" in cited) == (weight is None)


def test_the_meaning_model_given_to_the_constructor_is_the_one_used(monkeypatch):
    """Two Researchers with different models share a process: each reads meaning with its own, never the
    environment's (`RESEARCH_MEANING` says wordllama here)."""
    monkeypatch.setenv("RESEARCH_MEANING", "wordllama")
    used: list[str] = []
    monkeypatch.setattr(semantic, "_vector", lambda model, text: used.append(model) or np.ones(3) / np.sqrt(3))
    for model in ("minilm-int8", "wordllama"):
        used.clear()
        agent = OfflineResearcher(profile=REFERENCE, meaning=model)
        assert agent.meaning.similarity("a question", "a sentence") == 1.0
        assert set(used) == {model}
        assert agent.meaning.sentence_encoder == (model == "minilm-int8")
