"""Scripted role policies that drive the real pipeline with tool calls, on two transports.

A *policy* is a pure function of what a role's model was sent (`Turn`: the system prompt,
the brief, and the tool results of each earlier step) that returns the next step: a
batch of tool calls (`Call`) or a final text reply (`Say`). Policies keep no state of
their own, so one model can serve several research branches at once.

Two adapters run the same policies:

- `ScriptedChatModel`: a `GenericFakeChatModel` subclass (`bind_tools` returns self) that
  records every message list it was sent and the tool names it was offered;
- `gemini_responder`: a `GeminiStub` responder that answers the real
  `ChatGoogleGenerativeAI` client, choosing the role from the system instruction.

`role_policies()` gives one well-behaved policy per role; the keyword options make a
role misbehave in the ways the pipeline tests need.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

ROLES = ("planner", "researcher", "analyst", "writer", "reviewer")

# The first words of each role's system prompt (agents/<role>.md); the Gemini responder dispatches on them.
ROLE_PROMPT_START = {
    "planner": "You are the Planner",
    "researcher": "You are a Researcher",
    "analyst": "You are the Analyst",
    "writer": "You are the Writer",
    "reviewer": "You are the Reviewer",
}

HIT = re.compile(r"<<<SOURCE (src-[0-9a-f]{12}) (.*?)start=(\d+) end=(\d+)\n(.*?)\nSOURCE>>>", re.S)
CARD_ID = re.compile(r"\bq\d+-src-[0-9a-f]{12}-\d+\b")
IDENTITY = re.compile(r"Record yourself as (\{.*?\}) wherever")


# ---- what a model is sent, and what it answers --------------------------------------------------


@dataclass(frozen=True)
class ToolResult:
    name: str
    content: str
    error: bool


@dataclass(frozen=True)
class Turn:
    system: str
    brief: str
    steps: list[list[tuple[str, dict]]]  # the tool calls of each earlier model step
    results: list[list[ToolResult]]  # the tool results answering each earlier step
    notices: tuple[str, ...] = ()  # what the harness said after the brief (a nudge, the last-call notice)

    @property
    def last(self) -> list[ToolResult]:
        return self.results[-1] if self.results else []

    def all_results(self, name: str | None = None) -> list[ToolResult]:
        return [r for batch in self.results for r in batch if name is None or r.name == name]

    def writes(self) -> list[tuple[dict, ToolResult | None]]:
        """(args, result) of every earlier write_file call, in order."""
        out = []
        for k, calls in enumerate(self.steps):
            results = self.results[k] if k < len(self.results) else []
            for i, (name, args) in enumerate(calls):
                if name == "write_file":
                    out.append((args, results[i] if i < len(results) else None))
        return out

    def last_write_landed(self, path: str | None = None) -> bool:
        writes = self.writes()
        if not writes or writes[-1][1] is None or writes[-1][1].error:
            return False
        return path is None or writes[-1][0].get("file_path") == path

    def brief_line(self, key: str) -> str | None:
        m = re.search(rf"^{re.escape(key)}: (.*)$", self.brief, re.M)
        return m.group(1).strip() if m else None

    @property
    def identity(self) -> dict:
        m = IDENTITY.search(self.system)
        return json.loads(m.group(1)) if m else {"role": "researcher", "engine": "llm", "model": None}


@dataclass(frozen=True)
class Call:
    calls: list[tuple[str, dict]]


@dataclass(frozen=True)
class Say:
    text: str


Policy = Callable[[Turn], "Call | Say"]


def call(name: str, **args: Any) -> Call:
    return Call([(name, args)])


def file_text(tool_output: str) -> str:
    """File text from deepagents' read_file output: drop the `@@ lines a-b of n @@` header (and a
    line-number gutter, if this deepagents version adds one)."""
    lines = tool_output.split("\n")
    if lines and re.fullmatch(r"@@ .* @@", lines[0].strip()):
        lines = lines[1:]
    if lines and all(re.match(r"^\s*\d+(?:\.\d+)?(?:  |\t)", ln) for ln in lines if ln):
        out: list[str] = []
        for ln in lines:
            m = re.match(r"^\s*(\d+)(?:\.(\d+))?(?:  |\t)(.*)$", ln)
            if m and m.group(2) and out:
                out[-1] += m.group(3)
            elif m:
                out.append(m.group(3))
        lines = out
    return "\n".join(lines)


# ---- the five roles ---------------------------------------------------------------------------------

TOPICS = [
    (
        "asyncio.TaskGroup",
        "Find how asyncio.TaskGroup handles a failing task.",
        ["TaskGroup remaining tasks cancelled"],
    ),
    (
        "asyncio.timeout",
        "Find what asyncio.timeout does when the block takes too long.",
        ["timeout delay TimeoutError"],
    ),
    (
        "asyncio.gather",
        "Find how asyncio.gather propagates the first exception.",
        ["gather return_exceptions propagated"],
    ),
]


def make_plan(question: str, n_research: int = 2, topics: list[tuple[str, str, list[str]]] = TOPICS) -> dict:
    """A valid plan of n_research research questions from (topic, question text, search terms), plus the deliverable."""
    questions = [
        {
            "id": f"Q{i + 1}",
            "text": text,
            "kind": "research",
            "critical": True,
            "allowed_sources": ["corpus"],
            "search_terms": terms,
            "tag": None,
        }
        for i, (_topic, text, terms) in enumerate(topics[:n_research])
    ]
    questions.append(
        {
            "id": f"Q{n_research + 1}",
            "text": "Answer the question from the evidence.",
            "kind": "deliverable",
            "critical": True,
            "tag": None,
        }
    )
    return {
        "schema_version": 1,
        "question": question,
        "revision": 1,
        "scope": {"in_scope": [t for t, _, _ in topics[:n_research]], "out_of_scope": []},
        "deliverable": "A short answer with citations.",
        "criteria": [],
        "questions": questions,
        "stop_conditions": ["No primary source for a critical question."],
        "refinement": None,
        "approval": None,
    }


def planner_policy(n_research: int = 2) -> Policy:
    def policy(t: Turn):
        if not t.writes():
            question = t.brief_line("question") or "the question"
            return call("write_file", file_path="/plan.json", content=json.dumps(make_plan(question, n_research)))
        return Say(f"{n_research} research questions")

    return policy


def researcher_policy() -> Policy:
    """Searches once, records the first hit's passage with record_evidence, says how many cards it has."""

    def policy(t: Turn):
        if not t.steps:
            terms = t.brief_line("search_terms")
            query = terms.split(",")[0] if terms and terms != "(none)" else t.brief.splitlines()[0]
            return call("search", query=query, k=3)
        if any(r.name == "record_evidence" and not r.error for r in t.all_results()):
            return Say("1 card")
        hits = HIT.findall(t.all_results("search")[-1].content)
        if not hits:
            return Say("BLOCKED: no_evidence (searched once)")
        source_id, _attrs, start, _end, text = hits[0]
        return call(
            "record_evidence",
            source_id=source_id,
            quote=text,
            summary=f"Evidence from source {source_id}",
            confidence="high",
            limitations=[],
            start=int(start),
        )

    return policy


