"""The one tokenizer: what BM25 indexes, what a "content word" is, what the injection detector compares.

Snowball-stemmed lower-case word tokens without English stopwords or one-letter words,
so "cancellation" in a question matches "cancel" in a source.
"""

from __future__ import annotations

import re
import threading

import snowballstemmer
from bm25s.stopwords import STOPWORDS_EN

_TOKEN = re.compile(r"[a-z0-9_]+")
_STOP = frozenset(STOPWORDS_EN)
_STEMMER = snowballstemmer.stemmer("english")
_STEMMER_LOCK = threading.Lock()  # a snowball stemmer keeps its state in the object: one word at a time


class _Stems(dict):
    """word -> its stem, or "" for a word that is dropped (stopword, one letter).

    A memo: the vocabulary is small next to the token stream, and stemming is the slow part.
    Looking up a new word stems it (under the lock: research branches search in parallel).
    """

    def __missing__(self, word: str) -> str:
        with _STEMMER_LOCK:
            stem = "" if len(word) < 2 or word in _STOP else _STEMMER.stemWord(word)
            self[word] = stem
            return stem


_STEMS = _Stems()


def tokenize(text: str) -> list[str]:
    """Snowball-stemmed lower-case word tokens, without English stopwords or one-letter words.

    Stemming lets "cancellation" in a question match "cancel" in a source.
    """
    return list(filter(None, map(_STEMS.__getitem__, _TOKEN.findall(text.lower()))))
