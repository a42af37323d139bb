"""Local corpora: a folder of documents (or the built-in python-docs corpus) split into passages with offsets.

A passage is a span [start, end) of its document's text, so a quote taken from a search
hit can be located in the stored snapshot at the same offsets.
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

from harness.contract.formats import sha256_bytes, sha256_text
from harness.errors import UsageError
from harness.sources.cache import cache_dir
from harness.sources.extract import EXTRACTOR_VERSION, SUPPORTED, NoText, Unreadable, extract
from harness.sources.office import OFFICE

PYTHON_DOCS, PYTHON_DOCS_PACKAGES = "python-docs", "python-docs+packages"
BUILTIN = (PYTHON_DOCS, PYTHON_DOCS_PACKAGES)  # the second adds installed distributions' descriptions
PASSAGE_TARGET = 900  # characters; paragraphs are packed up to about this size
PASSAGE_MAX = 1600


@dataclass(frozen=True)
class Document:
    path: str  # key inside the corpus, e.g. notes/a.md or stdlib/asyncio.tasks
    title: str
    text: str
    sha256: str  # of the text


@dataclass
class Corpus:
    name: str
    documents: list[Document]
    skipped: list[dict[str, str]] = field(default_factory=list)
    duplicates: int = 0  # documents dropped because another one had the same text

    @property
    def fingerprint(self) -> str:
        return sha256_text(self.name + "\n" + "\n".join(f"{d.path}\t{d.sha256}" for d in self.documents))


_BLANK_LINE = re.compile(r"\n[ \t]*\n")


def _paragraph_spans(text: str) -> list[tuple[int, int]]:
    """Paragraphs (runs of text between blank lines) as spans from their first to last non-space."""
    spans = []
    pos = 0
    for stop in [m.start() for m in _BLANK_LINE.finditer(text)] + [len(text)]:
        chunk = text[pos:stop]
        body = chunk.strip()
        if body:
            start = pos + len(chunk) - len(chunk.lstrip())
            spans.append((start, start + len(body)))
        pos = stop
    return spans


def _split_long(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Split a long paragraph at sentence ends (or whitespace) near PASSAGE_TARGET.

    Every piece starts and ends on a non-whitespace character, so a piece's text is
    exactly what a quote of it would be.
    """
    out = []
    while end - start > PASSAGE_MAX:
        window = text[start : start + PASSAGE_MAX]
        cut = max(window.rfind(". ", 0, PASSAGE_TARGET + 200), window.rfind(".\n", 0, PASSAGE_TARGET + 200)) + 1
        if cut <= PASSAGE_TARGET // 3:  # no sentence end nearby: the last whitespace before the target
            cut = next((i for i in range(PASSAGE_TARGET - 1, 0, -1) if window[i].isspace()), PASSAGE_TARGET)
        piece_end = start + cut
        while text[piece_end - 1].isspace():  # stops: text[start] is not whitespace
            piece_end -= 1
        out.append((start, piece_end))
        start += cut
        while start < end and text[start].isspace():
            start += 1
    if end > start:
        out.append((start, end))
    return out


def split_passages(text: str) -> list[tuple[int, int]]:
    """Passages as (start, end) offsets into `text`, packing paragraphs up to PASSAGE_TARGET characters."""
    passages: list[tuple[int, int]] = []
    cur: tuple[int, int] | None = None
    for ps, pe in _paragraph_spans(text):
        for s, e in _split_long(text, ps, pe):
            if cur is not None and e - cur[0] <= PASSAGE_TARGET:
                cur = (cur[0], e)
            else:
                if cur is not None:
                    passages.append(cur)
                cur = (s, e)
    if cur is not None:
        passages.append(cur)
    return passages


def _extract_cached(path: Path, data: bytes) -> tuple[str, str]:
    key = sha256_bytes(data + path.suffix.lower().encode() + EXTRACTOR_VERSION.encode())
    cached = cache_dir("extract") / f"{key}.json"
    if cached.is_file():
        try:
            doc = json.loads(cached.read_text(encoding="utf-8"))
            return doc["title"], doc["text"]
        except (OSError, ValueError, KeyError):
            pass
    title, text = extract(path, data)
    if path.suffix.lower() in (".pdf", *OFFICE):  # only PDFs and office files are slow enough to be worth caching
        tmp = cached.with_name(f"{cached.name}.{os.getpid()}-{threading.get_ident()}.tmp")  # writers never share it
        tmp.write_text(json.dumps({"title": title, "text": text}), encoding="utf-8")
        tmp.replace(cached)
    return title, text


