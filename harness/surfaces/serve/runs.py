"""What the app shows of a run, read from its folder and nothing else.

The run folder is the only record: a row of the runs page and the detail behind the run
page are read from `run.json`, `plan.json`, the cards and the reviews as the harness
wrote them (through `RunReader`, tolerant of a run half-written), and the gate a run
waits at comes with the hash a decision must bind to (the plan's content hash, or the
passing draft's sha256, as `research approve` checks them).
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any

from harness.contract.formats import plan_content_sha256
from harness.contract.layout import FINAL_REPORT, PLAN, RUN, TRACE, question_cards
from harness.contract.schemas import schema
from harness.contract.search import run_offers
from harness.orchestrator.approvals import final_candidate, final_is_approved, plan_is_approved, plan_rejection
from harness.orchestrator.followup import children_of
from harness.surfaces.serve.signoff import final_preview
from harness.surfaces.serve.states import ACTIVE, BROKEN, GATES, RESUMABLE, STATUSES
from harness.surfaces.summary import answers_of, cost_text, dollars, run_costs
from harness.workspace.paths import inside, servable
from harness.workspace.reader import RunReader
from harness.workspace.store import Workspace
from harness.workspace.trace import read_events

RUN_ID = re.compile(schema("common.schema.json")["$defs"]["run_id"]["pattern"])


def run_dir_of(runs_dir: Path, run_id: str) -> Path | None:
    """The folder of run `run_id` under `runs_dir`, or None: only a well-formed id naming a run folder there,
    itself, not a symbolic link to a folder somewhere else (its files then answer to `paths.servable`)."""
    if not RUN_ID.fullmatch(run_id or ""):
        return None
    path = runs_dir / run_id
    if path.is_symlink() or not inside(path, runs_dir):
        return None
    return path if servable(path, RUN) is not None and (path / RUN).is_file() else None


def run_ids(runs_dir: Path) -> list[str]:
    """Every run in the runs folder, newest first (run ids sort by creation time)."""
    if not runs_dir.is_dir():
        return []
    return sorted((p.name for p in runs_dir.iterdir() if run_dir_of(runs_dir, p.name)), reverse=True)


def why(exc: BaseException) -> str:
    """One short line for what made a run folder unreadable."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 160 else text[:157] + "..."


def json_ready(data: dict[str, Any]) -> dict[str, Any]:
    """`data` if strict JSON can carry it (no NaN or infinity a hand-edited run.json may hold), else ValueError."""
    json.dumps(data, allow_nan=False, default=str)
    return data


def listed(run_dir: Path, live: bool) -> dict[str, Any]:
    """The runs page's row of a run, or, for a folder that cannot be read as one (half-copied, hand-edited, holding
    a number JSON cannot carry), a row with status `broken` and why: one bad folder never hides the others."""
    try:
        return json_ready(row(run_dir, live))
    except Exception as exc:  # noqa: BLE001 - whatever a broken folder raises, the list still answers
        return {
            "run_id": run_dir.name,
            "question": None,
            "status": BROKEN,
            "status_reason": why(exc),
            "broken": why(exc),
            "created_at": None,
            "updated_at": None,
            "duration_seconds": None,
            "engines": [],
            "models": [],
            "budget": {"limits": {}, "spent": {}},
            "live": live,
            "gate": None,
            "resumable": False,
        }


