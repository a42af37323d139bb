"""How the offline Writer writes a brief in parts over documents of several periods.

- Each part is a section headed by the part as the brief words it (`part_heading`), quoting a statement once in the
  whole report (`unsaid`: a sentence found for two parts is stated where it comes first).
- A claim's series (`contract/claims.py`: one measure's figures for several periods): the current figure is stated
  and cited, each older one follows in an italic note saying it is superseded and for which period, and a figure
  only an archived document gives is said to be superseded. So no superseded figure reads as current, and none
  reads as a conflict.
"""

from __future__ import annotations

from harness.contract.claims import CURRENT, SUPERSEDED
from harness.contract.quotes import normalize_ws
from harness.sources.sentences import split_sentences

NOTE_MAX = 200  # characters of an older figure's sentence quoted in a note


def superseded_only(claim: dict) -> bool:
    """A claim whose series has no current figure: what it states is an older document's figure."""
    series = claim.get("series") or []
    return bool(series) and not any(e["vintage"] == CURRENT for e in series)


def _when(label: str) -> str:
    return "in an archived document" if label in ("archived", "undated") else f"in {label}"


def _figure_sentence(quote: str) -> str:
    """The first sentence of a quote that holds a digit (the figure), whitespace normalized, without its full stop,
    shortened: a note stays one sentence."""
    text = normalize_ws(quote)
    spans = [text[a:b] for a, b in split_sentences(text)] or [text]
    first = next((s for s in spans if any(ch.isdigit() for ch in s)), spans[0]).rstrip(" .;")
    return first if len(first) <= NOTE_MAX else first[: NOTE_MAX - 1].rstrip() + "…"


def series_note(claim: dict, cards: dict[str, dict]) -> str:
    """The italic note after a claim's cited sentence ("" when it has no series)."""
    series = claim.get("series") or []
    if superseded_only(claim):
        return f" *(Superseded: this figure is from an archived document ({series[0]['period']}); a newer one may differ)*."
    older = [
        f"was “{_figure_sentence(cards[e['card_id']]['quote'])}” {_when(e['period'])}"
        for e in series
        if e["vintage"] == SUPERSEDED and e["card_id"] in cards
    ]
    return f" *(Superseded figures: {'; '.join(older)})*." if older else ""


def part_heading(q: dict) -> str:
    """A brief's part as its section's heading: the part as the brief words it."""
    terms = q.get("search_terms") or []
    if terms:
        return terms[0][:1].upper() + terms[0][1:]
    return q["text"].rstrip("?. ")


def unsaid(claims: list[dict], stated: list[dict]) -> list[dict]:
    """The claims whose statement no claim in `stated` already makes (the same sentence found for two parts)."""
    said = {normalize_ws(c["statement"]) for c in stated}
    return [c for c in claims if normalize_ws(c["statement"]) not in said]