def analyst_policy(*, bad_status_first: bool = False) -> Policy:
    def claims(card_ids: list[str], status: str = "verified") -> str:
        out = []
        for i, card in enumerate(sorted(card_ids), 1):
            qid = card.split("-", 1)[0].upper()
            out.append(
                {
                    "claim_id": f"C{i}",
                    "statement": f"Evidence card {i} answers research question {qid} directly",
                    "question_id": qid,
                    "supporting_cards": [card],
                    "contradicting_cards": [],
                    "limitations": [],
                    "status": status,
                }
            )
        return json.dumps({"claims": out})

    def policy(t: Turn):
        if not t.steps:
            return call("ls", path="/source-cards")
        cards = sorted(set(CARD_ID.findall(t.all_results("ls")[0].content)))
        if len(t.steps) == 1:
            return Call([("read_file", {"file_path": f"/source-cards/{c}.json"}) for c in cards])
        writes = t.writes()
        if t.last_write_landed():
            return Say(f"{len(cards)} verified")
        if bad_status_first and not writes:
            return call("write_file", file_path="/claims.json", content=claims(cards, status="probably"))
        return call("write_file", file_path="/claims.json", content=claims(cards))

    return policy


UNCITED = "TaskGroup is clearly the best choice for every production service today."


def writer_policy(*, uncited_sentence: bool = False, forbidden_first: bool = False) -> Policy:
    def draft(t: Turn) -> str:
        doc = json.loads(file_text(t.all_results("read_file")[-1].content))
        lines = [
            "# Report",
            "",
            "*Drafted from the claim table; every factual sentence cites a claim.*",
            "",
            "## Findings",
            "",
        ]
        lines += [f"{c['statement']} [@{c['claim_id']}]." for c in doc["claims"]]
        if uncited_sentence:
            lines.append(UNCITED)
        lines += ["", "## Limitations", "", "- No research branch was blocked."]
        return "\n".join(lines) + "\n"

    def policy(t: Turn):
        target = t.brief_line("draft")
        if not t.steps:
            return call("read_file", file_path="/claims.json")
        writes = t.writes()
        if t.last_write_landed("/" + target):
            return Say(target)
        if forbidden_first and not writes:
            return Call(
                [
                    ("write_file", {"file_path": "/final-report.md", "content": "# Written by the writer\n"}),
                    ("write_file", {"file_path": "/claims.json", "content": json.dumps({"claims": []})}),
                ]
            )
        return call("write_file", file_path="/" + target, content=draft(t))

    return policy


