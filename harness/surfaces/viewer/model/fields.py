"""Lenient readers of JSON values: a value of the wrong type reads as None (or an empty list)."""

from __future__ import annotations

from typing import Any, get_args


def obj(value: Any) -> dict[str, Any]:
    """`value` if it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def number(value: Any) -> int | float | None:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def integer(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def texts(value: Any) -> list[str]:
    """The strings of a JSON list (anything else in it, or a non-list, is dropped)."""
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def literal(value: Any, kind: Any) -> Any:
    """`value` if it is one of the `Literal` type `kind`'s values, else None."""
    return value if isinstance(value, str) and value in get_args(kind) else None


def objects(value: Any) -> list[dict[str, Any]]:
    """The JSON objects of a JSON list."""
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []
