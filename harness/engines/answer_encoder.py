"""The sentence encoder the answer check's judge of meaning uses (`evidence/answer_meaning.py`), handed to it from
here because the evidence layer may not import an engine. Always all-MiniLM-L6-v2 over the pinned int8 weights
(`contract.meaning.MINILM_INT8`), whatever `RESEARCH_MEANING` chooses for retrieval: the judge's threshold is a
cosine of this model, and a verdict must not depend on a retrieval setting. Loaded on first use, once per process,
and shared with retrieval (`minilm.shared`) when retrieval runs on the same weights.
"""

from __future__ import annotations

import threading
from functools import lru_cache

import numpy as np

from harness.contract.meaning import MINILM_INT8
from harness.evidence.answer_meaning import install_similarity

_lock = threading.Lock()  # one forward pass at a time (a run's steps may judge side by side)


def _encoder():
    from harness.engines.offline.minilm import shared

    return shared(MINILM_INT8)  # the copy retrieval uses too, when it runs on the default model


@lru_cache(maxsize=16384)
def _vector(text: str) -> np.ndarray:
    with _lock:
        return _encoder().encode(text)


def similarity(question: str, quote: str) -> float:
    """The cosine of the two texts' unit vectors, rounded to 4 places (the last bits of arithmetic never move a
    verdict)."""
    return round(float(_vector(question) @ _vector(quote)), 4)


def install() -> None:
    """Hand the judge of meaning this encoder's similarity (loaded only when a verdict first needs it)."""
    install_similarity(similarity)