def reviewer_policy() -> Policy:
    def policy(t: Turn):
        draft, sha = t.brief_line("draft"), t.brief_line("draft_sha256")
        if not t.steps:
            return call("read_file", file_path="/" + draft)
        if t.writes():
            return Say("pass, 0 defects")
        n = re.search(r"draft-(\d+)\.md", draft).group(1)
        review = {"draft": draft, "draft_sha256": sha, "verdict": "pass", "defects": [], "reviewed_by": t.identity}
        return call("write_file", file_path=f"/reviews/review-{n}.json", content=json.dumps(review))

    return policy


def role_policies(n_research: int = 2, **overrides: Policy) -> dict[str, Policy]:
    policies = {
        "planner": planner_policy(n_research),
        "researcher": researcher_policy(),
        "analyst": analyst_policy(),
        "writer": writer_policy(),
        "reviewer": reviewer_policy(),
    }
    policies.update(overrides)
    return policies


# ---- adapter 1: a scripted LangChain chat model ---------------------------------------------------


def turn_from_messages(messages: list[BaseMessage]) -> Turn:
    system = next((str(m.content) for m in messages if isinstance(m, SystemMessage)), "")
    humans = [str(m.content) for m in messages if isinstance(m, HumanMessage)]
    steps: list[list[tuple[str, dict]]] = []
    results: list[list[ToolResult]] = []
    for m in messages:
        if isinstance(m, AIMessage) and m.tool_calls:
            steps.append([(c["name"], c["args"]) for c in m.tool_calls])
            results.append([])
        elif isinstance(m, ToolMessage) and results:
            results[-1].append(ToolResult(m.name or "", str(m.content), m.status == "error"))
    return Turn(system, humans[0] if humans else "", steps, results, tuple(humans[1:]))


def to_ai_message(action: Call | Say) -> AIMessage:
    if isinstance(action, Say):
        return AIMessage(action.text)
    return AIMessage(
        "",
        tool_calls=[
            {"name": n, "args": a, "id": f"call-{uuid.uuid4().hex[:12]}", "type": "tool_call"} for n, a in action.calls
        ],
    )


