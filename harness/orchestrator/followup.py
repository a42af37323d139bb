"""Follow-up runs (`research ask RUN_DIR "question"`): a new run that begins with its parent's evidence.

The follow-up is a run of its own, linked to its parent in run.json (`parent`), and auditable
without the parent's folder: it copies what it uses instead of pointing into the parent.

- At creation (`parent_link`, `carry_sources`): the parent must validate; its research questions
  are recorded under `parent`, with its run id, the sha256 of its final report and where it is relative to the
  runs folder (so a copied pair of folders still finds and checks it: `workspace/validate.check_parent`), and
  every source (record and snapshot) is copied through the
  workspace's guarded writes under the source tools' policy, so the copy is journaled and
  re-checked (the record's sha256 against the snapshot) like any source.
- The Planner's brief lists the parent's questions (`planner_facts`); a plan keeps them with their
  ids and adds only what the follow-up needs beyond them.
- Once the plan is approved (`carry_cards`), the parent's cards for the questions the plan kept are
  copied the same way (each re-checked: quote verbatim at its span in the copied snapshot, question
  in the plan); those questions are not researched again, the new ones are.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from harness.contract.formats import sha256_bytes
from harness.contract.layout import FINAL_REPORT, card_path, snapshot_path, source_record_path
from harness.contract.policy import TOOLS, Policy
from harness.errors import UsageError
from harness.orchestrator.config import RunConfig, check_question, config_from_snapshot
from harness.workspace.reader import RunReader
from harness.workspace.store import Workspace
from harness.workspace.validate import parent_folder, validate_workspace


def followup_config(parent_dir: Path, question: str, *, yes: bool = False, runs_dir: str | None = None) -> RunConfig:
    """The follow-up's configuration: the parent's (engines, models, corpus, budget, language), a new question."""
    question = check_question(question)
    manifest = RunReader(parent_dir).run()
    if not manifest.get("config"):
        raise UsageError(f"{parent_dir}: not a run workspace (no readable run.json)")
    cfg = config_from_snapshot(question, manifest["config"], (manifest.get("budget") or {}).get("limits", {}))
    cfg.yes = yes  # a new plan is approved on its own: the parent's --yes does not carry over
    cfg.runs_dir = Path(runs_dir) if runs_dir else Path(parent_dir).resolve().parent
    return cfg


def parent_link(parent_dir: Path, runs_dir: Path) -> dict[str, Any]:
    """What run.json records of the parent; refuses (one line) a parent that does not validate. `path` is relative
    to `runs_dir`, the folder the follow-up is created in, so the pair can be copied or shared together."""
    problems = validate_workspace(parent_dir)
    if problems:
        raise UsageError(f"{parent_dir}: the parent run does not validate ({problems[0]}); see research validate")
    reader = RunReader(parent_dir)
    run = reader.run()
    questions = [
        {"id": q["id"], "text": q["text"], **({"search_terms": q["search_terms"]} if q.get("search_terms") else {})}
        for q in reader.questions()
        if q.get("kind") == "research"
    ]
    report = Path(parent_dir) / FINAL_REPORT
    return {
        "run_id": run["run_id"],
        "question": run.get("question", ""),
        "path": os.path.relpath(Path(parent_dir).resolve(), Path(runs_dir).resolve()),
        **({"report_sha256": sha256_bytes(report.read_bytes())} if report.is_file() else {}),
        "questions": questions,
    }


def carry_sources(ws: Workspace, parent_dir: Path) -> int:
    """Copy every source of the parent (snapshot, then record) into the follow-up; returns how many."""
    reader = RunReader(parent_dir)
    n = 0
    for sid in reader.source_ids():
        record, text = reader.source(sid), reader.snapshot(sid)
        if record is None or text is None:
            continue
        if not ws.exists(snapshot_path(sid)):
            ws.write(snapshot_path(sid), text, TOOLS)
        if not ws.exists(source_record_path(sid)):
            ws.write(source_record_path(sid), record, TOOLS)  # checked against the snapshot just written
        n += 1
    ws.trace("decision", agent="harness", decision="followup_sources_carried", detail={"sources": n})
    return n


def planner_facts(parent: dict[str, Any] | None) -> dict[str, Any]:
    """The facts a follow-up's Planner gets: the parent's question and its research questions to keep."""
    if not parent:
        return {}
    return {
        "parent_question": parent["question"],
        "parent_questions": [{"id": q["id"], "text": q["text"]} for q in parent["questions"]],
        "follow_up": (
            "This run follows up an earlier run whose evidence it already has. Keep the parent's research "
            "questions in the plan with the same ids and texts (their evidence cards are already in source-cards/), "
            "and add research questions, numbered after them, only for what the follow-up needs beyond them."
        ),
    }


def carry_cards(ws: Workspace, parent: dict[str, Any], plan_question_ids: set[str], policy: Policy) -> set[str]:
    """Copy the parent's cards for the questions the approved plan kept; returns those question ids.

    Reads the parent's folder; when it is gone by now (a resumed follow-up), nothing more is carried."""
    reader = RunReader(parent_folder(ws.root, parent))
    carried: set[str] = set()
    for cid in reader.card_ids():
        card = reader.card(cid)
        if card is None or card.get("question_id") not in plan_question_ids:
            continue
        if not ws.exists(snapshot_path(card["source_id"])):
            continue
        if not ws.exists(card_path(cid)):
            ws.write(card_path(cid), card, policy)  # the quote is re-checked against the copied snapshot
        carried.add(card["question_id"])
    ws.trace(
        "decision",
        agent="harness",
        decision="followup_cards_carried",
        detail={"questions": sorted(carried), "parent": parent["run_id"]},
    )
    return carried


def children_of(run_dir: Path) -> list[dict[str, str]]:
    """The follow-ups of a run: runs next to it whose run.json names it as parent."""
    run_dir = Path(run_dir)
    run_id = RunReader(run_dir).run().get("run_id")
    out = []
    for manifest in sorted(run_dir.parent.glob("*/run.json")):
        if manifest.parent.is_symlink():  # a folder linked into the runs folder is no run of it
            continue
        other = RunReader(manifest.parent).run()
        if run_id and (other.get("parent") or {}).get("run_id") == run_id:
            out.append({"run_id": other["run_id"], "question": other.get("question", ""), "path": str(manifest.parent)})
    return out
