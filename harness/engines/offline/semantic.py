"""How close in meaning a sentence is to a question: a small bundled embedding model, offline and deterministic.
all-MiniLM-L6-v2 (`minilm.py`) or WordLlama; each text embedded alone, a cosine rounded: orders never depend on bits.
"""

from __future__ import annotations

import importlib
import logging
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from harness.contract.meaning import SENTENCE_ENCODERS, MeaningModel
from harness.engines.offline import minilm

WORDLLAMA_MODEL = "l2_supercat"
_DIM = 256  # WordLlama's
_lock = threading.Lock()


@lru_cache(maxsize=1)
def _wordllama():
    """WordLlama's bundled model, loaded once per process from the wheel's own files."""
    from safetensors import safe_open
    from tokenizers import Tokenizer

    root_logger = logging.getLogger()
    handlers, level = root_logger.handlers[:], root_logger.level
    try:  # its import calls `logging.basicConfig(level=INFO)`: the root logger is put back as it was
        wordllama = importlib.import_module("wordllama")
    finally:
        root_logger.handlers[:] = handlers
        root_logger.setLevel(level)
    root = Path(wordllama.__file__).parent
    tokenizer = Tokenizer.from_file(str(root / "tokenizers" / f"{WORDLLAMA_MODEL}_tokenizer_config.json"))
    with safe_open(str(root / "weights" / f"{WORDLLAMA_MODEL}_{_DIM}.safetensors"), framework="np", device="cpu") as f:
        embedding = f.get_tensor("embedding.weight")
    return wordllama.WordLlamaInference(embedding, tokenizer, binary=False)


@dataclass(frozen=True)
class Meaning:
    """The meaning model of one run (`RunConfig.meaning`), handed to the engine's constructor: two runs with
    different models can share a process."""

    model: MeaningModel

    @property
    def sentence_encoder(self) -> bool:
        """Is the model a sentence encoder (a static model's sentence vector is noise)?"""
        return self.model in SENTENCE_ENCODERS

    def similarity(self, a: str, b: str) -> float:
        """Cosine similarity of the two texts' vectors, about -1..1, rounded to 4 places (deterministic orders)."""
        return round(float(_vector(self.model, a) @ _vector(self.model, b)), 4)

    def closeness(self, question: str, texts: dict[str, str]) -> dict[str, float]:
        """Each text's similarity to the question as a share of the spread among them: 1 the closest, 0 the farthest
        (all 0 when equally close), so the scale of the model's cosines never matters."""
        sims = {key: self.similarity(question, text) for key, text in texts.items()}
        hi, lo = max(sims.values(), default=0.0), min(sims.values(), default=0.0)
        return {key: (v - lo) / (hi - lo) if hi > lo else 0.0 for key, v in sims.items()}


@lru_cache(maxsize=65536)
def _vector(model: str, text: str) -> np.ndarray:
    """The text's unit vector (zeros for a text without tokens), embedded alone."""
    with _lock:
        v = minilm.shared(model).encode(text) if model in SENTENCE_ENCODERS else _wordllama().embed([text])[0]
    v = v.astype(np.float64)
    norm = float(np.linalg.norm(v))
    return v / norm if norm else v
