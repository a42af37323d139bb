"""The built-in `python-docs` corpus: the Python documentation, the same on every machine with the same Python.

Two kinds of document, read from what the running interpreter itself ships (never from what
`pip install` added, so the same question cites the same documents on every machine):

* `topics/<key>`        the language-reference topics bundled for `help()` (`pydoc_data.topics`);
                        a text several keys share is kept once, under the key its heading names;
* `stdlib/<module>`     each standard-library module's docstring plus its public classes,
                        functions and methods (signature line, then docstring), read with `ast`
                        from the source files so that no module is ever imported or run. A module
                        that warns it is deprecated when imported (or is in a package that does)
                        says so after its docstring, in the warning's words (`DEPRECATED`).

`python-docs+packages` (an explicit choice, never the default) adds a third kind:

* `dist/<name>`         what each installed distribution's description says to its users: its
                        Summary line and README, without the sections about installing, building,
                        testing or contributing to it, its change log, licence and sponsors, and
                        without badge and image lines. The harness's own distribution is left out:
                        its README documents this tool, not Python (a report must never cite it).

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
from typing import TypeGuard

Document = tuple[str, str, str]  # (path, title, text)

# Bump when the document format changes, so cached corpora built by older code are rebuilt.
_FORMAT_VERSION = 4

# This tool's own distribution: left out of the corpus (see the module docstring).
OWN_DISTRIBUTION = "research-harness"

# Folders of the stdlib that are not documentation: tests, the IDLE app, a deprecated
# converter, demos. Private folders (`_bundled`, ...) and non-package folders
# (`site-packages`, `config-3.x-...`, `lib-dynload`) are skipped by the rules in `_stdlib_files`.
_SKIP_DIRS = frozenset({"test", "tests", "idlelib", "lib2to3", "turtledemo", "__pycache__"})
# Private modules are implementation details; `__future__` is the one documented exception.
_PRIVATE_KEPT = frozenset({"__future__"})


def python_docs_documents(packages: bool = False) -> list[Document]:
    """Every document of the corpus, sorted by path: the language reference and the standard library, plus the
    installed distributions' descriptions only when `packages` is asked for. The same Python always gives the
    same list (without `packages`, whatever else is installed)."""
    docs: dict[str, Document] = {}
    for doc in (*_topic_documents(), *_stdlib_documents(), *(_dist_documents() if packages else ())):
        docs.setdefault(doc[0], doc)
    return [docs[path] for path in sorted(docs)]


def python_docs_fingerprint(packages: bool = False) -> str:
    """A hash of everything the corpus is built from: rebuild the cached corpus when it changes."""
    dists = sorted(f"{name}=={version}" for name, version, _ in _distributions()) if packages else []
    parts = [f"format={_FORMAT_VERSION}", f"packages={packages}", sys.version, _stdlib_dir(), *dists]
    return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()


# --- language reference topics ----------------------------------------------------------------


def _topic_documents() -> Iterator[Document]:
    """The reference sections `help("with")` shows; the first line of each is its heading."""
    try:
        from pydoc_data.topics import topics
    except ImportError:  # some distro builds strip pydoc_data
        return
    keys: dict[str, list[str]] = {}
    for key, text in topics.items():
        keys.setdefault(_clean(text), []).append(key)
    for text, shared in keys.items():
        heading = text.split("\n", 1)[0]
        key = _named_key(heading, shared)
        heading = re.sub(r"^The ", "", heading.replace('"', "").strip()) or key.replace("-", " ")
        yield f"topics/{key}", f"Python reference: {heading}", text


def _named_key(heading: str, keys: list[str]) -> str:
    """The one key of a text several `help()` keys share (`help("else")` shows the "if" statement): the key its
    heading names, so the document is found under the name of what it documents; else the first in order."""
    words = set(re.findall(r"[\w-]+", heading.lower()))
    return next((key for key in sorted(keys) if key.lower() in words), min(keys))


# --- standard library -------------------------------------------------------------------------


def _stdlib_dir() -> str:
    return sysconfig.get_paths()["stdlib"]


def _stdlib_documents() -> Iterator[Document]:
    deprecated: dict[str, str] = {}  # module -> what importing it warns (a package's warning covers its modules)
    for module, path in _stdlib_files(_stdlib_dir()):
        tree = _parse(path)
        if tree is None:
            continue
        parent = next((deprecated[p] for p in _packages_of(module) if p in deprecated), None)
        warning = _deprecation(tree, module) or parent
        if warning:
            deprecated[module] = warning
        text = _module_text(module, tree, warning)
        if text:
            yield f"stdlib/{module}", f"Python standard library: {module}", text


def _packages_of(module: str) -> list[str]:
    """The packages a dotted module is in, nearest first (`a.b.c` → `a.b`, `a`)."""
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(len(parts) - 1, 0, -1)]


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


def _parse(path: str) -> ast.Module | None:
    """The module's syntax tree, or None when it cannot be read or parsed (never imported)."""
    try:
        with open(path, "rb") as f:
            source = f.read()
        with warnings.catch_warnings():  # invalid escapes in old modules warn on 3.12+
            warnings.simplefilter("ignore")
            return ast.parse(source, filename=path)
    except (SyntaxError, UnicodeDecodeError, ValueError, OSError, RecursionError):
        return None


