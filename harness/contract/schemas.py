"""Loading the JSON Schemas and validating documents against them.

Every problem comes back as a `Problem` naming the file, the JSON pointer of the
bad field and the rule (the JSON Schema keyword) it broke.

Validation runs on every artifact write, trace event and run.json update, and the
reference validator (`jsonschema`, Draft 2020-12, with a `referencing` registry for
the cross-file `$ref`s) is slow next to that rate (figures in bench/README.md). So `validate` first asks a compiled fast path (`jsonschema_rs`) for a
verdict: almost every document is valid, and then that verdict is the answer.
Anything else — an invalid document, or a value the fast path cannot vouch for —
goes to `jsonschema`, so accepted documents and every `Problem` (pointer, rule,
message) are exactly what `jsonschema` alone gives. The fast path may only be
stricter than `jsonschema`, never looser; tests/contract/test_schemas.py checks that the
two agree on the examples and on many mutations of them. To stay that way:

- it only sees plain JSON values (dict with str keys, list, str, int, finite float,
  bool, None, by exact type): `jsonschema_rs` would take a tuple for an array, and
  NaN or infinity for null;
- `pattern` is checked with Python's `re.search`, as `jsonschema` does, not with
  the Rust regex engine (ECMA-style `\\s` and `$` differ from Python's);
- `format` is not asserted, as in `jsonschema` without a format checker.
"""

from __future__ import annotations

import json
import re
from functools import cache
from math import isfinite
from typing import Any

import jsonschema_rs
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match
from referencing import Registry, Resource

from harness.contract.resources import schemas_dir
from harness.errors import Problem


@cache
def _registry_and_schemas() -> tuple[Registry, dict[str, dict[str, Any]]]:
    schemas: dict[str, dict[str, Any]] = {}
    resources = []
    for path in sorted(schemas_dir().glob("*.schema.json")):
        schema = json.loads(path.read_text(encoding="utf-8"))
        Draft202012Validator.check_schema(schema)
        schemas[path.name] = schema
        resource = Resource.from_contents(schema)
        resources.append((schema["$id"], resource))
        resources.append((path.name, resource))
    return Registry().with_resources(resources), schemas


def schema(name: str) -> dict[str, Any]:
    """The parsed schema document `name` (e.g. 'plan.schema.json')."""
    return _registry_and_schemas()[1][name]


def schema_names() -> list[str]:
    return sorted(_registry_and_schemas()[1])


@cache
def validator(name: str) -> Draft202012Validator:
    """The reference validator: its verdict and errors are the contract."""
    registry, schemas = _registry_and_schemas()
    return Draft202012Validator(schemas[name], registry=registry)


class _PythonPattern:
    """`pattern` for jsonschema_rs with Python's regex semantics (what jsonschema uses)."""

    def __init__(self, parent_schema: Any, value: str, schema_path: Any) -> None:
        self.search = re.compile(value).search

    def validate(self, instance: Any) -> None:
        if isinstance(instance, str) and not self.search(instance):
            raise ValueError("does not match pattern")


@cache
def fast_validator(name: str) -> Any:
    """The fast path for schema `name`: a compiled jsonschema_rs validator (see the module docstring)."""
    schemas = _registry_and_schemas()[1]
    registry = jsonschema_rs.Registry([(s["$id"], s) for s in schemas.values()])
    return jsonschema_rs.Draft202012Validator(
        schemas[name], registry=registry, validate_formats=False, keywords={"pattern": _PythonPattern}
    )


_SCALARS = frozenset({str, int, bool, type(None)})


def _plain_json(value: Any) -> bool:
    """True if `value` is plain JSON: exact types (no subclasses, tuples, sets...), finite floats."""
    kind = type(value)
    if kind is dict:
        return all(type(k) is str and _plain_json(v) for k, v in value.items())
    if kind is list:
        return all(map(_plain_json, value))
    return kind in _SCALARS or (kind is float and isfinite(value))


def fast_accepts(data: Any, schema_name: str) -> bool:
    """The fast path's verdict: True only if `data` is certainly valid; False means 'ask jsonschema'."""
    try:
        return _plain_json(data) and fast_validator(schema_name).is_valid(data)
    except Exception:  # a lone surrogate in a string, very deep nesting...: jsonschema decides
        return False


def json_pointer(parts: Any) -> str:
    """RFC 6901 pointer for a path of keys and indices."""
    out = ""
    for part in parts:
        out += "/" + str(part).replace("~", "~0").replace("/", "~1")
    return out or "/"


def _explain(error: ValidationError) -> ValidationError:
    # For oneOf/anyOf/if-then failures the useful detail is in the sub-errors.
    if error.context:
        deeper = best_match(error.context)
        if deeper is not None and len(deeper.absolute_path) >= len(error.absolute_path):
            return deeper
    return error


def validate(data: Any, schema_name: str, file: str) -> list[Problem]:
    """Validate `data` against schema `schema_name`; return one Problem per violation."""
    return [] if fast_accepts(data, schema_name) else jsonschema_problems(data, schema_name, file)


def jsonschema_problems(data: Any, schema_name: str, file: str) -> list[Problem]:
    """What `validate` returns, computed by the reference validator alone."""
    problems = []
    errors = sorted(
        validator(schema_name).iter_errors(data), key=lambda e: (list(map(str, e.absolute_path)), e.validator)
    )
    for error in errors:
        err = _explain(error)
        message = err.message
        if len(message) > 200:
            message = message[:197] + "..."
        problems.append(Problem(file, json_pointer(err.absolute_path), str(err.validator), message))
    return problems
