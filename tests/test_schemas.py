"""The schemas: well-formed, documented, their examples valid, and mutations of the examples rejected."""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.resources import schemas_dir
from harness.schemas import schema, schema_names, validate

EXAMPLES = {
    "run": "run.schema.json", "plan": "plan.schema.json", "source": "source.schema.json", "card": "card.schema.json",
    "claims": "claims.schema.json", "review": "review.schema.json", "trace-event": "trace-event.schema.json",
    "metrics": "metrics.schema.json", "agent-spec": "agent-spec.schema.json", "config": "config.schema.json",
    "eval-case": "eval-case.schema.json",
}


def example(name: str):
    return json.loads((schemas_dir() / "examples" / f"{name}.json").read_text(encoding="utf-8"))


def test_every_artifact_schema_has_an_example_and_an_id():
    names = set(schema_names())
    assert {f"{k}.schema.json" for k in EXAMPLES} | {"common.schema.json"} <= names
    for name in names:
        assert schema(name)["$id"].endswith(name)
        assert schema(name)["$schema"] == "https://json-schema.org/draft/2020-12/schema"


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_example_is_valid(name):
    assert validate(example(name), EXAMPLES[name], name) == []


def _undocumented(node, where):
    """Paths of declared properties without a description."""
    missing = []
    if isinstance(node, dict):
        for key, sub in (node.get("properties") or {}).items():
            if not isinstance(sub, dict) or "description" not in sub:
                missing.append(f"{where}/properties/{key}")
        for key, sub in node.items():
            if key not in ("if", "then", "else", "not"):  # conditions constrain fields declared elsewhere
                missing += _undocumented(sub, f"{where}/{key}")
    elif isinstance(node, list):
        for i, sub in enumerate(node):
            missing += _undocumented(sub, f"{where}/{i}")
    return missing


@pytest.mark.parametrize("name", sorted(set(EXAMPLES.values()) | {"common.schema.json"}))
def test_every_field_has_a_description(name):
    assert _undocumented(schema(name), name) == []


# ---- mutations ---------------------------------------------------------------------

def _resolve(sub, base):
    """Follow $ref (into common.schema.json or the current document's $defs); return (node, its document)."""
    while isinstance(sub, dict) and "$ref" in sub:
        doc_name, _, frag = sub["$ref"].partition("#")
        base = schema(doc_name) if doc_name else base
        sub = base
        for part in [p for p in frag.split("/") if p]:
            sub = sub[part]
    return sub, base


def mutation_sites(value, sub, base, pointer=()):
    """(path, op) pairs that are invalid by construction for this schema node."""
    sub, base = _resolve(sub, base)
    sites = []
    if not isinstance(sub, dict):
        return sites
    if isinstance(value, dict):
        for key in sub.get("required", []):
            if key in value and "oneOf" not in sub:
                sites.append((pointer, ("delete", key)))
        if sub.get("additionalProperties") is False:
            sites.append((pointer, ("add", "zz_not_in_schema")))
        for key, child in (sub.get("properties") or {}).items():
            if key in value:
                sites += mutation_sites(value[key], child, base, pointer + (key,))
    elif isinstance(value, list) and isinstance(sub.get("items"), dict):
        for i, item in enumerate(value):
            sites += mutation_sites(item, sub["items"], base, pointer + (i,))
    if sub.get("type") == "string" or (isinstance(sub.get("enum"), list) and all(isinstance(e, str) for e in sub["enum"])):
        sites.append((pointer, ("replace", 12345)))
    if sub.get("type") == "integer":
        sites.append((pointer, ("replace", "not a number")))
    return sites


def apply(doc, path, op):
    doc = copy.deepcopy(doc)
    if op[0] == "replace" and not path:
        return op[1]
    parent = doc
    for part in path[:-1] if op[0] == "replace" else path:
        parent = parent[part]
    if op[0] == "delete":
        del parent[op[1]]
    elif op[0] == "add":
        parent[op[1]] = "unexpected"
    else:
        parent[path[-1]] = op[1]
    return doc


@pytest.mark.parametrize("name", sorted(EXAMPLES))
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_mutated_example_is_rejected(name, data):
    doc = example(name)
    sch = schema(EXAMPLES[name])
    sites = mutation_sites(doc, sch, sch)
    assert len(sites) >= 3, "the example should offer several mutation sites"
    path, op = data.draw(st.sampled_from(sites))
    mutated = apply(doc, path, op)
    problems = validate(mutated, EXAMPLES[name], name)
    assert problems, f"mutation {op} at {path} was accepted"
    assert all(p.rule and p.pointer.startswith("/") for p in problems)