# What `warnings._deprecated(name, remove=...)` says when it is given no message of its own.
_DEPRECATED_MSG = "{name!r} is deprecated and slated for removal in Python {remove}"
DEPRECATED = "Deprecated: "  # starts the line that says what importing a deprecated module warns (`deprecated`)


def deprecated(text: str) -> bool:
    """Does a module's document say that importing it warns it is deprecated (the DEPRECATED line after its
    docstring, before its first class or function)?"""
    head = re.split(rf"^{SIGNATURE_START}", text, maxsplit=1, flags=re.M)[0]
    return re.search(rf"^{DEPRECATED}", head, re.M) is not None


def _deprecation(tree: ast.Module, module: str) -> str | None:
    """What importing the module warns when it is deprecated: a module-level `warnings.warn(msg,
    DeprecationWarning)` or `warnings._deprecated(__name__, msg, remove=...)`, read from the source. The message is
    the warning's own text where the source spells it (a string, a module-level string constant, an f-string of
    `__name__`); None for a module that does not warn."""
    strings = {
        t.id: node.value.value
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
        for t in node.targets
        if isinstance(t, ast.Name)
    }

    def text(arg: ast.expr | None) -> str | None:
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            return arg.value
        if isinstance(arg, ast.Name):
            return strings.get(arg.id)
        if isinstance(arg, ast.JoinedStr):
            parts = []
            for v in arg.values:
                if isinstance(v, ast.Constant):
                    parts.append(str(v.value))
                elif isinstance(v, ast.FormattedValue) and isinstance(v.value, ast.Name) and v.value.id == "__name__":
                    parts.append(repr(module) if v.conversion == ord("r") else module)
                else:
                    return None
            return "".join(parts)
        return None

    for node in tree.body:
        call = node.value if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) else None
        if call is None:
            continue
        name = ast.unparse(call.func).rsplit(".", 1)[-1]
        args = ast.unparse(call)
        if name == "_deprecated":
            remove = next((k.value for k in call.keywords if k.arg == "remove"), None)
            version = (
                ".".join(ast.unparse(v) for v in remove.elts) if isinstance(remove, ast.Tuple) else "a later Python"
            )
            message = text(call.args[1]) if len(call.args) > 1 else _DEPRECATED_MSG
            try:
                return (message or _DEPRECATED_MSG).format(name=module, remove=version)
            except (KeyError, IndexError, ValueError):
                return _DEPRECATED_MSG.format(name=module, remove=version)
        if name == "warn" and "DeprecationWarning" in args and "PendingDeprecationWarning" not in args:
            return text(call.args[0] if call.args else None) or f"module {module!r} is deprecated"
    return None


