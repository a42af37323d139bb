"""The numpy MiniLM (`engines/offline/minilm.py`) computes what sentence-transformers computes for the same weights.

`tests/data/minilm_reference.json` holds sentence-transformers' own unit vectors (written by
`bench/minilm_reference.py` in a venv with torch), for questions, documentation sentences, text outside ASCII, an
empty text and one longer than the model's 256 word pieces. A wrong layer norm, GELU, attention scale, truncation or
pooling moves a vector by far more than the float32 rounding this test allows.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from harness.engines.offline import minilm

REFERENCE = Path(__file__).resolve().parents[1] / "data" / "minilm_reference.json"


@pytest.fixture(scope="module")
def encoder() -> minilm.Encoder:
    return minilm.Encoder.load()


@pytest.fixture(scope="module")
def reference() -> dict:
    return json.loads(REFERENCE.read_text(encoding="utf-8"))


def test_every_vector_matches_sentence_transformers(encoder, reference):
    assert len(reference["texts"]) >= 10 and "sentence-transformers" in reference["made_by"]
    for text, expected in zip(reference["texts"], reference["vectors"], strict=True):
        got = encoder.encode(text)
        assert got.shape == (384,)
        assert np.abs(got - np.array(expected)).max() < 1e-6, text[:60]
        assert abs(float(np.linalg.norm(got)) - 1.0) < 1e-12


def test_cosines_match_at_the_places_similarity_keeps(encoder, reference):
    got = np.array([encoder.encode(t) for t in reference["texts"]])
    expected = np.array(reference["vectors"])
    assert np.abs(got @ got.T - expected @ expected.T).max() < 1e-6


def test_a_text_is_encoded_alone_and_the_same_every_time(encoder):
    text = "Return the median (middle value) of numeric data."
    first = encoder.encode(text)
    encoder.encode("Close the connection to the FTP server. " * 40)  # a long text between
    assert np.array_equal(first, encoder.encode(text))


def test_the_weights_are_found_without_importing_their_package(monkeypatch):
    import sys

    monkeypatch.delitem(sys.modules, minilm.MINILM_MODULE, raising=False)
    folder = minilm.model_folder()
    assert (folder / "model.safetensors").is_file() and (folder / "tokenizer.json").is_file()
    assert minilm.MINILM_MODULE not in sys.modules


def test_a_missing_wheel_is_named(monkeypatch):
    monkeypatch.setattr(minilm.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ModuleNotFoundError, match=minilm.MINILM_MODULE):
        minilm.model_folder()
