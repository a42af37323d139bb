"""The answer check's judge of meaning, beside its word rules (`answer_rule`): a question the word rules find
`answered` stays so only when one of the quotes cited for it, read under its heading (`Finding.context`: the
source's title and the heading above the quote), is close in meaning to the question, as a sentence encoder places
them (cosine at least `CLOSE_ENOUGH`); else it is `partly`, with why. The heading is part of what a quote says:
"Preview mode enables a collection of unstable features" is under "Preview".

The word rules accept a quote that names the subject and has the asked-for shape; they cannot tell a true statement
on the subject that is not the answer ("In non-package mode, the `name` and `version` fields are required" for "What
does non-package mode change ...?") from the answer. The encoder places "bump my project's version number" far from
"the only required fields are `name` and `version`", and near an answer in other words. Every cited quote of the
question is weighed, not only the one the word rules took as the answer: a short answer ("Results are kept for 24
hours") is far from its question, and its neighbours carry the topic.

What it cannot judge: it only ever lowers a verdict (an answer the word rules miss, in other words than the
question's, stays missed); a quote close in meaning that answers another question of the same subject passes (a
command for the wrong action on the same object: "list the environments" and "find the environment's path" are near);
a comparison's sides are judged one at a time, never against each other.

The encoder is not loaded here: the evidence layer sits below the engines. It is handed in (`install_similarity`,
done once per process by `harness.engines.answer_encoder` when the engines package is imported), and the judge does
not run in a process that has none. Deterministic: the encoder's cosines are rounded to 4 places.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from harness.contract.statuses import ANSWERED, PARTLY
from harness.evidence.answer_rule import Ask, Finding, QuestionVerdict, answering_part

Similarity = Callable[[str, str], float]  # (question, quote) -> cosine, about -1..1

FAR = "close in meaning"  # what a lowered verdict's reason says (`checks.gap_wants_new_source` reads it)
CLOSE_ENOUGH = 0.60  # the middle of the range best on the tune halves (bench/README.md, bench_answers)

_installed: list[Similarity] = []


def install_similarity(similarity: Similarity | None) -> None:
    """Hand the judge its similarity for this process (None: the word rules alone)."""
    _installed[:] = [similarity] if similarity is not None else []


def installed_similarity() -> Similarity | None:
    """The similarity the judge uses in this process, if one was handed in."""
    return _installed[0] if _installed else None


def closest(ask: Ask, findings: list[Finding], similarity: Similarity) -> float:
    """How close in meaning the closest cited quote is to the question: each quote after its heading, less its
    sentences that answer nothing."""
    scores = [
        similarity(ask.text, f"{f.context} {answering_part(f.quote)}".strip())
        for f in findings
        if answering_part(f.quote)
    ]
    return max(scores, default=-1.0)


def judge_meaning(
    verdict: QuestionVerdict, ask: Ask, findings: list[Finding], similarity: Similarity | None
) -> QuestionVerdict:
    """`verdict` (the word rules'), kept or lowered to `partly` when no answering quote is close in meaning."""
    if similarity is None or verdict.verdict != ANSWERED or not ask.text:
        return verdict
    best = closest(ask, findings, similarity)
    if best >= CLOSE_ENOUGH:
        return verdict
    return replace(
        verdict,
        verdict=PARTLY,
        reason=f"the cited quotes give {_labels(verdict.met)}, but none is {FAR} to the question "
        f"(closest {best:.2f}, needs {CLOSE_ENOUGH})",
    )


def _labels(met: tuple[str, ...]) -> str:
    return " and ".join(met) if met else "an answer"
