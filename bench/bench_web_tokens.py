"""Tokens per recorded evidence card in a web run with realistic page sizes: what the model reads stays bounded.

A whole run on the llm engine with scripted models (tests/fakes/realistic.py, token usage reported like a
real provider's: prompt characters / 4 in, the reply / 4 plus 500-3,000 thinking tokens out), the web on,
searching a SearXNG-compatible endpoint whose results are pages of 20-80 KB (cookie banners, navigation,
sidebars and footers around the article), all served from 127.0.0.1. The Researcher of each research
question behaves like a thorough model: one web_search (which fetches and registers the top five results and
shows their best passages), `--fetches N` more pages with fetch_url (0 by default: the search already
registered them), one read_source further into the best page, and a card for each passage it was shown that
answers the question (one of the pages' facts), recorded as soon as it has read it: all of a reply's cards
as parallel tool calls in one message, as real models send them (`--one-card-per-reply`: one a reply).

Prints the run's status, its cards, each role's calls and tokens, the Researcher's system prompt and the tool
schemas it is sent per call (a provider bills the schemas as input; the fixture's count leaves them out), and
tokens per card (target: at most 10k per card), and dollars per card at `--priced-as`'s table price (default
google_genai:gemini-3.5-flash; the fixture reports no cached input, so these are the uncached dollars). Run it
on two commits to compare (before and after a change):

    .venv/bin/python bench/bench_web_tokens.py
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from fakes.realistic import Quirks, RealisticUsage, planner, realistic_policies, sentences  # noqa: E402
from fakes.scripted import Call, Say, ScriptedChatModel, Turn, call  # noqa: E402
from fakes.sites import LocalSite, Reply, realistic_article  # noqa: E402
from harness.orchestrator.config import build_config  # noqa: E402
from harness.orchestrator.lifecycle import start_run  # noqa: E402

QUESTION = "How much grid storage was installed, and what limits its growth?"
QUERY = "grid storage installed growth limits"  # what the Researcher searches for and reads pages for
# the plan's research questions are the question's two parts (scope entry, question, search terms)
TOPICS = [
    ("grid storage installed", "How much grid storage was installed?", ["grid storage installed"]),
    ("grid storage growth limits", "What limits the growth of grid storage?", ["grid storage growth limits"]),
]
FACTS = [
    "Grid storage installations reached 41 gigawatts in 2024, twice the level of two years earlier.",
    "The main limit on storage growth is the time it takes to connect new batteries to the grid.",
    "Battery prices fell by a fifth in 2024, which made storage projects cheaper to finance.",
    "Solar and storage are now often built together at the same site.",
]
_ID = re.compile(r"(?:<<<SOURCE |^- )(src-[0-9a-f]{12})", re.M)
_SOURCE = re.compile(r"<<<SOURCE (src-[0-9a-f]{12})([^\n]*)\n(.*?)\nSOURCE>>>", re.S)  # id, attributes, text
_END = re.compile(r"\bend=(\d+)")


_MEASURED = threading.Lock()  # research branches call one model object from parallel threads


class SplitUsage(RealisticUsage):
    """RealisticUsage that also adds up what was read (input) and written or thought (output)."""

    input: int = 0
    output: int = 0

    def __call__(self, prompt_chars: int, reply_chars: int) -> dict:
        with _MEASURED:
            got = super().__call__(prompt_chars, reply_chars)
            self.input += got["input_tokens"]
            self.output += got["output_tokens"]
        return got


class MeasuredModel(ScriptedChatModel):
    """ScriptedChatModel that also measures what the fixture's token count leaves out: the tool schemas sent
    with every call (a provider bills them as input), and the system prompt's size."""

    schema_chars: int = 0
    system_chars: int = 0

    def bind_tools(self, tools, *, tool_choice=None, **kw):  # langchain binds the tools before every model call
        from langchain_core.utils.function_calling import convert_to_openai_tool

        chars = sum(len(json.dumps(convert_to_openai_tool(t))) for t in tools)
        with _MEASURED:
            self.schema_chars += chars
        return super().bind_tools(tools, tool_choice=tool_choice, **kw)

    def _generate(self, messages, stop=None, run_manager=None, **kw):
        with _MEASURED:
            self.system_chars += len(str(messages[0].content)) if messages else 0
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kw)


