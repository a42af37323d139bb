"""What each role is told besides its task: the context its brief carries whole, so it need not read piecemeal.

- Planner: today's date, whether the web is on, the corpus (name, size, sample titles), the
  configured MCP servers and their tools, and what `allowed_sources`, `allowed_domains` and `primary_domains`
  mean.
- Researcher: in a revise round, the review's defects routed to its question and the cards
  it already has.
- Analyst: a digest of every card (id, question, source kind, confidence, limitations, quote).
- Writer: the plan's questions and the claim table.
- Reviewer: the draft with line numbers.

Each is built from the workspace by the harness (read as the harness), never by a model.
"""

from __future__ import annotations

from typing import Any

from harness.contract.formats import today
from harness.contract.layout import id_of, question_cards
from harness.contract.quotes import normalize_ws
from harness.workspace.reader import RunReader

SAMPLE_TITLES = 8
MCP_TOOL_CHARS = 160  # how much of an MCP tool's description the Planner's brief shows


def _questions(plan: dict[str, Any] | None) -> list[str]:
    return [
        f"- {q['id']} ({q['kind']}{', critical' if q.get('critical') else ''}): {q['text']}"
        for q in (plan or {}).get("questions", [])
        if isinstance(q, dict)
    ]


def planner_material(corpus: Any, web: bool, mcp_tools: Any = (), literature: tuple[str, ...] = ()) -> str:
    """Today, the sources this run has (the corpus, the web or not, the literature providers it searches, its MCP
    servers and their tools), and how a plan question names them."""
    lines = ["## What this run can search", f"Today is {today()}."]
    if corpus is not None:
        docs = corpus.documents
        step = max(1, len(docs) // SAMPLE_TITLES)
        titles = [d.title for d in docs[::step][:SAMPLE_TITLES]]
        lines.append(
            f"The local corpus `{corpus.name}` holds {len(docs)} documents, for example: "
            + "; ".join(f'"{t}"' for t in titles)
            + "."
        )
    else:
        lines.append("There is no local corpus.")
    mcp_line = " (plus any `mcp:NAME` below)" if mcp_tools else ""
    named = ", ".join(f"`{name}`" for name in literature)
    lit_line = " (plus the literature providers below)" if literature else ""
    lines.append(
        "The web is ON for this run: a question may allow `web` (web_search and fetch_url)."
        if web
        else f'The web is OFF for this run: every question must use `allowed_sources: ["corpus"]`{lit_line}{mcp_line}.'
    )
    if literature:
        lines.append(
            f"The literature providers {named} are searched in this run: a question that allows one by name searches "
            "its papers with web_search (each paper's open-access full text, else its abstract, is stored as a source)"
            + ("; `web` allows them all." if web else "; no other web page is fetched.")
        )
    servers: dict[str, list[str]] = {}
    for tool in mcp_tools:
        about = normalize_ws(tool.description)[:MCP_TOOL_CHARS]
        servers.setdefault(tool.server, []).append(f"`{tool.name}`" + (f" ({about})" if about else ""))
    for server, tools in servers.items():
        lines.append(
            f"The MCP server `mcp:{server}` is configured for this run; its tools: {'; '.join(tools)}. A question "
            f"whose `allowed_sources` lists `mcp:{server}` lets its Researcher call them (each result is stored as a "
            "source it can quote); no other question gets them."
        )
    lines.append(
        "Per research question, `allowed_sources` lists what the Researcher may search (`corpus`, `web`, a literature "
        "provider's name, `mcp:NAME`); a "
        "search of anything else is refused. `allowed_domains` limits the web to those domains and their "
        "subdomains (leave it empty for the open web); `blocked_domains` are never fetched. `primary_domains` names "
        "the official sites of what a web question is about (its own site, documentation, specification or "
        "repository): their pages count as primary sources; every other web page is secondary, and a question "
        "answered by secondary sources alone is reported as lacking a primary source."
    )
    return "\n".join(lines)


def researcher_material(reader: RunReader, qid: str, defects: list[dict[str, Any]]) -> str:
    """For a revise round: what the review found missing for this question, and the cards it already has."""
    if not defects:
        return ""
    cards = [id_of(rel) for rel in reader.list(question_cards(qid))]
    lines = ["## Why you are researching again", "The review of the last draft found:"]
    lines += [f"- {d['code']}: {d['message']}" for d in defects]
    lines.append(
        "Cards you already have for this question (do not record them again): "
        + (", ".join(cards) or "none")
        + ". Search for what they do not cover."
    )
    return "\n".join(lines)


def analyst_material(reader: RunReader) -> str:
    """Every card, compactly: what the claim table is built from."""
    kinds: dict[str | None, Any] = {sid: (reader.source(sid) or {}).get("kind", "?") for sid in reader.source_ids()}
    cards = []
    for cid in reader.card_ids():
        card = reader.card(cid) or {}
        lims = "; ".join(card.get("limitations") or []) or "-"
        cards.append(
            f"- {cid} | {card.get('question_id')} | {kinds.get(card.get('source_id'), '?')} | "
            f'{card.get("confidence")} | {lims} | "{normalize_ws(str(card.get("quote", "")))}"'
        )
    return "\n".join(
        [
            "## The plan's research questions",
            *_questions(reader.plan()),
            "",
            "## Every evidence card (id | question | source kind | confidence | limitations | quote)",
            *(cards or ["(none: no research branch found evidence)"]),
        ]
    )


def writer_material(reader: RunReader) -> str:
    """The plan's questions and the whole claim table: what the draft is written from."""
    lines = [
        "## The plan's questions",
        *_questions(reader.plan()),
        "",
        "## The claim table (id | question | status | statement | limitations)",
    ]
    for cid, claim in (reader.claims() or {}).items():
        lims = "; ".join(claim.get("limitations") or []) or "-"
        lines.append(
            f"- {cid} | {claim.get('question_id')} | {claim.get('status')} | "
            f"{normalize_ws(str(claim.get('statement', '')))} | {lims}"
        )
    return "\n".join(lines)


def reviewer_material(draft: str, text: str) -> str:
    """The draft with its line numbers, which every defect's `location.line` refers to."""
    numbered = [f"{n:4d}| {line}" for n, line in enumerate(text.splitlines(), 1)]
    return "\n".join([f"## {draft}, numbered", *numbered])