class ScriptedChatModel(GenericFakeChatModel):
    """Answers with `policy(turn)`; records every message list it was sent (`calls`) and the tools offered."""

    messages: Any = Field(default_factory=lambda: iter(()))
    policy: Any = None
    delay: float = 0.0  # seconds to sleep in every call (to make concurrent branches overlap)
    calls: list = Field(default_factory=list)
    offered: list = Field(default_factory=list)
    usage: Any = None  # usage(prompt_chars, reply_chars) -> usage_metadata, to report tokens like a provider
    disable_streaming: Any = True

    def bind_tools(self, tools, *, tool_choice=None, **kw):
        self.offered.append([getattr(t, "name", None) or t.get("name") for t in tools])
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kw):
        self.calls.append(list(messages))
        if self.delay:
            time.sleep(self.delay)
        if len(messages) == 1 and "Context Extraction Assistant" in str(messages[0].content):
            return ChatResult(generations=[ChatGeneration(message=AIMessage("SUMMARY: nothing to add."))])
        reply = to_ai_message(self.policy(turn_from_messages(list(messages))))
        if self.usage is not None:
            prompt = sum(len(str(m.content)) for m in messages)
            reply.usage_metadata = self.usage(prompt, len(reply.text) + len(json.dumps(reply.tool_calls)))
        return ChatResult(generations=[ChatGeneration(message=reply)])

    def conversations(self) -> dict[str, list[list[BaseMessage]]]:
        """Calls grouped by the brief they answer (one group per delegation)."""
        out: dict[str, list[list[BaseMessage]]] = {}
        for msgs in self.calls:
            brief = next((str(m.content) for m in msgs if isinstance(m, HumanMessage)), "")
            out.setdefault(brief, []).append(msgs)
        return out


def scripted_models(
    policies: dict[str, Policy], *, delays: dict[str, float] | None = None, usage: Any = None
) -> dict[str, ScriptedChatModel]:
    return {
        role: ScriptedChatModel(policy=p, delay=(delays or {}).get(role, 0.0), usage=usage)
        for role, p in policies.items()
    }


# ---- adapter 2: a GeminiStub responder ------------------------------------------------------------


def _response_text(response: Any) -> str:
    if isinstance(response, dict) and set(response) == {"output"}:
        response = response["output"]
    return response if isinstance(response, str) else json.dumps(response)


def turn_from_request(req) -> Turn:
    steps: list[list[tuple[str, dict]]] = []
    results: list[list[ToolResult]] = []
    for content in req.contents:
        parts = content.get("parts") or []
        calls = [p["functionCall"] for p in parts if "functionCall" in p]
        if calls:
            steps.append([(c.get("name", ""), dict(c.get("args") or {})) for c in calls])
            results.append([])
        for p in parts:
            if "functionResponse" in p and results:
                text = _response_text(p["functionResponse"].get("response"))
                results[-1].append(ToolResult(p["functionResponse"].get("name", ""), text, text.startswith("Error")))
    texts = req.texts("user")
    return Turn(req.system_instruction, texts[0] if texts else "", steps, results, tuple(texts[1:]))


def role_of_system_prompt(system: str) -> str | None:
    return next((role for role, start in ROLE_PROMPT_START.items() if system.startswith(start)), None)


@dataclass
class GeminiDispatch:
    """A GeminiStub responder: picks the role from the system instruction and answers with its policy."""

    policies: dict[str, Policy]
    seen: dict[str, list] = field(default_factory=dict)  # role -> requests
    # the usage every reply reports (prompt_tokens, cached_tokens, ...), or a function of the request giving it
    usage: dict[str, int] | Callable[[Any], dict[str, int]] = field(default_factory=dict)

    def __call__(self, req):
        from fakes.gemini_stub import function_call_reply, text_reply

        role = role_of_system_prompt(req.system_instruction)
        if role is None:
            raise AssertionError(f"no role recognised in the system instruction: {req.system_instruction[:80]!r}")
        self.seen.setdefault(role, []).append(req)
        action = self.policies[role](turn_from_request(req))
        usage = self.usage(req) if callable(self.usage) else self.usage
        if isinstance(action, Say):
            return text_reply(action.text, **usage)
        return function_call_reply(action.calls, **usage)


# ---- custom (python:) agents that misuse the paths their spec allows --------------------------------
# Loaded with --agent ROLE=python:fakes.scripted:Class; they go through the same AgentContext as every engine.


