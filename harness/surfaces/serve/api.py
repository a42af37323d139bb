"""The JSON API the pages are built on (and that curl can use).

    POST /api/runs                      {question, corpus?, engine?, model?, max_revisions?, concurrency?, budget?,
                                         require_final_approval?, web?, search?}  (the browser's run options:
                                         request.FIELDS) -> 201 {"run_id"}, or 202 {"queued", "position"}
                                                                        when every slot is taken (launcher.py)
    GET  /api/runs[?status=S]           -> {"runs": [...]}
    GET  /api/runs/{run_id}             -> the run: status, reason, gate, plan (and its hash) or draft (and its sha256),
                                           `fragments`: what the run page shows of it as HTML, rendered by the audit
                                           viewer's sections (fragments.py), and `view`: the audit viewer's typed
                                           view of it (`viewer.model.RunView`)
    GET  /api/runs/{run_id}/events      -> server-sent events (see events.py): `run` (the above without `view`)
                                           and `trace` ({"event": a trace line, "line": it as the page shows it})
    POST /api/runs/{run_id}/plan        {"decision": "approve"|"reject"|"edit", "feedback"?, "plan"?} -> 202
    POST /api/runs/{run_id}/final       {"version": SHA256} -> 202
    POST /api/runs/{run_id}/resume      {"budget"?: {"llm_calls"?: N, ...}} -> 202
    GET  /api/runs/{run_id}/export/FMT  -> the completed run's report as pdf, docx, html or md (`research export`)
    POST /api/runs/{run_id}/ask         {"question"} -> 201 {"run_id", "parent"} (or 202 queued): a follow-up
    GET  /api/meta                      -> statuses, corpus roots, engines, the request fields and the new-run
                                           form's (`form`: each with its flag, help, input kind and bounds)

Decisions go through `approvals.record_decision`, the code path of `research approve`
(so an edited plan is validated before anything is written, and a stale final hash is
refused), then the run goes on in a new `research resume` process. Every error is JSON
`{"error": "one line", "field"?: name}` with a fitting status: 400 bad input, 403
refused, 404 no such run, 409 not now (the run is elsewhere than that gate, busy, queued, or
its folder cannot be read as a run), 413 too large, 503 no process could be started.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from sse_starlette.sse import EventSourceResponse
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from harness.contract.statuses import BUDGET_EXHAUSTED, COMPLETED
from harness.contract.works import CITATION_STYLES
from harness.errors import ArtifactInvalid, HarnessError, UsageError, WorkspaceError
from harness.orchestrator.approvals import record_decision
from harness.orchestrator.config import ENGINES, check_citation_style, check_question
from harness.surfaces.export import export_bytes
from harness.surfaces.serve import runs
from harness.surfaces.serve.events import run_events
from harness.surfaces.serve.fragments import row_fragments, run_fragments
from harness.surfaces.serve.launcher import LaunchError, Queued
from harness.surfaces.serve.request import (
    FIELDS,
    RequestError,
    budget_flags,
    check_budget_request,
    field_of,
    form_fields,
    run_flags,
)
from harness.surfaces.serve.security import login_name
from harness.surfaces.serve.states import GATES, RESUMABLE, STATUSES
from harness.surfaces.viewer.collect import collect

PLAN_DECISIONS = ("approve", "reject", "edit")
MAX_BODY_BYTES = 4 * 1024 * 1024  # a request is a form or an edited plan, never a corpus
MAX_EVENT_ID_DIGITS = 12  # Last-Event-ID is a trace line number
EXPORT_TYPES = {
    "pdf": "application/pdf",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "html": "text/html; charset=utf-8",
    "md": "text/markdown; charset=utf-8",
}


class ApiError(Exception):
    def __init__(self, status: int, message: str, field: str | None = None):
        super().__init__(message)
        self.status = status
        self.message = " ".join(message.split())
        self.field = field


def error_response(exc: ApiError) -> JSONResponse:
    body: dict[str, Any] = {"error": exc.message}
    if exc.field:
        body["field"] = exc.field
    return JSONResponse(body, status_code=exc.status)


async def _body(request: Request) -> Any:
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_BODY_BYTES:
            raise ApiError(413, f"request body: larger than {MAX_BODY_BYTES // 1024 // 1024} MiB")
    if not raw.strip():
        return {}
    try:
        return json.loads(raw)
    except ValueError as exc:
        raise ApiError(400, f"request body: not valid JSON ({exc})") from None


def _name(key: str) -> str:
    """A field name as a message shows it (a request may send any key)."""
    return key if len(key) <= 40 else key[:37] + "..."


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _object(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise ApiError(400, "request body: expected a JSON object")
    return body


class Api:
    """The API's handlers over one runs folder (`app.state.settings`, `app.state.launcher`)."""

    def __init__(self, settings, launcher):
        self.settings = settings
        self.launcher = launcher

    # ---- reading -------------------------------------------------------------------

    def _run_dir(self, request: Request) -> Path:
        run_dir = runs.run_dir_of(self.settings.runs_dir, request.path_params["run_id"])
        if run_dir is None:
            raise ApiError(404, f"run {request.path_params['run_id']}: no such run in {self.settings.runs_dir}")
        return run_dir

    def _row(self, run_dir: Path, live: bool) -> dict[str, Any]:
        row = runs.listed(run_dir, live)
        if row.get("broken"):
            raise ApiError(409, f"run {run_dir.name}: its folder cannot be read as a run ({row['broken']})")
        return row

    def detail(self, run_dir: Path) -> dict[str, Any]:
        """The run page's data; a folder that cannot be read as a run (half-copied, hand-broken) is a 409 saying so."""
        try:
            out = runs.json_ready(runs.detail(run_dir, self.launcher.live(run_dir)))
            out["fragments"] = run_fragments(run_dir, out)  # what the page shows of it, rendered by the viewer
        except Exception as exc:  # noqa: BLE001 - whatever a broken folder raises, the server stays up
            raise ApiError(409, f"run {run_dir.name}: its folder cannot be read as a run ({runs.why(exc)})") from None
        out["error"] = self.launcher.error(run_dir.name)
        out["queued"] = self.launcher.position(run_dir.name)
        return out

    async def meta(self, request: Request) -> JSONResponse:
        return JSONResponse(
            {
                "statuses": list(STATUSES),
                "gates": GATES,
                "resumable": sorted(RESUMABLE),
                "engines": list(ENGINES),
                "fields": list(FIELDS),
                "form": form_fields(),
                "corpus_roots": self.settings.corpus_roots.describe(),
                "corpora": self.settings.corpus_roots.listing(),
                "runs_dir": str(self.settings.runs_dir),
            }
        )

    async def list_runs(self, request: Request) -> JSONResponse:
        wanted = request.query_params.get("status")
        if wanted and wanted not in STATUSES:
            raise ApiError(400, f"status {wanted}: not a run status ({', '.join(STATUSES)})", "status")
        rows = [] if wanted else self.launcher.queued()  # starts waiting for a slot come first, in order
        for run_id in runs.run_ids(self.settings.runs_dir):
            run_dir = self.settings.runs_dir / run_id
            row = runs.listed(run_dir, self.launcher.live(run_dir))
            row["queued"] = self.launcher.position(run_id)
            if not wanted or row["status"] == wanted:
                rows.append(row)
        for row in rows:
            row["fragments"] = row_fragments(row)  # its status badge, as the viewer draws one
        return JSONResponse({"runs": rows})

    async def get_run(self, request: Request) -> JSONResponse:
        run_dir = self._run_dir(request)
        out = self.detail(run_dir)
        out["view"] = self.view(run_dir)  # not in the events' snapshots: it holds every source's text
        return JSONResponse(out)

    def view(self, run_dir: Path) -> dict[str, Any]:
        """What the audit viewer shows of the run, as its typed view models serialized."""
        try:
            return runs.json_ready(collect(run_dir).as_json())
        except Exception as exc:  # noqa: BLE001 - whatever a broken folder raises, the server stays up
            raise ApiError(409, f"run {run_dir.name}: its folder cannot be read as a run ({runs.why(exc)})") from None

    async def events(self, request: Request) -> EventSourceResponse:
        run_dir = self._run_dir(request)
        last = request.headers.get("last-event-id", "0") or "0"
        if not (last.isascii() and last.isdigit() and len(last) <= MAX_EVENT_ID_DIGITS):
            raise ApiError(400, f"Last-Event-ID: expected a trace line number (at most {MAX_EVENT_ID_DIGITS} digits)")
        self.detail(run_dir)  # a folder that cannot be read is refused before the stream starts

        def snapshot() -> dict[str, Any]:
            try:
                return self.detail(run_dir)
            except ApiError as exc:
                return {"run_id": run_dir.name, "broken": exc.message}

        stream = run_events(run_dir, snapshot, lambda: self.launcher.live(run_dir), request.is_disconnected, int(last))
        return EventSourceResponse(stream, ping=15, headers={"Cache-Control": "no-store"})

    # ---- changing --------------------------------------------------------------------

    async def start(self, request: Request) -> JSONResponse:
        body = await _body(request)
        try:
            flags = run_flags(body, self.settings.corpus_roots, self.settings.cwd, self.settings.runs_dir)
        except RequestError as exc:
            raise ApiError(exc.status, str(exc), exc.field) from None
        try:
            started = await self.launcher.start(flags, question=flags[-1])
        except LaunchError as exc:  # the run's own process refused it: its message came as text, on its stderr
            message = str(exc)
            raise ApiError(400, message, field_of(message)) from None
        if isinstance(started, Queued):  # every slot is taken: it starts when one frees, in order
            return JSONResponse({"queued": started.ticket, "position": started.position}, status_code=202)
        return JSONResponse({"run_id": started}, status_code=201)

    async def ask(self, request: Request) -> JSONResponse:
        """A follow-up run of a completed run (`research ask`): it starts from the parent's sources and cards."""
        run_dir = self._run_dir(request)
        body = _object(await _body(request))
        question = body.get("question")
        if not isinstance(question, str) or not question.strip():
            raise ApiError(400, "question: the follow-up question is required", "question")
        unknown = sorted(set(body) - {"question"})
        if unknown:
            raise ApiError(400, f"{_name(unknown[0])}: not a follow-up field (fields: question)", _name(unknown[0]))
        try:
            question = check_question(question)
        except UsageError as exc:
            raise ApiError(400, str(exc), "question") from None
        row = self._row(run_dir, self.launcher.live(run_dir))
        if row["status"] != COMPLETED:
            raise ApiError(409, f"run {run_dir.name} is {row['status']}: only a completed run can be followed up")
        try:
            started = await self.launcher.start(["--", str(run_dir), question], command=("ask",), question=question)
        except LaunchError as exc:
            raise ApiError(400, str(exc), "question") from None
        if isinstance(started, Queued):
            body = {"queued": started.ticket, "position": started.position, "parent": run_dir.name}
            return JSONResponse(body, status_code=202)
        return JSONResponse({"run_id": started, "parent": run_dir.name}, status_code=201)

    def _continue(self, run_dir: Path, flags: list[str]) -> int | None:
        """Continue the run in a new process, or queue it; its place in the queue, if it waits."""
        try:
            queued = self.launcher.resume(run_dir, flags)
            return queued.position if queued else None
        except LaunchError as exc:  # the decision is recorded; a later resume continues the run
            raise ApiError(503, f"run {run_dir.name}: {exc}; resume it once the server can start processes") from None

    def _idle(self, run_dir: Path) -> None:
        if self.launcher.position(run_dir.name):
            raise ApiError(409, f"run {run_dir.name}: queued to continue once a slot frees; wait until it starts")
        if self.launcher.live(run_dir):
            raise ApiError(409, f"run {run_dir.name}: a process is working on it; wait until it pauses or ends")

    def _at_gate(self, run_dir: Path, gate: str) -> None:
        """Refuse a decision on a run that is not waiting at `gate` for one (busy, elsewhere, or already decided)."""
        self._idle(run_dir)
        row = self._row(run_dir, False)
        if row["gate"] == gate:
            return
        waiting = {g: s for s, g in GATES.items()}[gate]
        if row["status"] == waiting:  # decided, with nothing continuing the run yet
            raise ApiError(409, f"--{gate}: already decided on this {gate}; resume the run to go on")
        raise ApiError(409, f"--{gate}: the run is {row['status']}, not {waiting.replace('_', ' ')}")

    def _by(self, request: Request) -> str:
        """Who decides: the name given at login, beside the server's OS user."""
        name = login_name(request.headers.get("cookie", ""))
        return f"{name} ({self.settings.user})" if name else self.settings.user

    def _decide(self, run_dir: Path, by: str, **kwargs) -> str:
        self._idle(run_dir)
        try:
            return record_decision(run_dir, by=by, **kwargs)
        except ArtifactInvalid as exc:  # the edited plan is refused by its schema or checks: nothing was written
            raise ApiError(400, str(exc), "plan") from None
        except UsageError as exc:
            message = str(exc)
            if "not valid JSON" in message:
                raise ApiError(400, message, "plan") from None
            raise ApiError(409, message) from None
        except WorkspaceError as exc:  # e.g. a process took the run lock meanwhile
            raise ApiError(409, str(exc)) from None

    async def plan(self, request: Request) -> JSONResponse:
        run_dir = self._run_dir(request)
        body = _object(await _body(request))
        decision = body.get("decision")
        if decision not in PLAN_DECISIONS:
            raise ApiError(
                400, f"decision: expected one of {', '.join(PLAN_DECISIONS)}, got {_short(decision)}", "decision"
            )
        self._at_gate(run_dir, "plan")
        if decision == "edit":
            plan = body.get("plan")
            if not isinstance(plan, (dict, str)):
                raise ApiError(400, "plan: an edit needs the edited plan (an object)", "plan")
            text = plan if isinstance(plan, str) else json.dumps(plan, ensure_ascii=False)
            recorded = self._decide(run_dir, self._by(request), plan=True, plan_text=text)
        elif decision == "reject":
            feedback = body.get("feedback")
            if feedback is not None and not isinstance(feedback, str):
                raise ApiError(400, "feedback: expected a string", "feedback")
            recorded = self._decide(run_dir, self._by(request), plan=True, reject=(feedback or "").strip())
        else:
            recorded = self._decide(run_dir, self._by(request), plan=True)
        queued = self._continue(run_dir, [])
        return JSONResponse({"run_id": run_dir.name, "recorded": recorded, "queued": queued}, status_code=202)

    async def final(self, request: Request) -> JSONResponse:
        run_dir = self._run_dir(request)
        body = _object(await _body(request))
        version = body.get("version")
        if not isinstance(version, str) or not version:
            raise ApiError(400, "version: the sha256 of the draft you sign off is required", "version")
        self._at_gate(run_dir, "final")
        recorded = self._decide(run_dir, self._by(request), final_version=version)
        queued = self._continue(run_dir, [])
        return JSONResponse({"run_id": run_dir.name, "recorded": recorded, "queued": queued}, status_code=202)

    async def resume(self, request: Request) -> JSONResponse:
        run_dir = self._run_dir(request)
        body = _object(await _body(request))
        try:
            budget = check_budget_request(body.get("budget"))
        except RequestError as exc:
            raise ApiError(exc.status, str(exc), exc.field) from None
        unknown = sorted(set(body) - {"budget"})
        if unknown:
            raise ApiError(400, f"{_name(unknown[0])}: not a resume field (fields: budget)", _name(unknown[0]))
        self._idle(run_dir)
        row = self._row(run_dir, False)
        if not row["resumable"]:
            gate = GATES.get(row["status"])
            hint = f"; decide at the {gate} gate instead" if gate else ""
            raise ApiError(409, f"run {run_dir.name} is {row['status']}: nothing to resume{hint}")
        if row["status"] == BUDGET_EXHAUSTED:
            limits = row["budget"]["limits"]
            if not any(v is not None and v != limits.get(k) for k, v in budget.items()):
                raise ApiError(
                    400,
                    f"budget: the run's budget is spent ({row['status_reason'] or 'no reason'}); raise a limit",
                    "budget",
                )
        queued = self._continue(run_dir, budget_flags(budget))
        return JSONResponse({"run_id": run_dir.name, "queued": queued}, status_code=202)

    async def export(self, request: Request) -> Response:
        """A completed run's report with its evidence as a file to download (`research export`); `?style=ieee` puts
        its bibliography in another bundled citation style than the run's (`--citation-style`)."""
        run_dir = self._run_dir(request)
        fmt = request.path_params["fmt"]
        if fmt not in EXPORT_TYPES:
            raise ApiError(404, f"--format {_short(fmt)}: choose one of {', '.join(EXPORT_TYPES)}", "format")
        try:
            style = check_citation_style(found) if (found := request.query_params.get("style")) is not None else None
        except UsageError:
            raise ApiError(
                400, f"style {_short(found or '')}: choose one of {', '.join(CITATION_STYLES)}", "style"
            ) from None
        row = self._row(run_dir, self.launcher.live(run_dir))
        if row["status"] != COMPLETED:
            raise ApiError(409, f"run {run_dir.name} is {row['status']}: only a completed run has a report to export")
        try:
            name, data = await asyncio.to_thread(export_bytes, run_dir, fmt, style)
        except HarnessError as exc:  # e.g. the export extra missing for pdf or docx
            raise ApiError(409, str(exc), "format") from None
        disposition = f'attachment; filename="{name}"'
        return Response(data, media_type=EXPORT_TYPES[fmt], headers={"Content-Disposition": disposition})

    def routes(self) -> list[Route]:
        return [
            Route("/api/runs/{run_id}/export/{fmt}", self.export, methods=["GET"]),
            Route("/api/meta", self.meta, methods=["GET"]),
            Route("/api/runs", self.list_runs, methods=["GET"]),
            Route("/api/runs", self.start, methods=["POST"]),
            Route("/api/runs/{run_id}", self.get_run, methods=["GET"]),
            Route("/api/runs/{run_id}/events", self.events, methods=["GET"]),
            Route("/api/runs/{run_id}/plan", self.plan, methods=["POST"]),
            Route("/api/runs/{run_id}/final", self.final, methods=["POST"]),
            Route("/api/runs/{run_id}/resume", self.resume, methods=["POST"]),
            Route("/api/runs/{run_id}/ask", self.ask, methods=["POST"]),
        ]
