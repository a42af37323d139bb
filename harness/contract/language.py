"""The report language: one code per run (`--language`, `language:` in research.yaml, recorded in run.json).

The llm roles are told (`language_rule`, appended to every llm brief by `orchestrator/delegate.py`)
to write the plan, claim statements and report prose in it; quotes stay verbatim in the source's
language, because they are the evidence, and a translation may stand beside a quote only when
marked as one. For a run in another language than English the Reviewer's lexical word-overlap
screen is waived (`judges_overlap`); see README "Report language".
"""

from __future__ import annotations

import re
from typing import Any

from harness.errors import UsageError

DEFAULT_LANGUAGE = "en"
# A BCP 47 tag, loosely: a 2-3 letter language, then subtags (fr, pt-BR, zh-Hant).
_TAG = re.compile(r"[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*")
TRANSLATION_MARK = "(translation, not evidence: …)"


def check_language(code: str, where: str = "--language") -> str:
    """The code, or a one-line UsageError naming `where`."""
    if not isinstance(code, str) or not _TAG.fullmatch(code):
        raise UsageError(f"{where} {code!r}: expected a language code such as en, fr, de, pt-BR")
    return code


def is_english(code: str | None) -> bool:
    return (code or DEFAULT_LANGUAGE).split("-")[0] == "en"


def run_language(run_manifest: dict[str, Any]) -> str:
    """The language a run was started with (run.json's config), English when none is recorded."""
    return (run_manifest.get("config") or {}).get("language") or DEFAULT_LANGUAGE


def judges_overlap(language: str | None) -> bool:
    """Whether the lexical word-overlap support screen applies: only when the report is written in English,
    the language of the tokenizer and of the offline engine. Otherwise sentence and quote may legitimately
    share no word, and support rests on the figures rule, the verbatim quote check and the Reviewer's judgement."""
    return is_english(language)


def language_rule(code: str) -> str:
    """What an llm role is told about the report language."""
    return "\n".join(
        [
            "## Report language",
            f"Write the plan's questions and scope, the claim statements and the report's prose in the language "
            f"with code `{code}`.",
            "Quotes stay verbatim in the source's own language: never translate a quote you record as evidence, "
            "and never change a quote in a card, a claim or the report.",
            "A translation may stand beside a quote only when it is marked as one, in this form: "
            f"{TRANSLATION_MARK}. A translation is never evidence: cite the claim, whose cards hold the original.",
            "Keep claim ids, file names, citation markers ([@C1]) and section structure unchanged.",
        ]
    )
