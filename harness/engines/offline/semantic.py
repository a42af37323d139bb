"""How close in meaning a sentence is to a question: a small static embedding model, offline and deterministic.

The lexical rule (`ranking.Ask`) counts shared words, so a question that names nothing ("How do I compute
the median of some numbers?") prefers a long sentence of another module sharing two of its words over the
short one that answers it ("Return the median (middle value) of numeric data."). A static embedding model
places "numbers" near "numeric data" and "split a command line" near "shell-like syntax".

The model is WordLlama's `l2_supercat` at 256 dimensions, the weights and tokenizer shipped inside the
`wordllama` wheel (about 16 MB): nothing is downloaded, nothing is random. A text's vector is the mean of its
tokens' vectors; similarity is their cosine, rounded so that the last bits of float arithmetic never change an
order.
"""

from __future__ import annotations

import logging
import threading
from functools import lru_cache
from pathlib import Path

import numpy as np

_MODEL = "l2_supercat"
_DIM = 256
_lock = threading.Lock()


def _import_inference():
    """wordllama's inference class. Importing wordllama calls `logging.basicConfig(level=INFO)`: the root logger
    is put back as it was, so the harness's logging stays its own."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        import wordllama
        from wordllama import WordLlamaInference
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
    return Path(wordllama.__file__).parent, WordLlamaInference


@lru_cache(maxsize=1)
def _model():
    """The bundled model, loaded once per process from the wheel's own files (never from a hub or a cache)."""
    from safetensors import safe_open
    from tokenizers import Tokenizer

    root, inference = _import_inference()
    tokenizer = Tokenizer.from_file(str(root / "tokenizers" / f"{_MODEL}_tokenizer_config.json"))
    with safe_open(str(root / "weights" / f"{_MODEL}_{_DIM}.safetensors"), framework="np", device="cpu") as f:
        embedding = f.get_tensor("embedding.weight")
    return inference(embedding, tokenizer, binary=False)


@lru_cache(maxsize=65536)
def vector(text: str) -> np.ndarray:
    """The text's unit vector (the mean of its tokens' vectors); zeros for a text without tokens. Each text is
    embedded alone, so its vector never depends on what it was batched with."""
    with _lock:
        v = _model().embed([text])[0].astype(np.float64)
    norm = float(np.linalg.norm(v))
    return v / norm if norm else v


def similarity(a: str, b: str) -> float:
    """Cosine similarity of the two texts' vectors, about -1..1, rounded to 4 places (deterministic orders)."""
    return round(float(vector(a) @ vector(b)), 4)


def closeness(question: str, texts: dict[str, str]) -> dict[str, float]:
    """Each text's similarity to the question as a share of the spread among them: 1 the closest, 0 the farthest
    (all 0 when they are equally close). Relative, so the scale of the model's cosines never matters."""
    sims = {key: similarity(question, text) for key, text in texts.items()}
    hi, lo = max(sims.values(), default=0.0), min(sims.values(), default=0.0)
    return {key: (v - lo) / (hi - lo) if hi > lo else 0.0 for key, v in sims.items()}
