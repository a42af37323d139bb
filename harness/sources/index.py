"""BM25 over a corpus's passages (bm25s), cached outside the run folder and rebuilt incrementally.

Cache layout (under the cache folder):
- ``tokens/<text_sha256>.json``: one document's passage spans and tokens. Only new or
  changed documents are split and tokenized again.
- ``index/<corpus fingerprint>/``: the bm25s matrices plus the passage table, re-used
  as long as no document changed.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
from dataclasses import dataclass
from pathlib import Path

import bm25s
import numpy as np

from harness.sources.cache import cache_dir
from harness.sources.corpus import Corpus, split_passages
from harness.sources.tokens import tokenize

# Bump when tokenize() or split_passages() changes: it keys the token caches and the index.
TOKENIZER_VERSION = "3"


class _Vocab(dict):
    """token -> id, numbering new tokens as they are looked up."""

    def __missing__(self, token: str) -> int:
        self[token] = n = len(self)
        return n


@dataclass(frozen=True)
class Hit:
    doc: int  # index into corpus.documents
    start: int
    end: int
    score: float


def _tmp_name(path: Path) -> Path:
    """A temporary name next to `path`, distinct per process and thread, for an atomic replace."""
    return path.with_name(f"{path.name}.{os.getpid()}-{threading.get_ident()}.tmp")


def _tokens_path(text_sha: str) -> Path:
    return cache_dir("tokens") / f"{text_sha}-{TOKENIZER_VERSION}.json"


def _doc_tokens(text: str, text_sha: str, use_cache: bool) -> tuple[list[tuple[int, int]], list[list[str]]]:
    path = _tokens_path(text_sha)
    if use_cache and path.is_file():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return [tuple(s) for s in data["spans"]], data["tokens"]
        except (OSError, ValueError, KeyError):
            pass
    spans = split_passages(text)
    tokens = [tokenize(text[s:e]) for s, e in spans]
    if use_cache:
        tmp = _tmp_name(path)
        tmp.write_text(json.dumps({"spans": spans, "tokens": tokens}), encoding="utf-8")
        tmp.replace(path)
    return spans, tokens


class CorpusIndex:
    """Search a corpus's passages by BM25. Build with `CorpusIndex.build(corpus)`."""

    def __init__(self, corpus: Corpus, retriever: bm25s.BM25, passages: np.ndarray, rebuilt_docs: int = 0):
        self.corpus = corpus
        self.retriever = retriever
        self.passages = passages  # shape (n, 3): doc index, start, end
        self.rebuilt_docs = rebuilt_docs  # documents tokenized in this build (0 when the index was re-used)

    @classmethod
    def build(cls, corpus: Corpus, *, use_cache: bool = True) -> CorpusIndex:
        index_dir = cache_dir("index") / f"{corpus.fingerprint}-{TOKENIZER_VERSION}"
        if use_cache and (index_dir / "passages.npy").is_file():
            try:
                retriever = bm25s.BM25.load(str(index_dir), mmap=False, load_corpus=False)
                return cls(corpus, retriever, np.load(index_dir / "passages.npy"))
            except Exception:  # a damaged cache entry is rebuilt, never trusted
                shutil.rmtree(index_dir, ignore_errors=True)
        vocab = _Vocab()
        ids: list[list[int]] = []
        rows: list[tuple[int, int, int]] = []
        rebuilt = 0
        for d, doc in enumerate(corpus.documents):
            cached = use_cache and _tokens_path(doc.sha256).is_file()
            spans, tokens = _doc_tokens(doc.text, doc.sha256, use_cache)
            rebuilt += not cached
            for (s, e), toks in zip(spans, tokens):
                rows.append((d, s, e))
                ids.append(list(map(vocab.__getitem__, toks)))
        vocab.setdefault("", len(vocab))  # bm25s scores empty queries against this token
        retriever = bm25s.BM25()
        retriever.index((ids, dict(vocab)), show_progress=False)
        passages = np.asarray(rows, dtype=np.int64).reshape(-1, 3)
        if use_cache:
            tmp_dir = _tmp_name(index_dir)
            shutil.rmtree(tmp_dir, ignore_errors=True)
            retriever.save(str(tmp_dir))
            np.save(tmp_dir / "passages.npy", passages)
            shutil.rmtree(index_dir, ignore_errors=True)
            try:
                tmp_dir.rename(index_dir)
            except OSError:  # another process saved the same index meanwhile
                shutil.rmtree(tmp_dir, ignore_errors=True)
        return cls(corpus, retriever, passages, rebuilt)

    def __len__(self) -> int:
        return len(self.passages)

    def search(self, query: str, k: int = 5) -> list[Hit]:
        """Top-k passages for `query`, best first; ties broken by position so results are deterministic."""
        vocab = self.retriever.vocab_dict
        token_ids = [vocab[t] for t in tokenize(query) if t in vocab]
        if not token_ids or k <= 0 or not len(self.passages):
            return []
        scores = self.retriever.get_scores_from_ids(token_ids)
        # The k best positive scores; among equal scores the earlier passage wins, also at the
        # cut-off (argpartition alone would pick an arbitrary one of the tied passages). Only
        # the matching passages are partitioned: numpy's partition is slow on the many zeros.
        top = np.flatnonzero(scores > 0)
        if len(top) > k:
            matched = scores[top]
            top = top[matched >= np.partition(matched, len(top) - k)[len(top) - k]]
        top = top[np.lexsort((top, -scores[top]))][:k]
        hits = []
        for i in top:
            d, s, e = self.passages[i]
            hits.append(Hit(int(d), int(s), int(e), float(scores[i])))
        return hits