OUTSIDE = "symbolic link to a file or folder outside the corpus folder"


def _inside(real: Path, root: Path) -> bool:
    """`real` (already resolved) is the resolved corpus folder `root` or lies under it."""
    return real == root or root in real.parents


def load_folder(folder: Path, warn=None) -> Corpus:
    """Read every supported file under `folder` (recursively); unreadable ones are skipped with a warning each,
    files that hold no text (a section index of front matter only) with one warning naming them all.

    Nothing outside the folder is read: every file is opened at its resolved path, and only when that lies
    inside the resolved folder; a symbolic link out of it (to a file or a folder) is skipped and named, like
    an unreadable file (a cloned repository or an unpacked archive must not pull in what the user can read)."""
    if "\0" in str(folder):
        raise UsageError(f"--corpus: {str(folder)!r} holds a NUL byte, which no path can")
    folder = Path(folder)
    if not folder.exists():
        raise UsageError(f"--corpus: {folder} does not exist")
    if not folder.is_dir():
        raise UsageError(f"--corpus: {folder} is not a folder")
    warn = warn or (lambda msg: print(f"research: warning: {msg}", file=sys.stderr))
    root = folder.resolve()
    docs: list[Document] = []
    skipped: list[dict[str, str]] = []
    empty: list[str] = []  # files with no text: named together at the end
    seen: dict[str, str] = {}
    duplicates = 0
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if any(part.startswith(".") for part in rel.split("/")):
            continue
        real = path.resolve()
        if not _inside(real, root):
            skipped.append({"path": rel, "reason": OUTSIDE})
            warn(f"{folder / rel}: skipped: {OUTSIDE}")
            continue
        if not path.is_file():
            continue
        try:
            data = real.read_bytes()
            title, text = _extract_cached(path, data)
        except Unreadable as exc:
            skipped.append({"path": rel, "reason": str(exc)})
            if isinstance(exc, NoText):
                empty.append(rel)
            else:
                warn(f"{folder / rel}: skipped: {exc}")
            continue
        except OSError as exc:
            skipped.append({"path": rel, "reason": f"cannot read ({exc.strerror})"})
            warn(f"{folder / rel}: skipped: cannot read ({exc.strerror})")
            continue
        digest = sha256_text(text)
        if digest in seen:
            duplicates += 1
            continue
        seen[digest] = rel
        docs.append(Document(rel, title, text, digest))
    if empty:
        named = ", ".join(empty[:3]) + (f" and {len(empty) - 3} more" if len(empty) > 3 else "")
        warn(f"{folder}: skipped {len(empty)} file(s) with no text: {named}")
    if not docs:
        raise UsageError(f"--corpus: {folder} has no readable documents ({', '.join(SUPPORTED)})")
    return Corpus(folder.resolve().name, docs, skipped, duplicates)


def load_python_docs(packages: bool = False) -> Corpus:
    """The built-in corpus, cached: this Python's documentation, and installed distributions' descriptions only
    when `packages` is asked for (`python-docs+packages`)."""
    from harness.sources.pythondocs import python_docs_documents, python_docs_fingerprint

    cached = cache_dir("python-docs") / f"{python_docs_fingerprint(packages)}.json"
    rows = None
    if cached.is_file():
        try:
            rows = json.loads(cached.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            rows = None
    if rows is None:
        rows = [list(r) for r in python_docs_documents(packages)]
        tmp = cached.with_name(f"{cached.name}.{os.getpid()}-{threading.get_ident()}.tmp")  # writers never share it
        tmp.write_text(json.dumps(rows), encoding="utf-8")
        tmp.replace(cached)
    docs, seen, duplicates = [], set(), 0
    for path, title, text in rows:
        digest = sha256_text(text)
        if digest in seen:
            duplicates += 1
            continue
        seen.add(digest)
        docs.append(Document(path, title, text, digest))
    return Corpus(PYTHON_DOCS_PACKAGES if packages else PYTHON_DOCS, docs, [], duplicates)


def load_corpus(spec: str | Path, warn=None) -> Corpus:
    """`python-docs`, `python-docs+packages` or a folder path."""
    if str(spec) in BUILTIN:
        return load_python_docs(packages=str(spec) == PYTHON_DOCS_PACKAGES)
    return load_folder(Path(spec), warn=warn)
