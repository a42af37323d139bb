"""`harness.research_tool(...)`: verified research as one LangChain tool, for a LangGraph or deepagents app.

The tool runs a whole run in-process through the Python API (`harness.run`), with the plan
approved by the app that configured the tool (as `research run --yes`), inside the same bounded
budget every agent door uses (`agent_door.bounded_budget`). It answers the model with the final
report and, for each claim the report cites, its cards' verbatim quotes, spans and sources
(`agent_door`), and hands the app the same as the tool message's artifact. A run that ends
without a report is a tool error the model reads, naming the status and where the run folder is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool, ToolException
from pydantic import BaseModel, Field

from harness.contract.statuses import COMPLETED
from harness.orchestrator.config import DEFAULT_CORPUS
from harness.surfaces import agent_door
from harness.surfaces.api import run

DESCRIPTION = (
    "Research a question and get back a report in which every sentence cites claims backed by evidence cards, "
    "each quoting a stored source verbatim at a recorded span. Use it when you need facts you can show the "
    "source of; ask one self-contained question per call. The answer is the report (Markdown) followed by the "
    "evidence of each cited claim: its quotes, their character spans and each source's title and path or URL."
)


class ResearchInput(BaseModel):
    question: str = Field(description="The research question, self-contained, in plain words.")


def _quote_line(card: dict[str, Any]) -> str:
    if card.get("missing"):
        return f"  - {card['card_id']}: missing"
    source = card.get("source") or {}
    span = card.get("span") or {}
    where = source.get("url") or source.get("path") or "?"
    return (
        f'  - {card["side"]}: "{card.get("quote")}" ({source.get("title") or source.get("source_id")}, {where}, '
        f"characters {span.get('start')}-{span.get('end')}{'' if card.get('verbatim') else ', NOT verbatim'})"
    )


def answer_text(found: dict[str, Any], evidence: dict[str, dict[str, Any]], run_dir: Path) -> str:
    """What the model reads: the report, then each cited claim's evidence, then where the run folder is."""
    lines = [found["report_markdown"].rstrip(), "", "## Evidence of each cited claim", ""]
    for claim_id, item in evidence.items():
        lines.append(f"- {claim_id} ({item['status']}): {item['statement']}")
        lines += [_quote_line(card) for card in item["cards"]]
    checked = found["validation"]
    lines += [
        "",
        f"Run folder: {run_dir} (cards under source-cards/, sources and their stored text under sources/); "
        + (
            "`research validate`: clean."
            if checked["clean"]
            else f"`research validate`: {len(checked['problems'])} problem(s)."
        ),
    ]
    return "\n".join(lines)


def research_tool(
    *,
    corpus: str | Path = DEFAULT_CORPUS,
    runs_dir: str | Path = "runs",
    budget: dict[str, Any] | None = None,
    web: bool | None = None,
    search: str | None = None,
    language: str | None = None,
    engine: str | None = None,
    model: str | None = None,
    config: str | Path | dict[str, Any] | None = None,
    name: str = "research",
    description: str = DESCRIPTION,
) -> BaseTool:
    """A LangChain tool (`question` -> the verified report and its evidence) over a corpus and a runs folder.

    `budget`: run limits (llm_calls, tokens, searches, wall_seconds); any left out take the harness's defaults,
    so each call is bounded. The other arguments are `harness.run`'s. Bad limits raise `HarnessError` at once.
    """
    limits = agent_door.bounded_budget(budget)

    def research(question: str) -> tuple[str, dict[str, Any]]:
        result = run(
            question,
            corpus=corpus,
            runs_dir=runs_dir,
            budget=limits,
            web=web,
            search=search,
            language=language,
            engine=engine,
            model=model,
            config=config,
            yes=True,
        )
        if result.status != COMPLETED:
            raise ToolException(
                f"the research run ended {result.status} ({result.reason or 'no reason recorded'}) without a report; "
                f"everything so far is kept in {result.run_dir}"
            )
        found = agent_door.report(result.run_dir)
        evidence = {cid: agent_door.evidence(result.run_dir, cid) for cid in found["cited_claims"]}
        artifact = {"run_id": result.run_dir.name, "run_dir": str(result.run_dir), **found, "evidence": evidence}
        return answer_text(found, evidence, result.run_dir), artifact

    return StructuredTool.from_function(
        func=research,
        name=name,
        description=description,
        args_schema=ResearchInput,
        response_format="content_and_artifact",
        handle_tool_error=True,
    )
