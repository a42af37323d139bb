"""Offline Writer: a templated draft built only from the claim table.

One section per research question with its usable claims (verified as stated,
verified_with_limit with the limitation spelled out, conflicted with both sides), a
section for the deliverable that lists the verified findings without drawing any
recommendation from a conflicted claim, and a Limitations section naming every
question without usable evidence, every blocked branch and every open conflict.
Notes and transitions are in italics, so they are not mistaken for facts.
"""

from __future__ import annotations

from harness.contract.citations import format_citation
from harness.contract.claims import USABLE
from harness.contract.layout import CLAIMS, PLAN, card_path
from harness.contract.quotes import normalize_ws
from harness.runtime.interface import AgentResult, Brief


def _bare(statement: str) -> str:
    """A statement without its final full stop, so a citation can go before it."""
    s = normalize_ws(statement)
    return s[:-1] if s.endswith((".", ";")) else s


def _cite(statement: str, claim_id: str) -> str:
    return f"{_bare(statement)} {format_citation([claim_id])}."


def render_draft(plan: dict, claims: list[dict], cards: dict[str, dict], branches: dict[str, dict]) -> str:
    research = [q for q in plan["questions"] if q["kind"] == "research"]
    deliverable = next((q for q in plan["questions"] if q["kind"] == "deliverable"), None)
    by_q = {q["id"]: [c for c in claims if c["question_id"] == q["id"] and c["status"] in USABLE] for q in research}
    covered = sum(1 for q in research if by_q[q["id"]])
    lines = [
        f"# {plan['question']}",
        "",
        "*Written by the offline Writer from claims.json: every factual sentence cites the claims it rests on.*",
        "",
        "## Summary",
        "",
        f"*{sum(len(v) for v in by_q.values())} usable claims answer {covered} of {len(research)} research questions; "
        "gaps and open conflicts are listed under Limitations.*",
        "",
    ]
    for q in research:
        lines += [f"## {q['id']}: {q['text']}", ""]
        if not by_q[q["id"]]:
            lines += [f"*No usable evidence was found for {q['id']}; see Limitations.*", ""]
            continue
        for c in by_q[q["id"]]:
            cid = c["claim_id"]
            if c["status"] == "verified":
                lines.append(_cite(c["statement"], cid))
            elif c["status"] == "verified_with_limit":
                lines.append(_cite(c["statement"], cid))
                lines.append(
                    f"This finding has a limitation: {_bare('; '.join(c['limitations']))} {format_citation([cid])}."
                )
            else:
                other = cards.get(c["contradicting_cards"][0], {}).get("quote", "") if c["contradicting_cards"] else ""
                lines.append(
                    f"The sources disagree on this point: one says “{_bare(c['statement'])}”, while another says “{_bare(other)}” {format_citation([cid])}."
                )
            lines.append("")
    if deliverable is not None:
        lines += [
            f"## {deliverable['id']}: {deliverable['text']}",
            "",
            "*The offline engine draws no recommendation beyond the evidence. The verified findings per question are:*",
            "",
        ]
        findings = 0
        for q in research:
            verified = [c for c in by_q[q["id"]] if c["status"] == "verified"]
            if verified:
                findings += 1
                lines.append(f"- For {q['id']}: {_cite(verified[0]['statement'], verified[0]['claim_id'])}")
        if not findings:
            lines.append("*No finding is verified well enough to answer this; see Limitations.*")
        lines.append("")
    lines += ["## Limitations", ""]
    gaps = False
    for q in research:
        branch = branches.get(q["id"], {})
        if branch.get("status") in ("blocked", "failed", "timeout"):
            what = {"blocked": "was blocked", "failed": "failed", "timeout": "timed out"}[branch["status"]]
            lines.append(
                f"- {q['id']} ({q['text']}): the research branch {what}: {branch.get('reason') or 'no reason given'}."
            )
            gaps = True
        elif not by_q[q["id"]]:
            lines.append(f"- {q['id']} ({q['text']}): no usable evidence was found.")
            gaps = True
    for c in claims:
        if c["status"] == "conflicted":
            lines.append(f"- {c['claim_id']} is left open because its sources conflict.")
            gaps = True
        elif c["status"] == "verified_with_limit":
            lines.append(f"- {c['claim_id']} rests on limited evidence: {'; '.join(c['limitations'])}.")
            gaps = True
    if not gaps:
        lines.append("- None found beyond the scope of the corpus searched.")
    return "\n".join(lines).rstrip() + "\n"


class OfflineWriter:
    def __init__(self, spec=None):
        self.spec = spec

    def run(self, brief: Brief, ctx) -> AgentResult:
        plan = ctx.read_json(PLAN)
        claims = ctx.read_json(CLAIMS)["claims"]
        needed = {cid for c in claims if c["status"] == "conflicted" for cid in c["contradicting_cards"]}
        cards = {cid: ctx.read_json(card_path(cid)) for cid in sorted(needed)}
        draft = brief.outputs[0]
        ctx.write(draft, render_draft(plan, claims, cards, brief.facts.get("branches", {})))
        return AgentResult("completed", draft)
