"""The schemas: well-formed, documented, their examples valid, and mutations of the examples rejected;
the fast path of `validate` agrees with jsonschema."""

from __future__ import annotations

import copy
import json
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.contract.resources import schemas_dir
from harness.contract.schemas import fast_accepts, jsonschema_problems, schema, schema_names, validate, validator

EXAMPLES = {
    "run": "run.schema.json",
    "plan": "plan.schema.json",
    "source": "source.schema.json",
    "card": "card.schema.json",
    "claims": "claims.schema.json",
    "review": "review.schema.json",
    "trace-event": "trace-event.schema.json",
    "metrics": "metrics.schema.json",
    "agent-spec": "agent-spec.schema.json",
    "config": "config.schema.json",
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
    assert fast_accepts(example(name), EXAMPLES[name]), "the fast path should accept it (else validate is slow)"


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
    if sub.get("type") == "string" or (
        isinstance(sub.get("enum"), list) and all(isinstance(e, str) for e in sub["enum"])
    ):
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


# ---- the fast path (jsonschema_rs) agrees with jsonschema -----------------------------


def _property_names(node):
    names = set()
    if isinstance(node, dict):
        names |= set(node.get("properties") or {})
        for sub in node.values():
            names |= _property_names(sub)
    elif isinstance(node, list):
        for sub in node:
            names |= _property_names(sub)
    return names


# Texts where the regex dialects differ (ECMA/Rust vs Python: \s, $, .) and that the schemas' patterns care about.
TRICKY = [
    "",
    " ",
    "\n",
    "\r",
    "\t",
    "\ufeff",
    "\x1c",
    "\x85",
    "\xa0",
    "\u2028",
    "\u3000",
    "/",
    "..",
    "/..",
    "\\",
    "é",
    "\U0001f600",
    "Q1",
    "C12",
    "src-0123456789ab",
    "2026-11-30T01:02:03Z",
    "null",
    ">=",
    "==1",
    "-0.5",
    "http://",
    "a:b",
]
KEYS = sorted(_property_names([schema(n) for n in schema_names()])) + [
    "zz_not_in_schema",
    "Q1\n",
    "a/..\n",
    "../x",
    "first",
    "2",
]
# Values jsonschema_rs treats differently or cannot take; validate must still answer as jsonschema does.
EXOTIC = [(1, 2), ("Q1",), float("nan"), float("inf"), "\ud800", {1: "x"}, Decimal("1.5"), {"a", "b"}]

texts = st.sampled_from(TRICKY) | st.text(max_size=4)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.integers(-(2**70), 2**70)
    | texts
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([0.0, -0.0, 1.0, 0.5, 2.0**64, 1e300])
)
json_values = st.recursive(
    scalars,
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(texts | st.sampled_from(KEYS), kids, max_size=3),
    max_leaves=5,
)


def _paths(value, path=()):
    yield path
    if isinstance(value, dict):
        for key, sub in value.items():
            yield from _paths(sub, path + (key,))
    elif isinstance(value, list):
        for i, sub in enumerate(value):
            yield from _paths(sub, path + (i,))


@st.composite
def mutated(draw, doc):
    """`doc` with one node edited: valid or not, ordinary JSON or not."""
    doc = copy.deepcopy(doc)
    path = draw(st.sampled_from(list(_paths(doc))))
    parent = None
    node = doc
    for part in path:
        parent, node = node, node[part]
    if isinstance(node, str):
        new = draw(
            st.sampled_from([node + draw(texts), draw(texts) + node, node[: draw(st.integers(0, len(node)))]])
            | json_values
        )
    elif isinstance(node, bool) or node is None:
        new = draw(json_values)
    elif isinstance(node, (int, float)):
        new = draw(st.sampled_from([node + 1, node - 1, -node, float(node), node + 0.5, 10**30]) | json_values)
    elif isinstance(node, dict):
        new = dict(node)
        if node and draw(st.booleans()):
            del new[draw(st.sampled_from(list(node)))]  # not sorted: an exotic edit may leave an int key
        else:
            new[draw(st.sampled_from(KEYS) | texts)] = draw(
                st.sampled_from(list(node.values()) or [None]) | json_values
            )
    elif isinstance(node, list):
        new = list(node)
        if node and draw(st.booleans()):
            new.append(draw(st.sampled_from(node)))  # a duplicate (uniqueItems)
        elif node:
            del new[draw(st.integers(0, len(node) - 1))]
        else:
            new.append(draw(json_values))
    else:  # an exotic value put there by an earlier edit
        new = draw(json_values)
    if draw(st.integers(0, 9)) == 0:
        new = draw(st.sampled_from(EXOTIC + [tuple(node) if isinstance(node, list) else node]))
    if parent is None:
        return new
    parent[path[-1]] = new
    return doc


def _ordinary_json(value) -> bool:
    """Plain JSON types, finite numbers, encodable text: where the two validators must agree exactly."""
    try:
        return json.loads(json.dumps(value, allow_nan=False, ensure_ascii=False).encode("utf-8")) == value
    except (ValueError, TypeError):
        return False


@pytest.mark.parametrize("name", sorted(EXAMPLES))
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_fast_path_agrees_with_jsonschema(name, data):
    doc = example(name)
    for _ in range(data.draw(st.integers(0, 3))):
        doc = data.draw(mutated(doc))
    reference = jsonschema_problems(doc, EXAMPLES[name], name)
    assert validate(doc, EXAMPLES[name], name) == reference
    if _ordinary_json(doc):
        assert fast_accepts(doc, EXAMPLES[name]) == (reference == [])
    elif fast_accepts(doc, EXAMPLES[name]):
        assert reference == []


@pytest.mark.parametrize(
    "name, path, value",
    [
        (
            "run",
            ("artifacts", "a/..\n"),
            {"sha256": "0" * 64, "size": 1, "writer": "planner", "written_at": "2026-11-30T01:02:04Z"},
        ),
        ("eval-case", ("expect", "reviews"), "\ufeff>=1"),  # Rust \s takes U+FEFF, Python's does not
        ("eval-case", ("expect", "reviews"), "\x1c>=1"),  # Python \s takes U+001C, Rust's does not
        ("trace-event", ("ts",), "2026-11-30T01:02:09Z\n"),  # Python $ matches before a final newline
        ("trace-event", ("tools",), ("search",)),  # jsonschema_rs takes a tuple for an array
        ("trace-event", ("budget", "tokens"), float("nan")),  # jsonschema_rs takes NaN and infinity for null...
        ("trace-event", ("model",), float("inf")),  # ... jsonschema for numbers
        ("trace-event", ("brief",), "\ud800"),  # jsonschema_rs cannot take a lone surrogate
    ],
)
def test_known_engine_differences_follow_jsonschema(name, path, value):
    doc = example(name)
    node = doc
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    assert validate(doc, EXAMPLES[name], name) == jsonschema_problems(doc, EXAMPLES[name], name)
    assert validator(EXAMPLES[name]).is_valid(doc) or not fast_accepts(doc, EXAMPLES[name])
