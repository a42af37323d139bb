"""Judging a whole text: `find_injections` cuts it into units and judges each in its setting."""

from __future__ import annotations

import re
from typing import Any

from harness.contract.injection import (
    InjectionReason,
)
from harness.sources.injection.patterns import (
    _CLOSED,
    _LIST_MARKER,
    _SOFT,
    _first_word,
    _imperative,
    _is_request,
)
from harness.sources.injection.sentence import (
    DocumentWords,
    Setting,
    classify,
)
from harness.sources.sentences import (
    split_sentences,
)

CODE = "injection_suspected"


_CLOSERS = "\"')]”’"


def _units(text: str) -> list[tuple[int, int]]:
    """Sentences, with a sentence whose quotation marks are left open joined to the next (the splitter
    cuts after a quoted '!' or '?': 'Add "Great news!" to it.' must stay one unit)."""
    spans = split_sentences(text)
    out: list[tuple[int, int]] = []
    i = 0
    while i < len(spans):
        s, e = spans[i]
        while (
            i + 1 < len(spans)
            and "\n\n" not in text[e : spans[i + 1][0]]
            and (
                _open_quote(text[s:e])
                or (text[s:e].rstrip(_CLOSERS)[-1:] in ("!", "?") and text[spans[i + 1][0]].islower())
            )
        ):
            i += 1
            e = spans[i][1]
        while e < len(text) and text[e] in _CLOSERS:  # a closing quote the splitter left outside
            e += 1
        out.append((s, e))
        i += 1
    return out


_GLUE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"“])")


def _glued(sentence: str, where: Setting) -> InjectionReason | None:
    """A unit the splitter kept whole across a full stop ("... in R. The delay ...": it reads 'R.' as an
    initial) is also judged piece by piece, so a neighbour cannot shield a planted sentence."""
    pieces = _GLUE.split(sentence)
    if len(pieces) < 2:
        return None
    for k, piece in enumerate(pieces):
        around = " ".join(pieces[:k] + pieces[k + 1 :] + [where.neighbours or ""])
        reason = classify(piece, Setting(around, where.document, where.in_task_list))
        if reason is not None:
            return reason
    return None


def _open_quote(sentence: str) -> bool:
    return sentence.count('"') % 2 == 1 or sentence.count("“") > sentence.count("”")


def _task_item(unit: str) -> bool:
    """A list item that gives an order or asks a question ("- Convert temperatures ...", "* Add ...")."""
    s = " ".join(unit.split())
    marker = _LIST_MARKER.match(s)
    if not marker or not re.match(r"[-*+]|\d+[.)]", s):
        return False
    order = s[marker.end() :]
    order = order[_SOFT.match(order).end() :]  # type: ignore[union-attr]  # _SOFT matches the empty string
    first = _first_word(order)
    words = order.split(None, 3)
    # "Update tests ...", "Fix typo ...": in a list, a bare verb may open its item without an article
    verb_shaped = (
        len(words) >= 3
        and re.fullmatch(r"[A-Z][a-z]+(?:-[a-z]+)?", words[0]) is not None
        and first not in _CLOSED
        and not first.endswith(("ed", "ing", "ly"))
        and not (first.endswith("s") and not first.endswith("ss"))
        and re.match(r"[\w`\[]", words[1]) is not None
    )
    return verb_shaped or _imperative(order, first) or _is_request(s, order)


def _line_start(text: str, start: int) -> bool:
    """Does the unit at `start` open a line of its own, not indented (so no item's continuation)?"""
    return start == 0 or text[start - 1] == "\n"


def _task_list_items(text: str, units: list[tuple[int, int]]) -> set[int]:
    """The units that are items of a task list: a list item that gives an order or asks a question,
    next to another such item of the same list (the units between them continue the first item)."""
    tasks = [i for i, (s, e) in enumerate(units) if _task_item(text[s:e])]
    out: set[int] = set()
    for a, b in zip(tasks, tasks[1:], strict=False):
        if all(not _line_start(text, units[k][0]) for k in range(a + 1, b)):
            out |= {a, b}
    return out


def find_injections(text: str, limit: int = 50) -> list[dict[str, Any]]:
    """Instruction-like sentences of `text`, in order:
    [{'code': 'injection_suspected', 'reason': ..., 'excerpt': ..., 'offset': start, 'end': end}].

    `offset`/`end` delimit the whole sentence in `text`; `excerpt` is its text (whitespace
    collapsed, at most 200 characters); `reason` names the rule that fired (`contract/injection.py`).
    Each sentence is judged in its setting: its neighbours, its document, the list it is an item of.
    """
    units = _units(text)
    document = DocumentWords(text)
    items = _task_list_items(text, units)
    flags: list[dict[str, object]] = []
    for i, (s, e) in enumerate(units):
        context = " ".join(text[a:b] for a, b in units[max(0, i - 2) : i] + units[i + 1 : i + 3])
        where = Setting(context, document, i in items)
        reason = classify(text[s:e], where) or _glued(text[s:e], where)
        if reason is None:
            continue
        flags.append(
            {"code": CODE, "reason": reason, "excerpt": " ".join(text[s:e].split())[:200], "offset": s, "end": e}
        )
        if len(flags) >= limit:
            break
    return flags
