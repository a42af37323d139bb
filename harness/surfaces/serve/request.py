"""A new-run request: the run options a browser may set, checked as `research run` checks its flags.

`POST /api/runs` takes the `RunOptions` fields (contract/options.py) whose metadata lets a browser set them
(`browser_fields`): not `runs_dir` (the server's), not `agents` (a spec path or a Python class is code, not a form
field) and never `yes` (the plan gate waits for the browser). Their flags and JSON types are the metadata's too.
The values are checked by the same functions `research run` calls (`build_config`, `check_budget_fits`,
`preflight`), so a bad value gets the same one-line message, carrying its field (`UsageError.field`), and a corpus
folder must lie under one of the server's `--corpus-root`s. What passes becomes the command line of the run's own
`research run` process (`option_flags`, from the same metadata).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from harness.contract.options import (
    BUDGET_FLAGS,
    Option,
    RunOptions,
    browser_fields,
    field_of_flag,
    flag_of,
    option_of,
    options,
    python_type,
)
from harness.errors import UsageError
from harness.orchestrator.agents import preflight
from harness.orchestrator.config import DEFAULT_CORPUS, build_config, check_limits
from harness.orchestrator.lifecycle import check_budget_fits
from harness.runtime.budget import DIMENSIONS

MAX_LISTED = 500  # corpus folders the new-run form offers
# The fields a browser may set: the run options whose metadata says so (contract/options.py `RunOptions`), never
# runs_dir (the server's), agents (a spec path or a Python class is code), yes (the plan gate waits for the
# browser), an endpoint or the web fetcher's --web-allow-private (a browser must not open the private network).
FIELDS = browser_fields()
# The flag each field stands for: messages name the flag (as on the CLI), the page shows them beside the field.
FLAGS = {name: flag_of(name) for name in (*FIELDS, *(f"budget.{dim}" for dim in BUDGET_FLAGS))}
_TYPES = {name: python_type(name) for name in FIELDS}
_KINDS = {str: "a string", bool: "true or false", int: "an integer", dict: "an object"}


class RequestError(UsageError):
    """A bad field: one line naming the flag, and the field it came from (for the page to show it beside)."""

    def __init__(self, message: str, field: str | None = None, status: int = 400):
        super().__init__(message, field=field)
        self.status = status


def form_fields() -> list[dict[str, Any]]:
    """The new-run form's fields, drawn by the page from the run options' metadata (as open_deep_research's UI reads
    its configuration's): each option a browser may set, an object's parts by dotted name (`budget.usd`), in the
    options' order, with its label, flag, help, input kind and bounds."""
    return [_form_field(name, o) for name, o in options() if (o.browser or "." in name) and not o.parts]


def _form_field(name: str, o: Option) -> dict[str, Any]:
    head, _, part = name.partition(".")
    label = f"{head} {part}" if part else name
    out: dict[str, Any] = {"name": name, "label": label.replace("_", " ").capitalize(), "flag": o.flag, "help": o.help}
    schema, kind = o.schema or {}, python_type(name)
    if "enum" in schema and not o.many:
        out.update(input="select", choices=schema["enum"])
    elif kind is bool:
        out["input"] = "checkbox"
    elif kind is int or isinstance(kind, tuple):
        out.update(input="number", min=schema.get("minimum"), max=schema.get("maximum"))
        out["step"] = 1 if kind is int else "any"
    else:
        out.update(input="text", example=o.example)
    return out


def field_of(message: str) -> str | None:
    """The field a CLI-style message names by its flag, for a message that reaches the server only as text (the last
    stderr line of a launched `research run`); an error raised in this process carries its field (`UsageError.field`)."""
    name = field_of_flag(message.split(" ", 1)[0].removesuffix(":"))
    return name if name in FLAGS else None


@dataclass(frozen=True)
class CorpusRoots:
    """Where a corpus may come from: folders (resolved, symlinks followed) and, if listed, the built-in python-docs."""

    folders: tuple[Path, ...]
    builtin: bool

    @classmethod
    def parse(cls, values: list[str] | None, cwd: Path) -> CorpusRoots:
        values = list(values or [str(cwd), DEFAULT_CORPUS])
        folders = []
        for v in values:
            if v == DEFAULT_CORPUS:
                continue
            p = (cwd / v).resolve()
            if not p.is_dir():
                raise UsageError(f"--corpus-root {v}: no such folder")
            folders.append(p)
        return cls(tuple(folders), DEFAULT_CORPUS in values)

    def check(self, corpus: str, cwd: Path) -> str:
        """The corpus to pass to `research run`: python-docs, or an absolute folder under an allowed root."""
        if "\0" in corpus:
            raise RequestError(f"--corpus: {corpus!r} holds a NUL byte, which no path can", field="corpus")
        if corpus == DEFAULT_CORPUS:
            if not self.builtin:
                raise RequestError(f"--corpus {corpus}: not among the allowed corpus roots", field="corpus", status=403)
            return corpus
        path = self.resolve(corpus, cwd)
        if not any(path == root or root in path.parents for root in self.folders):
            roots = ", ".join([str(r) for r in self.folders] + ([DEFAULT_CORPUS] if self.builtin else []))
            raise RequestError(
                f"--corpus {corpus}: outside the allowed corpus roots ({roots})", field="corpus", status=403
            )
        if not path.is_dir():
            raise RequestError(f"--corpus {corpus}: no such folder", field="corpus")
        return str(path)

    def resolve(self, corpus: str, cwd: Path) -> Path:
        """A folder as typed: an absolute path as it is; a relative name under the first root that holds it as a
        folder (so `docs` means ROOT/docs), else under the server's folder (where `research run` would look)."""
        if Path(corpus).is_absolute():
            return Path(corpus).resolve()
        for root in self.folders:
            candidate = (root / corpus).resolve()
            if candidate.is_dir() and (candidate == root or root in candidate.parents):
                return candidate
        return (cwd / corpus).resolve()

    def listing(self, limit: int = MAX_LISTED) -> list[dict[str, str]]:
        """What a corpus may be, for the form to offer: python-docs if allowed, then the folders directly under each
        root (not hidden, not linked out of it), by the name `resolve` takes, at most `limit`."""
        out = [{"name": DEFAULT_CORPUS, "path": DEFAULT_CORPUS}] if self.builtin else []
        seen: set[str] = set()
        for root in self.folders:
            try:
                children = sorted(p for p in root.iterdir() if not p.name.startswith("."))
            except OSError:
                continue
            for child in children:
                real = child.resolve()
                if child.name in seen or not real.is_dir() or root not in real.parents:
                    continue
                seen.add(child.name)
                out.append({"name": child.name, "path": str(real)})
                if len(out) >= limit:
                    return out
        return out

    def describe(self) -> list[str]:
        return [str(r) for r in self.folders] + ([DEFAULT_CORPUS] if self.builtin else [])


def _typed(body: dict[str, Any]) -> dict[str, Any]:
    for key, value in body.items():
        if key not in FIELDS:
            name = key if len(key) <= 40 else key[:37] + "..."
            raise RequestError(f"{name}: not a request field (fields: {', '.join(FIELDS)})", field=name)
        expected = _TYPES.get(key)
        if value is None or expected is None:
            continue
        if not isinstance(value, expected) or (isinstance(value, bool) and expected is not bool):
            kind = _KINDS[expected if isinstance(expected, type) else expected[0]]
            raise RequestError(f"{FLAGS[key]}: expected {kind}, got {_short(value)}", field=key)
        if isinstance(value, str) and "\0" in value:
            raise RequestError(f"{FLAGS[key]}: must not contain a NUL byte", field=key)
    budget = body.get("budget") or {}
    for dim, value in budget.items():
        if dim not in DIMENSIONS:
            name = f"budget.{dim if len(dim) <= 40 else dim[:37] + '...'}"
            raise RequestError(f"{name}: not a budget (budgets: {', '.join(DIMENSIONS)})", field=name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise RequestError(f"{BUDGET_FLAGS[dim]}: expected a number, got {_short(value)}", field=f"budget.{dim}")
    return body


def _short(value: Any) -> str:
    """A value as a message shows it: cut, so an error line stays one short line whatever was sent."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def budget_flags(budget: dict[str, Any] | None) -> list[str]:
    """--budget-* flags for the limits given (None: unchanged)."""
    out: list[str] = []
    for dim, value in (budget or {}).items():
        if value is not None:
            out += [BUDGET_FLAGS[dim], str(value)]
    return out


def check_budget_request(budget: Any) -> dict[str, Any]:
    """A resume's raised limits: an object of budget dimensions to numbers."""
    if budget is None:
        return {}
    if not isinstance(budget, dict):
        raise RequestError(f"budget: expected an object, got {_short(budget)}", field="budget")
    budget = _typed({"budget": budget})["budget"]
    try:
        check_limits(budget)
    except UsageError as exc:
        raise RequestError(str(exc), field=exc.field) from None
    return budget


def run_flags(body: Any, roots: CorpusRoots, cwd: Path, runs_dir: Path) -> list[str]:
    """Check a new-run request like `research run` checks its flags; return those flags (question last)."""
    if not isinstance(body, dict):
        raise RequestError("request body: expected a JSON object")
    body = _typed(dict(body))
    question = body.get("question")
    if not isinstance(question, str) or not question.strip():
        raise RequestError("QUESTION: must not be empty", field="question")
    # an empty text box is an option not given
    options = RunOptions.from_mapping({k: v for k, v in body.items() if v != ""}, allowed=FIELDS)
    options = replace(
        options, corpus=options.corpus or DEFAULT_CORPUS, runs_dir=str(runs_dir), budget=options.budget or {}
    )
    try:
        cfg = build_config(options)
        check_budget_fits(cfg)
        preflight(cfg)
    except RequestError:
        raise
    except UsageError as exc:
        raise RequestError(str(exc), field=exc.field) from None
    flags = ["--corpus", roots.check(options.corpus or DEFAULT_CORPUS, cwd)]
    for name in FIELDS:
        if name not in ("question", "corpus", "budget"):
            flags += option_flags(name, getattr(options, name))
    return [*flags, *budget_flags(options.budget), "--", question]


def option_flags(name: str, value: Any) -> list[str]:
    """The `research run` flags that give option `name` this value (none for None)."""
    o = option_of(name)
    if value is None or o.flag is None:
        return []
    if isinstance(value, bool):
        on = value != o.negated
        return [str(o.flag)] if on else [str(o.off)] if o.off else []
    return [o.flag, str(value)]