def _module_text(module: str, tree: ast.Module, deprecation: str | None = None) -> str | None:
    """Module docstring (then, for a deprecated module, the line that says what importing it warns), then a
    signature line and docstring per public class, function, method.

    Parsed, never imported: importing `antigravity` opens a browser and `this` prints.
    Returns None when the module has no docstrings at all.
    """
    sections: list[str] = []
    has_doc = False
    doc = ast.get_docstring(tree)
    if doc:
        sections.append(doc)
        has_doc = True
    if deprecation:
        sections.append(DEPRECATED + deprecation.strip().rstrip(".") + ".")
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


def _is_def(node: ast.AST) -> TypeGuard[ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef]:
    return isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))


# How a signature line (`_signature`) starts: the one pattern the engine's ranking also reads docstrings by.
SIGNATURE_START = r"(?:async def|def|class) "


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


def own_distributions() -> set[str]:
    """Normalized names of the distributions that ship this harness (never part of the corpus)."""
    names = {OWN_DISTRIBUTION, *importlib.metadata.packages_distributions().get(__name__.split(".")[0], [])}
    return {_normalize(n) for n in names}


def _dist_documents() -> Iterator[Document]:
    """The Summary line then the user documentation of each installed distribution's README."""
    own = own_distributions()
    for key, version, dist in _distributions():
        if key in own:
            continue
        meta = dist.metadata
        body = meta["Description"]  # 3.11's adapter also exposes the METADATA payload here
        if not body:
            payload = meta.get_payload() if hasattr(meta, "get_payload") else None
            body = payload if isinstance(payload, str) else ""
        body = _clean(body)
        if not body or body.upper() == "UNKNOWN":
            continue
        body = user_documentation(body)
        summary = _clean(meta["Summary"] or "")
        text = f"{summary}\n\n{body}" if summary and summary != "UNKNOWN" else body
        yield f"dist/{key}", f"{meta['Name']} {version} (package description)", text


# Sections of a README that serve its maintainers, not its users (matched on the heading text).
_NOT_FOR_USERS = re.compile(
    r"\b(?:install\w*|build\w*|compil\w*|develop\w*|contribut\w*|test\w*|change\s*log\w*|changes|what'?s\s+changed|"
    r"release\w*|history|version\w*|licen[cs]\w*|sponsor\w*|acknowledg\w*|credits|code\s+of\s+conduct|security|"
    r"new\s+contributors|fixed|fixes|added|removed|deprecat\w*|breaking|packaging|citation|citing|authors?|maintainers?|"
    r"contact|funding|donat\w*|badges?|table\s+of\s+contents|requirements|prerequisites|dependencies|download\w*|"
    r"roadmap|team|clon\w*|fork\w*)\b|^v?\d+(?:\.\d+)+\b",
    re.I,
)
_ATX = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+<>:._])\1{2,}\s*$")
# Lines that are only badges, images, bare links or layout markup.
_DECORATION = re.compile(
    r"^\s*(?:\[!\[.*|!\[.*|\.\.\s+image::.*|\.\.\s+\|.*|\|[\w -]+\|(?:\s*\|[\w -]+\|)*|"
    r"</?(?:p|div|a|img|picture|source|h\d|br|hr|table|tr|td|th|tbody|thead|center)\b.*|"
    r":(?:target|alt|width|height|align):.*|\S*https?://\S+)\s*$"
)
# A short line of its own ending in ':' ("Testing:") heads what follows, as a heading would.
_LEAD_IN = re.compile(r"^\s*([A-Z][\w' -]{0,40}):\s*$")
# Install steps outside an install section: a shell code block, or a paragraph that says how to install.
_SHELL_FENCE = re.compile(r"^\s*```\s*(?:sh|shell|bash|console|zsh|powershell|bat|cmd)\s*$", re.I)
_INSTALL_PARAGRAPH = re.compile(
    r"\b(?:pip|uv|conda|poetry)\s+(?:pip\s+)?(?:install|add)\b|^\s*(?:to\s+|you\s+can\s+)?install\b|^\s*\$\s|\bgit\s+clone\b",
    re.I | re.M,
)


def _headings(lines: list[str]) -> dict[int, tuple[int, str]]:
    """line number -> (level, heading text), for Markdown (ATX and setext) and reStructuredText headings."""
    styles: list[str] = []
    out: dict[int, tuple[int, str]] = {}
    fenced = False
    for i, line in enumerate(lines):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if fenced or line.lstrip().startswith("```"):
            continue  # a "# comment" in a code block is not a heading
        m = _ATX.match(line)
        if m:
            out[i] = (len(m.group(1)), m.group(2))
            continue
        u = _UNDERLINE.match(line)
        if u and i > 0 and lines[i - 1].strip() and not _UNDERLINE.match(lines[i - 1]) and (i - 1) not in out:
            over = i > 1 and lines[i - 2].strip() == line.strip()  # an overlined title: === / Title / ===
            style = ("over" if over else "") + u.group(1)
            if over or style == "=":
                level = 1  # Markdown's and most reStructuredText's top level
            elif style == "-":
                level = 2
            else:
                if style not in styles:
                    styles.append(style)
                level = 3 + styles.index(style)
            out[i - 1] = (level, lines[i - 1].strip())
    return out


def user_documentation(readme: str) -> str:
    """A README without the sections for its maintainers (install, build, test, contributing, change log,
    licence...) and without badge, image and layout lines: what documents the package to its users."""
    lines = readme.split("\n")
    heads = _headings(lines)
    fenced = False
    for i, line in enumerate(lines):
        fenced ^= line.lstrip().startswith("```")
        m = _LEAD_IN.match(line)
        if m and not fenced and i not in heads and (i == 0 or not lines[i - 1].strip()):
            heads[i] = (99, m.group(1))
    keep: list[str] = []
    dropping: int | None = None  # level of the section being dropped
    for i, line in enumerate(lines):
        if i in heads:
            level, title = heads[i]
            if dropping is not None and level <= dropping:
                dropping = None
            if dropping is None and _NOT_FOR_USERS.search(re.sub(r"[^\w\s.']", " ", title).strip()):
                dropping = level
        if dropping is not None or _DECORATION.match(line):
            continue
        keep.append(line)
    return _without_install_steps(re.sub(r"\n{3,}", "\n\n", "\n".join(keep)).strip())


def _without_install_steps(text: str) -> str:
    """Drop shell code blocks and the paragraphs that say how to install the package."""
    lines = text.split("\n")
    units: list[list[str]] = []  # fenced blocks, paragraphs and blank lines, in order
    i = 0
    while i < len(lines):
        if lines[i].lstrip().startswith("```"):
            j = next((k for k in range(i + 1, len(lines)) if lines[k].lstrip().startswith("```")), len(lines) - 1)
            units.append(lines[i : j + 1])
            i = j + 1
        elif not lines[i].strip():
            units.append([""])
            i += 1
        else:
            j = i
            while j < len(lines) and lines[j].strip() and not lines[j].lstrip().startswith("```"):
                j += 1
            units.append(lines[i:j])
            i = j
    keep = []
    for unit in units:
        body = "\n".join(unit)
        if unit[0].lstrip().startswith("```"):
            if _SHELL_FENCE.match(unit[0]) and not unit[0].strip().endswith("python"):
                continue
        if _INSTALL_PARAGRAPH.search(body):
            continue
        keep.append(body)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(keep)).strip()


def _clean(text: str) -> str:
    """Plain "\\n" newlines and no surrounding blank space."""
    return text.replace("\r\n", "\n").replace("\r", "\n").strip()