PRICED_AS = "google_genai:gemini-3.5-flash"  # whose table price the run's usage is charged at (--priced-as)


def table_rates(model_spec: str) -> dict[str, float]:
    """USD per million input, cached input and output tokens of `model_spec` in the genai-prices table."""
    from genai_prices import Usage, calc_price

    provider, _, name = model_spec.partition(":")
    provider = {"google_genai": "google"}.get(provider, provider)

    def per_million(**usage: int) -> float:
        return float(calc_price(Usage(**usage), name, provider_id=provider).total_price)

    return {
        "input": per_million(input_tokens=1_000_000),
        "cached_input": per_million(input_tokens=1_000_000, cache_read_tokens=1_000_000),
        "output": per_million(output_tokens=1_000_000),
    }


FETCHES = 0  # pages fetched with fetch_url per research question besides what web_search registered (--fetches)
CARDS = 4  # cards recorded per research question, at most (--cards): one per passage that answers it
PARALLEL = True  # all of a reply's cards in one message, as parallel tool calls (--one-card-per-reply: False)


def _answers(sentence: str) -> bool:
    """What a model judges to answer the question: one of the pages' facts (the rest of a page is filler)."""
    return any(sentence.strip() == f for f in FACTS)


def _record(source_id: str, sentence: str) -> tuple[str, dict]:
    return (
        "record_evidence",
        {
            "source_id": source_id,
            "quote": sentence,
            "summary": "What the page says about grid storage.",
            "confidence": "high",
            "limitations": ["web page"],
        },
    )


def thorough_researcher(t: Turn):
    """web_search, fetch_url (--fetches), read on in the best page; record what answers as soon as it is read."""
    searches, fetches = t.all_results("web_search"), t.all_results("fetch_url")
    reads, recorded = t.all_results("read_source"), [r for r in t.all_results("record_evidence") if not r.error]
    tried = {a.get("quote") for step in t.steps for name, a in step if name == "record_evidence"}
    # what it can still see (results the harness shortened show ids only), and what of it answers the question
    shown = [m for r in searches + fetches + reads if not r.error for m in _SOURCE.finditer(r.content)]
    answering = {s: m.group(1) for m in shown for s in sentences(m.group(3)) if _answers(s) and s not in tried}
    records = [_record(sid, s) for s, sid in answering.items()][: max(0, CARDS - len(recorded))]
    if records:
        return Call(records if PARALLEL else records[:1])
    if not searches:
        return call("web_search", query=QUERY, k=5)
    urls = re.findall(r"'(http[^']+)'", searches[-1].content)  # shown whole or shortened
    if len(fetches) < min(FETCHES, len(urls)):
        return call("fetch_url", url=urls[len(fetches)], focus=QUERY)
    registered = list(dict.fromkeys(sid for r in searches + fetches if not r.error for sid in _ID.findall(r.content)))
    if not registered:
        return Say("BLOCKED: no_evidence (no page had text)")
    if not reads:  # read on in the best page (the one that answered first), past what the tools showed of it
        cards = [a for step in t.steps for name, a in step if name == "record_evidence"]
        best = cards[0]["source_id"] if cards else registered[0]
        ends = [int(e.group(1)) for m in shown if m.group(1) == best and (e := _END.search(m.group(2)))]
        return call("read_source", source_id=best, offset=max(ends, default=4000), length=4000)
    if not recorded and len(reads) < 3:  # nothing it read answers the question yet: the next page
        return call("read_source", source_id=registered[len(reads) % len(registered)], offset=0, length=4000)
    if not recorded:
        return Say("BLOCKED: no_evidence (nothing I read answers the question)")
    return Say(f"{len(recorded)} card(s)")