def _when(ts: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(str(ts).replace("Z", "+00:00"))
    except ValueError:
        return None


# Statuses in which a run waits for a person: at a gate, or stopped until someone resumes it.
WAITING: frozenset[str] = frozenset(GATES) | RESUMABLE
_DURATIONS: dict[Path, tuple[tuple[Any, ...], float | None]] = {}  # run folder -> (its trace's stat, working time)


def working_seconds(events: list[dict[str, Any]], created_at: Any, updated_at: Any) -> float | None:
    """How long the run has worked: from its creation to its last event, less each wait for a person (from the
    status event that enters a gate or a resumable stop to the `resume` or status event that leaves it). None
    when its times cannot be read."""
    start = _when(created_at)
    if start is None:
        return None
    total, waiting_since, last = 0.0, None, start
    for event in events:
        at = _when(event.get("ts"))
        if at is None:
            continue
        waiting = event.get("event") == "status" and event.get("status") in WAITING
        if waiting_since is None and waiting:
            total += (at - start).total_seconds()
            waiting_since = at
        elif waiting_since is not None and event.get("event") in ("status", "resume") and not waiting:
            start = at
            waiting_since = None
        last = max(last, at)
    if waiting_since is None:
        end = max(last, _when(updated_at) or last)
        total += (end - start).total_seconds()
    return round(max(total, 0.0), 3)


def _duration(run_dir: Path, run: dict[str, Any]) -> float | None:
    """`working_seconds` of a run, read from its trace once per change of the file (the list asks every 2 s)."""
    path = servable(run_dir, TRACE)
    try:
        stat = path.stat() if path is not None else None
    except OSError:
        stat = None
    key = (stat.st_size, stat.st_mtime_ns, run.get("created_at"), run.get("updated_at")) if stat else None
    cached = _DURATIONS.get(run_dir)
    if key is not None and cached is not None and cached[0] == key:
        return cached[1]
    seconds = working_seconds(read_events(run_dir), run.get("created_at"), run.get("updated_at"))
    if key is not None:
        if len(_DURATIONS) > 4096:
            _DURATIONS.clear()
        _DURATIONS[run_dir] = (key, seconds)
    return seconds


def row(run_dir: Path, live: bool) -> dict[str, Any]:
    """One run as the runs page lists it, and the head of its detail; ValueError for a folder that is no readable
    run (`listed` shows it as broken)."""
    reader = RunReader(run_dir)
    run = reader.run()
    if run.get("status") not in STATUSES:
        raise ValueError(f"{RUN}: not readable as a run's manifest")
    if run["status"] in GATES and GATES[run["status"]] == "plan" and not reader.exists(PLAN):
        raise ValueError(f"{PLAN}: missing, though the run waits at its plan gate (a folder copied in part?)")
    config = run.get("config") or {}
    budget = run.get("budget") or {}
    status = run.get("status")
    decided = not live and _decided(run_dir, status)
    return {
        "run_id": run_dir.name,  # the folder's name is how the app finds it, whatever a copied run.json says
        "question": run.get("question"),
        "status": status,
        "status_reason": run.get("status_reason"),
        "created_at": run.get("created_at"),
        "updated_at": run.get("updated_at"),
        "duration_seconds": _duration(run_dir, run),  # time waiting for a person left out
        "engines": sorted(set((config.get("engines") or {}).values())),
        "models": sorted({m for m in (config.get("models") or {}).values() if m}),
        "budget": {"limits": budget.get("limits") or {}, "spent": budget.get("spent") or {}},
        "live": live,
        "gate": None if live or decided else GATES.get(str(status)),
        # resumable: stopped with everything kept, cut off (its process gone) in the middle, or decided at its
        # gate with nothing continuing it yet
        "resumable": not live and (status in RESUMABLE or status in ACTIVE or decided),
    }


def _decided(run_dir: Path, status: Any) -> bool:
    """The run waits at a gate whose decision is already recorded (the process meant to continue it never did)."""
    gate = GATES.get(status)
    if gate is None:
        return False
    ws = Workspace.open(run_dir)
    if gate == "plan":
        return plan_is_approved(ws) or plan_rejection(ws) is not None
    candidate = final_candidate(ws)
    return candidate is not None and final_is_approved(ws, candidate[0])


def _reviews(reader: RunReader) -> list[dict[str, Any]]:
    out = []
    for rel in reader.reviews():
        review = reader.read_json(rel) or {}
        out.append(
            {
                "path": rel,
                "draft": review.get("draft"),
                "verdict": review.get("verdict"),
                "defects": [
                    {k: d.get(k) for k in ("code", "severity", "message", "location", "route")}
                    for d in review.get("defects") or []
                    if isinstance(d, dict)
                ],
            }
        )
    return out


def _branches(reader: RunReader, run: dict[str, Any]) -> list[dict[str, Any]]:
    recorded = run.get("branches") or {}
    out = []
    for q in reader.questions():
        qid = q.get("id")
        if q.get("kind") != "research" or not isinstance(qid, str):
            continue
        b = recorded.get(qid) or {}
        out.append(
            {
                "id": qid,
                "text": q.get("text"),
                "status": b.get("status"),
                "reason": b.get("reason"),
                "cards": len(reader.list(question_cards(qid))),
            }
        )
    return out


def _link(run: Any) -> dict[str, Any] | None:
    return {"run_id": run.get("run_id"), "question": run.get("question")} if isinstance(run, dict) else None


def detail(run_dir: Path, live: bool) -> dict[str, Any]:
    """Everything the run page shows: the row, the plan, branches, reviews with defects, the answer check's verdicts
    (once metrics.json is written), and the gate's hash."""
    reader = RunReader(run_dir)
    head = row(run_dir, live)
    run = reader.run()
    plan = reader.plan()
    config = run.get("config") or {}
    out = {
        **head,
        "config": {k: config.get(k) for k in ("corpus", "web", "max_revisions", "require_final_approval")},
        "offered_sources": list(run_offers(config)),  # what the plan gate offers a question to allow
        "plan": plan,
        "plan_sha256": plan_content_sha256(plan) if isinstance(plan, dict) else None,
        "branches": _branches(reader, run),
        "cards": len(reader.card_ids()),
        "drafts": reader.drafts(),
        "reviews": _reviews(reader),
        "decisions": run.get("decisions") or [],
        "final_report": reader.exists(FINAL_REPORT),
        "answers": answers_of(reader),
        "draft": None,
        "cost": run_costs(reader),  # dollars per role and run, as inspect and the viewer show them
        # follow-ups link both ways: the run this one follows up, and the runs that follow it up
        "parent": _link(run.get("parent")),
        "children": [_link(c) for c in children_of(run_dir)],
    }
    out["cost"]["line"] = cost_text(out["cost"])
    out["cost"]["shown"] = {role: dollars(r["usd"]) for role, r in out["cost"]["roles"].items()}
    if head["gate"] == "final":
        candidate = final_candidate(Workspace.open(run_dir))
        if candidate is not None:
            path, sha = candidate
            # the draft as written, and the report its sign-off prints with each cited card's quote in its source
            out["draft"] = {
                "path": path,
                "sha256": sha,
                "text": reader.read_text(path),
                **final_preview(reader, path, sha),
            }
    return out
