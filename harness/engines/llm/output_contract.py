"""The 'Output contract' section of an llm role's system prompt, generated from the artifact's JSON Schema.

The model is told exactly the fields, types, enums, patterns and conditional rules its
output must meet, so the schema check that guards the write holds no surprises.
"""

from __future__ import annotations

import json
from typing import Any

from harness.contract.citations import format_citation
from harness.contract.schemas import schema as load_schema


def _resolve(node: dict[str, Any], doc: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Follow a $ref (into this schema or another schema file); the referring node's description wins."""
    seen = 0
    while isinstance(node, dict) and "$ref" in node and seen < 10:
        seen += 1
        file, _, pointer = node["$ref"].partition("#")
        target_doc = load_schema(file) if file else doc
        target: Any = target_doc
        for part in [p for p in pointer.split("/") if p]:
            target = target[part.replace("~1", "/").replace("~0", "~")]
        merged = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        node, doc = merged, target_doc
    return node, doc


def _constraints(node: dict[str, Any], doc: dict[str, Any] | None = None) -> str:
    bits = []
    t = node.get("type")
    if isinstance(t, list):
        bits.append(" or ".join(t))
    elif t:
        bits.append(t)
    items = node.get("items")
    if t == "array" and isinstance(items, dict):
        items, _ = _resolve(items, doc or {})
        if items.get("type") != "object" and "properties" not in items:
            inner = _constraints(items, doc)
            if inner:
                bits[-1] = f"array of ({inner})"
    if "const" in node:
        bits.append(f"exactly {json.dumps(node['const'])}")
    if "enum" in node:
        bits.append("one of " + ", ".join(json.dumps(v) for v in node["enum"]))
    for key, label in (
        ("pattern", "pattern"),
        ("minLength", "min length"),
        ("maxLength", "max length"),
        ("minimum", ">="),
        ("exclusiveMinimum", ">"),
        ("maximum", "<="),
        ("minItems", "min items"),
        ("maxItems", "max items"),
    ):
        if key in node:
            bits.append(f"{label} {node[key]}")
    if node.get("uniqueItems"):
        bits.append("unique items")
    return ", ".join(bits)


def _fields(node: dict[str, Any], doc: dict[str, Any], path: str, depth: int, out: list[str]) -> None:
    node, doc = _resolve(node, doc)
    if depth > 6:
        return
    for variant in node.get("oneOf", []) + node.get("anyOf", []):
        variant, vdoc = _resolve(variant, doc)
        if variant.get("type") == "object" or "properties" in variant:
            _fields(variant, vdoc, path, depth, out)
    props = node.get("properties") or {}
    required = set(node.get("required") or [])
    for name, child in props.items():
        child, cdoc = _resolve(child, doc)
        where = f"{path}.{name}" if path else name
        mark = " (required)" if name in required else ""
        desc = child.get("description", "")
        out.append(f"{'  ' * depth}- `{where}`{mark}: {_constraints(child, cdoc)}{' — ' + desc if desc else ''}")
        if child.get("type") == "object" or "properties" in child:
            _fields(child, cdoc, where, depth + 1, out)
        items = child.get("items")
        if isinstance(items, dict):
            items, idoc = _resolve(items, cdoc)
            if items.get("type") == "object" or "properties" in items:
                _fields(items, idoc, f"{where}[]", depth + 1, out)
        for rule in child.get("allOf", []) if isinstance(child.get("allOf"), list) else []:
            _conditional(rule, where, out, depth + 1)
        items_rules = (child.get("items") or {}).get("allOf") if isinstance(child.get("items"), dict) else None
        for rule in items_rules or []:
            _conditional(rule, f"{where}[]", out, depth + 1)


def _condition_text(props: dict[str, Any]) -> str:
    parts = []
    for name, cond in props.items():
        if "const" in cond:
            parts.append(f"`{name}` is {json.dumps(cond['const'])}")
        elif "enum" in cond:
            parts.append(f"`{name}` is one of " + ", ".join(json.dumps(v) for v in cond["enum"]))
        else:
            parts.append(f"`{name}` matches {json.dumps(cond)}")
    return " and ".join(parts)


def _conditional(rule: dict[str, Any], where: str, out: list[str], depth: int) -> None:
    if not isinstance(rule, dict) or "if" not in rule:
        return
    when = _condition_text((rule["if"] or {}).get("properties") or {})
    then = rule.get("then") or {}
    needs = [f"`{name}` {_constraints(c)}" for name, c in (then.get("properties") or {}).items()]
    needs += [f"`{name}` present" for name in then.get("required") or []]
    out.append(f"{'  ' * depth}- rule for each `{where}`: when {when}, then {'; '.join(needs) or json.dumps(then)}")


def output_contract(kind: str) -> str:
    """The 'Output contract' section of a role's system prompt, generated from the artifact's schema."""
    if kind == "draft":
        return "\n".join(
            [
                "## Output contract",
                "Your output is a Markdown file, `drafts/draft-N.md` (N as given in your brief), written in one `write_file` call.",
                "Cite claims from `claims.json` by id, in square brackets with an at-sign, at the end of the sentence they "
                f"support: `{format_citation(['C1'])}`; several claims: `{format_citation(['C1', 'C3'])}`. "
                "Nothing else is a citation: never cite sources or cards, "
                "never write `[@S1]` or `[@C1, C2]`.",
                "The harness refuses a draft whose citations do not resolve to claims in `claims.json`; the error names the "
                "line — fix it and write the whole draft again.",
            ]
        )
    name = f"{kind}.schema.json"
    doc = load_schema(name)
    lines = [
        "## Output contract",
        f"Your output must validate against the JSON Schema `{name}` ({doc.get('title', kind)}). "
        "Write it as JSON with `write_file`. Objects accept only the fields listed; fields marked required must be present.",
        "",
    ]
    _fields(doc, doc, "", 0, lines)
    for rule in doc.get("allOf", []):
        _conditional(rule, "document", lines, 0)
    lines += [
        "",
        "A refused write names the file, the JSON pointer of the bad field and the rule it broke, and nothing "
        "is written: fix exactly that field and write the whole file again.",
    ]
    return "\n".join(lines)