def main() -> None:
    import argparse

    global FETCHES, CARDS, PARALLEL
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fetches", type=int, default=0, help="pages fetched with fetch_url per question (at most 8)")
    ap.add_argument("--cards", type=int, default=4, help="cards the Researcher records per question, at most")
    ap.add_argument(
        "--one-card-per-reply", action="store_true", help="record one card a reply (default: all in one reply)"
    )
    ap.add_argument("--priced-as", default=PRICED_AS, help="the model whose table price the usage is charged at")
    args = ap.parse_args()
    rates = table_rates(args.priced_as)
    FETCHES, CARDS, PARALLEL = min(8, args.fetches), args.cards, not args.one_card_per_reply
    pages = {f"/news/{i}": realistic_article(i, 20 + 8 * i, fact=FACTS[i % len(FACTS)]) for i in range(8)}
    routes = {path: Reply(body=body) for path, body in pages.items()}
    with tempfile.TemporaryDirectory() as tmp, LocalSite(routes) as site:
        results = [
            {"url": site.url(p), "title": f"Storage report {i}", "content": "Grid storage news.", "engine": "local"}
            for i, p in enumerate(pages)
        ]
        site.routes["/search"] = Reply(
            content_type="application/json", body=json.dumps({"query": QUESTION, "results": results}).encode()
        )
        import os

        os.environ["RESEARCH_CACHE_DIR"] = str(Path(tmp) / "cache")
        try:  # the harness prices the run itself where it can (prices: in research.yaml); older ones cannot
            import harness.engines.llm.pricing  # noqa: F401

            priced = {"config_data": {"prices": {"scripted:fake": rates}}}
        except ImportError:
            priced = {}
        cfg = build_config(
            QUESTION,
            runs_dir=str(Path(tmp) / "runs"),
            engine="llm",
            model="scripted:fake",
            yes=True,
            web=True,
            search="searxng",
            search_url=site.base,
            web_allow_private=True,
            **priced,
        )
        policies = realistic_policies(
            Quirks(web=True), researcher=thorough_researcher, planner=planner(Quirks(web=True), TOPICS)
        )
        usage = {role: SplitUsage() for role in policies}
        models = {role: MeasuredModel(policy=p, usage=usage[role]) for role, p in policies.items()}
        result = start_run(cfg, models=models)
        metrics = json.loads((result.run_dir / "metrics.json").read_text()) if result.status == "completed" else {}
        quotes = [json.loads(p.read_text())["quote"] for p in (result.run_dir / "source-cards").glob("*.json")]
        cards = len(quotes)
        roles = metrics.get("roles", {})
        print(f"status: {result.status} {result.reason or ''}".rstrip())
        print(
            f"pages: {', '.join(f'{len(b) // 1000} KB' for b in pages.values())}; cards recorded: {cards} "
            f"({sum(any(f in q for f in FACTS) for q in quotes)} quote one of the pages' facts)"
        )
        print(f"{'role':11} {'calls':>6} {'tokens':>9} {'input':>9} {'output':>9}")
        for role, r in roles.items():
            u = usage[role]
            print(f"{role:11} {r['llm_calls']:>6} {r['tokens']:>9,} {u.input:>9,} {u.output:>9,}")
        researcher = roles.get("researcher", {}).get("tokens", 0)
        total = sum(r["tokens"] for r in roles.values())
        per = max(cards, 1)
        r_calls = max(roles.get("researcher", {}).get("llm_calls", 0), 1)
        m = models["researcher"]
        print(
            f"Researcher per call: system prompt {m.system_chars / r_calls / 4:,.0f} tokens (in the count above); "
            f"tool schemas {m.schema_chars / r_calls / 4:,.0f} tokens (not in the fixture's count; "
            f"{m.schema_chars / 4 / per:,.0f} per card)"
        )
        print(
            f"tokens per card: Researcher {researcher / per:,.0f} (input {usage['researcher'].input / per:,.0f}); "
            f"whole run {total / per:,.0f} (input {sum(u.input for u in usage.values()) / per:,.0f})"
        )
        # dollars from the fixture's own counts at the table's rates (the same on any harness), and the harness's
        usd = sum(u.input * rates["input"] + u.output * rates["output"] for u in usage.values()) / 1_000_000
        harness_usd = (metrics.get("cost") or {}).get("usd")
        print(
            f"dollars at {args.priced_as}'s price (${rates['input']:g} in, ${rates['output']:g} out per 1M): "
            f"whole run ${usd:.4f}, ${usd / per:.4f} per card"
            + (f"; the harness's metrics.json: ${harness_usd:.4f}" if harness_usd is not None else "")
        )


if __name__ == "__main__":
    main()
