"""Quote matching: how a card's quote is compared with, and found in, the stored source snapshot.

A quote matches its source when it equals the snapshot's text at the card's span up to
whitespace (any run of whitespace counts as one space, the ends are trimmed). That is the
verbatim guarantee (invariant 3); nothing looser is ever accepted.

`locate_quote` is the harness doing the mechanical part for a model: given what the model
quoted (and, as a hint only, where it said the quote is), it finds the quote in the
snapshot and returns the snapshot's own substring and its true span. It tries, in order:

1. `exact`: the quote as given;
2. `whitespace`: the same words with any whitespace between them;
3. `typography`: the same characters once typography is set aside — Markdown emphasis and
   code marks (`*`, `_`, backticks), curly and straight quotes, dashes, non-breaking and
   other spaces, ligatures. Only the characters' typographic form may differ: every letter,
   digit and word must be there, in order. A paraphrase never matches.

The card then stores the snapshot's substring (so it matches by rule 1 forever after).
`closest_passage` says where the nearest text is when a quote is not found (rapidfuzz).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_WS = re.compile(r"\s+")

# Characters that only mark emphasis or code in Markdown: set aside on both sides.
_IGNORABLE = "*_`"
# Typographic variants: each maps to the plain character a model is likely to type.
_VARIANTS = {
    '"': '"“”„‟″«»',
    "'": "'‘’‚‛′",
    "-": "-‐‑‒–—―−",
    " ": " \u00a0\u2007\u202f\u2009\u200a\u2002\u2003",
    ".": ".․",
}
_PLAIN = {v: k for k, vs in _VARIANTS.items() for v in vs if v != k}
_LIGATURES = {"ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st", "ﬆ": "st"}
_GAP = f"[{re.escape(_IGNORABLE)}]*"  # emphasis or code marks the snapshot may have between two characters


def normalize_ws(text: str) -> str:
    """Collapse every run of whitespace to one space and strip the ends."""
    return _WS.sub(" ", text).strip()


def quote_matches(text: str, quote: str, start: int, end: int) -> bool:
    """True when `quote` equals `text[start:end]` up to whitespace."""
    if not (0 <= start < end <= len(text)):
        return False
    return normalize_ws(text[start:end]) == normalize_ws(quote)


def _words_pattern(quote: str) -> str:
    """A regex for the (non-blank) quote's words with any run of whitespace between them."""
    return r"\s+".join(map(re.escape, normalize_ws(quote).split(" ")))


def find_quote(text: str, quote: str) -> tuple[int, int] | None:
    """Locate `quote` in `text` allowing any whitespace between its words; return the span."""
    if not normalize_ws(quote):
        return None
    m = re.search(_words_pattern(quote), text)
    return (m.start(), m.end()) if m else None


@dataclass(frozen=True)
class Located:
    start: int
    end: int
    text: str  # the snapshot's own substring: what the card stores as its quote
    how: str  # exact, whitespace or typography


def _plain(quote: str) -> str:
    """The quote with typography set aside: plain quotes, dashes and spaces, no ligatures, no emphasis marks."""
    out = []
    for ch in quote:
        ch = _LIGATURES.get(ch, ch)
        out.append("".join(_PLAIN.get(c, c) for c in ch if c not in _IGNORABLE))
    return normalize_ws("".join(out))


def _char_pattern(ch: str) -> str:
    if ch == " ":
        return r"[\s" + re.escape(_VARIANTS[" "]) + r"]+"
    if ch in _VARIANTS:
        return "[" + re.escape(_VARIANTS[ch]) + "]"
    return re.escape(ch)


def _typography_pattern(plain: str) -> str:
    """A regex matching `plain` in a snapshot whatever its typography (see the module docstring)."""
    parts: list[str] = []
    i = 0
    while i < len(plain):
        for lig, letters in sorted(_LIGATURES.items(), key=lambda kv: -len(kv[1])):
            if plain.startswith(letters, i):
                parts.append(f"(?:{re.escape(letters)}|{lig})")
                i += len(letters)
                break
        else:
            parts.append(_char_pattern(plain[i]))
            i += 1
    return _GAP.join(parts)


def _nearest(matches: list[tuple[int, int]], hint: int | None) -> tuple[int, int]:
    return min(matches, key=lambda s: abs(s[0] - hint)) if hint is not None else matches[0]


def locate_quote(text: str, quote: str, hint: int | None = None) -> Located | None:
    """Where `quote` is in `text` (the occurrence nearest `hint`, a start offset, when there are several), or None."""
    if not quote or not quote.strip():
        return None
    stripped = quote.strip()
    spans: list[tuple[int, int]] = []
    at = text.find(stripped)
    while at >= 0 and len(spans) < 50:
        spans.append((at, at + len(stripped)))
        at = text.find(stripped, at + 1)
    if spans:
        s, e = _nearest(spans, hint)
        return Located(s, e, text[s:e], "exact")
    found = [(m.start(), m.end()) for m in re.finditer(_words_pattern(stripped), text)]
    if found:
        s, e = _nearest(found, hint)
        return Located(s, e, text[s:e], "whitespace")
    plain = _plain(stripped)
    if not plain:
        return None
    found = [(m.start(), m.end()) for m in re.finditer(_typography_pattern(plain), text)]
    if found:
        s, e = _nearest(found, hint)
        return Located(s, e, text[s:e], "typography")
    return None


def closest_passage(text: str, quote: str, width: int = 400) -> tuple[int, int, float] | None:
    """The span of `text` most like `quote` and its similarity (0-100), for an error that says where to look.

    rapidfuzz finds the best-aligned window; the window is widened to `width` characters at most.
    """
    from rapidfuzz import fuzz

    if not text or not quote.strip():
        return None
    needle = normalize_ws(quote)[:width]
    best = fuzz.partial_ratio_alignment(needle, text, score_cutoff=0)
    if best is None:
        return None
    return best.dest_start, best.dest_end, best.score