class NonCanonicalPathReviewer:
    """Writes a clean 'pass' review through a non-canonical path (reviews/./review-N.json)."""

    def run(self, brief, ctx):
        from harness.runtime.interface import AgentResult

        draft = brief.facts["draft"]
        n = re.search(r"draft-(\d+)\.md", draft).group(1)
        ctx.write(
            f"reviews/./review-{n}.json",
            {
                "draft": draft,
                "draft_sha256": brief.facts["draft_sha256"],
                "verdict": "pass",
                "defects": [],
                "reviewed_by": {"role": "reviewer", "engine": "custom", "model": None},
            },
        )
        return AgentResult("completed", "pass")


class OverwritingWriter:
    """Writes drafts with one uncited sentence; when revising, first overwrites drafts/draft-1.md (already reviewed)."""

    def run(self, brief, ctx):
        from harness.errors import HarnessError
        from harness.runtime.interface import AgentResult

        target = brief.facts["draft"]
        claims = ctx.read_json("claims.json")["claims"]
        body = "\n".join(f"{c['statement']} [@{c['claim_id']}]." for c in claims)
        text = f"# Report\n\n## Findings\n\n{body}\n{UNCITED}\n\n## Limitations\n\n- None.\n"
        if target != "drafts/draft-1.md":
            try:
                ctx.write("drafts/draft-1.md", "# Overwritten after review\n")
            except HarnessError:
                pass
        ctx.write(target, text)
        return AgentResult("completed", target)


# ---- adapter 3: an OpenAIStub responder ------------------------------------------------------------


def turn_from_openai(req, intended: dict[str, tuple[str, dict]] | None = None) -> Turn:
    """The Turn an OpenAI-style request stands for (tool calls whose arguments are not JSON read as {}).

    `intended` maps a tool-call id to the call the model meant when it sent a malformed one: a model
    knows what it tried to do, and its next step follows from that and the error it got."""
    steps: list[list[tuple[str, dict]]] = []
    results: list[list[ToolResult]] = []
    names: dict[str, str] = {}
    users: list[str] = []
    from fakes.openai_stub import _text

    for m in req.messages:
        if m.get("role") == "assistant" and m.get("tool_calls"):
            step = []
            for c in m["tool_calls"]:
                fn = c.get("function") or {}
                try:
                    args = json.loads(fn.get("arguments") or "{}")
                except ValueError:
                    args = {}
                names[c.get("id", "")] = fn.get("name", "")
                meant = (intended or {}).get(c.get("id", ""))
                step.append(meant or (fn.get("name", ""), args if isinstance(args, dict) else {}))
            steps.append(step)
            results.append([])
        elif m.get("role") == "tool" and results:
            content = _text(m.get("content"))
            results[-1].append(
                ToolResult(names.get(m.get("tool_call_id", ""), ""), content, content.startswith("Error"))
            )
        elif m.get("role") == "user":
            users.append(_text(m.get("content")))
    return Turn(req.system, users[0] if users else "", steps, results, tuple(users[1:]))


def openai_reply(action: Call | Say, **usage: int):
    from fakes.openai_stub import text, tool_calls

    return text(action.text, **usage) if isinstance(action, Say) else tool_calls(action.calls, **usage)


@dataclass
class OpenAIDispatch:
    """An OpenAIStub responder: picks the role from the system message and answers with its policy.

    `shape(role, turn, action)` may turn the policy's action into another wire reply (a weak model's)."""

    policies: dict[str, Policy]
    shape: Any = None
    seen: dict[str, list] = field(default_factory=dict)
    usage: dict[str, int] = field(
        default_factory=dict
    )  # the usage every reply reports (prompt_tokens, cached_tokens, ...)

    def __call__(self, req):
        role = role_of_system_prompt(req.system)
        if role is None:
            if "Context Extraction Assistant" in req.system + json.dumps(req.messages)[:2000]:
                from fakes.openai_stub import text

                return text("SUMMARY: nothing to add.")
            raise AssertionError(f"no role recognised in the system message: {req.system[:80]!r}")
        self.seen.setdefault(role, []).append(req)
        turn = turn_from_openai(req, getattr(self.shape, "intended", None))
        action = self.policies[role](turn)
        return self.shape(role, turn, action, req) if self.shape else openai_reply(action, **self.usage)
