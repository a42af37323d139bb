"""The built-in `python-docs` corpus: real documents that exist on every install, with no network.

Three kinds of document, all read from what the running interpreter already ships:

* `topics/<key>`        the language-reference topics bundled for `help()` (`pydoc_data.topics`);
* `stdlib/<module>`     each standard-library module's docstring plus its public classes,
                        functions and methods (signature line, then docstring), read with `ast`
                        from the source files so that no module is ever imported or run;
* `dist/<name>`         the long description (README) of each installed distribution.

Building takes a few seconds, so callers cache the result keyed by `python_docs_fingerprint()`.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.metadata
import os
import re
import sys
import sysconfig
import warnings
from collections.abc import Iterator

Document = tuple[str, str, str]  # (path, title, text)

# Bump when the document format changes, so cached corpora built by older code are rebuilt.
_FORMAT_VERSION = 1

# Folders of the stdlib that are not documentation: tests, the IDLE app, a deprecated
# converter, demos. Private folders (`_bundled`, ...) and non-package folders
# (`site-packages`, `config-3.x-...`, `lib-dynload`) are skipped by the rules in `_stdlib_files`.
_SKIP_DIRS = frozenset({"test", "tests", "idlelib", "lib2to3", "turtledemo", "__pycache__"})
# Private modules are implementation details; `__future__` is the one documented exception.
_PRIVATE_KEPT = frozenset({"__future__"})


def python_docs_documents() -> list[Document]:
    """Every document of the corpus, sorted by path; the same environment always gives the same list."""
    docs: dict[str, Document] = {}
    for doc in (*_topic_documents(), *_stdlib_documents(), *_dist_documents()):
        docs.setdefault(doc[0], doc)
    return [docs[path] for path in sorted(docs)]


def python_docs_fingerprint() -> str:
    """A hash of everything the corpus is built from: rebuild the cached corpus when it changes."""
    dists = sorted(f"{name}=={version}" for name, version, _ in _distributions())
    parts = [f"format={_FORMAT_VERSION}", sys.version, _stdlib_dir(), *dists]
    return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()


# --- language reference topics ----------------------------------------------------------------


def _topic_documents() -> Iterator[Document]:
    """The reference sections `help("with")` shows; the first line of each is its heading."""
    try:
        from pydoc_data.topics import topics
    except ImportError:  # some distro builds strip pydoc_data
        return
    for key, text in topics.items():
        text = _clean(text)
        heading = text.split("\n", 1)[0].replace('"', "").strip()
        heading = re.sub(r"^The ", "", heading) or key.replace("-", " ")
        yield f"topics/{key}", f"Python reference: {heading}", text


# --- standard library -------------------------------------------------------------------------


def _stdlib_dir() -> str:
    return sysconfig.get_paths()["stdlib"]


def _stdlib_documents() -> Iterator[Document]:
    for module, path in _stdlib_files(_stdlib_dir()):
        text = _module_text(module, path)
        if text:
            yield f"stdlib/{module}", f"Python standard library: {module}", text


def _stdlib_files(root: str) -> Iterator[tuple[str, str]]:
    """(dotted module name, file path) for the public stdlib modules, in sorted order.

    Only folders that are packages (have `__init__.py`) and whose names are identifiers are
    walked, which leaves out `site-packages`, `lib-dynload`, `config-3.x-...` and data folders.
    """
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        package = [] if rel == "." else rel.split(os.sep)
        dirnames[:] = sorted(
            d
            for d in dirnames
            if d not in _SKIP_DIRS
            and _public(d)
            and d.isidentifier()
            and os.path.isfile(os.path.join(dirpath, d, "__init__.py"))
        )
        for filename in sorted(filenames):
            stem, ext = os.path.splitext(filename)
            if ext != ".py" or not stem.isidentifier():
                continue
            if stem == "__init__":
                if not package:
                    continue
                parts = package
            elif _public(stem):
                parts = [*package, stem]
            else:
                continue
            yield ".".join(parts), os.path.join(dirpath, filename)


def _public(name: str) -> bool:
    return not name.startswith("_") or name in _PRIVATE_KEPT


def _module_text(module: str, path: str) -> str | None:
    """Module docstring, then a signature line and docstring per public class, function, method.

    Parsed, never imported: importing `antigravity` opens a browser and `this` prints.
    Returns None when the module has no docstrings at all, or cannot be read or parsed.
    """
    try:
        with open(path, "rb") as f:
            source = f.read()
        with warnings.catch_warnings():  # invalid escapes in old modules warn on 3.12+
            warnings.simplefilter("ignore")
            tree = ast.parse(source, filename=path)
    except (SyntaxError, UnicodeDecodeError, ValueError, OSError, RecursionError):
        return None
    sections: list[str] = []
    has_doc = False
    doc = ast.get_docstring(tree)
    if doc:
        sections.append(doc)
        has_doc = True
    for node in tree.body:
        if not _is_def(node) or not _public(node.name):
            continue
        doc = ast.get_docstring(node)
        has_doc = has_doc or bool(doc)
        sections.append(_signature(node) + (f"\n{doc}" if doc else ""))
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                # __init__ carries the constructor's signature, so it counts as public here.
                if (
                    _is_def(item)
                    and not isinstance(item, ast.ClassDef)
                    and (_public(item.name) or item.name == "__init__")
                ):
                    doc = ast.get_docstring(item)
                    has_doc = has_doc or bool(doc)
                    sections.append(_signature(item, owner=node.name) + (f"\n{doc}" if doc else ""))
    if not has_doc:
        return None
    return _clean(f"{module}\n\n" + "\n\n".join(sections))


def _is_def(node: ast.AST) -> bool:
    return isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))


def _signature(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, owner: str = "") -> str:
    """`class Name(bases)` or `[async ]def [Owner.]name(args) -> ret`, rebuilt from the ast."""
    if isinstance(node, ast.ClassDef):
        bases = ", ".join(ast.unparse(b) for b in (*node.bases, *node.keywords))
        return f"class {node.name}({bases})" if bases else f"class {node.name}"
    prefix = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
    name = f"{owner}.{node.name}" if owner else node.name
    returns = f" -> {ast.unparse(node.returns)}" if node.returns else ""
    return f"{prefix} {name}({ast.unparse(node.args)}){returns}"


# --- installed distributions ------------------------------------------------------------------


def _normalize(name: str) -> str:
    """PEP 503 name normalization: `Foo_Bar.baz` and `foo-bar-baz` are the same project."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _distributions() -> list[tuple[str, str, importlib.metadata.Distribution]]:
    """(normalized name, version, dist), first on sys.path winning, as import would pick it."""
    seen: dict[str, tuple[str, str, importlib.metadata.Distribution]] = {}
    for dist in importlib.metadata.distributions():
        name = dist.metadata["Name"]
        if name:
            seen.setdefault(_normalize(name), (_normalize(name), dist.version or "", dist))
    return [seen[key] for key in sorted(seen)]


def _dist_documents() -> Iterator[Document]:
    """The Summary line then the long description (README) of each installed distribution."""
    for key, version, dist in _distributions():
        meta = dist.metadata
        body = meta["Description"]  # 3.11's adapter also exposes the METADATA payload here
        if not body:
            payload = meta.get_payload() if hasattr(meta, "get_payload") else None
            body = payload if isinstance(payload, str) else ""
        body = _clean(body)
        if not body or body.upper() == "UNKNOWN":
            continue
        summary = _clean(meta["Summary"] or "")
        text = f"{summary}\n\n{body}" if summary and summary != "UNKNOWN" else body
        yield f"dist/{key}", f"{meta['Name']} {version} (package description)", text


def _clean(text: str) -> str:
    """Plain "\\n" newlines and no surrounding blank space."""
    return text.replace("\r\n", "\n").replace("\r", "\n").strip()
