"""BM25 over a corpus's passages (bm25s), cached outside the run folder and rebuilt incrementally.

Cache layout (under the cache folder):
- ``tokens/<text_sha256>.json``: one document's passage spans and tokens. Only new or
  changed documents are split and tokenized again.
- ``index/<corpus fingerprint>/``: the bm25s matrices plus the passage table, re-used
  as long as no document changed.

An operator a query writes (`&`, `>>`, `~`: "What do the &, ^ and | operators accept?", "x >> n") is marks no
token keeps, so the search also looks for the names of the grammar rules that quote it (`and_expr ::= shift_expr |
and_expr "&" shift_expr` in the language reference): the corpus's own productions say which rules an operator
belongs to (`operator_rules`). A mark counts as an operator where the query writes it as one: in backticks, between
two operands (`x >> n`, `x += 1`), or in a query that says "operator"; a dash between words is prose. A corpus
without grammar productions (a folder, HotpotQA's paragraphs) searches exactly as before.
"""

from __future__ import annotations

import json
import os
import re
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


# A grammar production (`and_expr ::= shift_expr | and_expr "&" shift_expr`) and the operators it quotes: marks only,
# no bracket or punctuation (`(`, `,`, `:` delimit; they operate on nothing).
_PRODUCTION = re.compile(r"^[ \t]*([A-Za-z_]\w*)[ \t]+::=(.*)$", re.M)
_QUOTED_OPERATOR = re.compile(r'"([-+*/%@&|^~<>=!]{1,3})"')
# A run of operator marks standing alone in a query: in backticks, or between spaces, commas and the query's ends.
_OPERATOR = re.compile(r"(?:(?<=`)|(?<![^\s,(]))([-+*/%@&|^~<>=!]{1,3})(?=`|[\s,?.)]|$)")
_OPERAND = re.compile(r"^(?:[A-Za-z_]\w?|\d+(?:\.\d+)?)$")  # `x`, `n`, `1`: what an operator is written between
_SAYS_OPERATOR = re.compile(r"\boperators?\b", re.I)


def productions(text: str) -> list[tuple[str, list[str]]]:
    """The grammar productions a text writes, each as its rule's name and the operators it quotes
    (`and_expr ::= shift_expr | and_expr "&" shift_expr` → `("and_expr", ["&"])`)."""
    if "::=" not in text:
        return []
    return [(m.group(1), _QUOTED_OPERATOR.findall(m.group(2))) for m in _PRODUCTION.finditer(text)]


def operator_rules(corpus: Corpus) -> dict[str, list[str]]:
    """Each operator the corpus's grammar productions quote, and the names of the rules that quote it, in order
    (`"&"` → `and_expr`; `">>"` → `shift_expr`): empty for a corpus without productions."""
    rules: dict[str, list[str]] = {}
    for doc in corpus.documents:
        for name, ops in productions(doc.text):
            for op in ops:
                names = rules.setdefault(op, [])
                if name not in names:
                    names.append(name)
    return rules


def operators_in(query: str) -> list[str]:
    """The operators a query writes as operators: in backticks ("the `~` operator"), between two operands
    ("x >> n", "x += 1"), or anywhere in a query that says "operator" ("the &, ^ and | operators"); not a dash
    between words ("normalization - are they the same?")."""
    says = bool(_SAYS_OPERATOR.search(query))
    found = []
    for m in _OPERATOR.finditer(query):
        before = query[: m.start()].rstrip("` ").split()
        after = query[m.end() :].lstrip("` ").split()
        quoted = query[m.start() - 1 : m.start()] == "`" and query[m.end() : m.end() + 1] == "`"
        between = bool(before and after and _OPERAND.match(before[-1]) and _OPERAND.match(after[0].rstrip(",?.")))
        if (quoted or between or says) and m.group(1) not in found:
            found.append(m.group(1))
    return found


class CorpusIndex:
    """Search a corpus's passages by BM25. Build with `CorpusIndex.build(corpus)`."""

    def __init__(self, corpus: Corpus, retriever: bm25s.BM25, passages: np.ndarray, rebuilt_docs: int = 0):
        self.corpus = corpus
        self.retriever = retriever
        self.passages = passages  # shape (n, 3): doc index, start, end
        self.rebuilt_docs = rebuilt_docs  # documents tokenized in this build (0 when the index was re-used)
        self._operators: dict[str, list[str]] | None = None  # `operator_rules(corpus)`, read at the first search

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

    def _with_rules(self, query: str) -> str:
        """The query and the grammar rules that quote each operator it writes (`operator_rules`)."""
        ops = operators_in(query)
        if not ops:
            return query
        if self._operators is None:
            self._operators = operator_rules(self.corpus)
        names = [n for op in ops for n in self._operators.get(op, [])]
        return " ".join([query, *dict.fromkeys(names)])

    def search(self, query: str, k: int = 5) -> list[Hit]:
        """Top-k passages for `query`, best first; ties broken by position so results are deterministic."""
        vocab = self.retriever.vocab_dict
        query = self._with_rules(query)
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
