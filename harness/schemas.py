"""Loading the JSON Schemas and validating documents against them.

Every problem comes back as a `Problem` naming the file, the JSON pointer of the
bad field and the rule (the JSON Schema keyword) it broke.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match
from referencing import Registry, Resource

from .errors import Problem
from .resources import schemas_dir


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
    registry, schemas = _registry_and_schemas()
    return Draft202012Validator(schemas[name], registry=registry)


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
    problems = []
    errors = sorted(validator(schema_name).iter_errors(data), key=lambda e: (list(map(str, e.absolute_path)), e.validator))
    for error in errors:
        err = _explain(error)
        message = err.message
        if len(message) > 200:
            message = message[:197] + "..."
        problems.append(Problem(file, json_pointer(err.absolute_path), str(err.validator), message))
    return problems
