"""Answering human gates in a terminal: show the plan, then approve, edit in $EDITOR, or reject with feedback."""

from __future__ import annotations

import getpass
import json
import os
import shlex
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from harness.contract.layout import PLAN
from harness.contract.policy import HARNESS
from harness.contract.schemas import validate
from harness.errors import UsageError
from harness.workspace.store import Workspace


def show_plan(console: Console, plan: dict[str, Any]) -> None:
    t = Table(title=f"plan.json (revision {plan['revision']}): {plan['question']}", title_justify="left")
    for col in ("id", "kind", "critical", "tag", "question"):
        t.add_column(col)
    for q in plan["questions"]:
        t.add_row(q["id"], q["kind"], "yes" if q["critical"] else "no", q.get("tag") or "", q["text"])
    console.print(t)
    console.print(f"deliverable: {plan['deliverable']}")


def edit_in_editor(text: str, editor: str | None = None) -> str:
    """Open `text` in $EDITOR (or $VISUAL, or vi) and return what was saved."""
    editor = editor or os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, encoding="utf-8") as fh:
        fh.write(text)
        path = fh.name
    try:
        subprocess.run([*shlex.split(editor), path], check=True)
        return Path(path).read_text(encoding="utf-8")
    except (OSError, subprocess.CalledProcessError) as exc:
        raise UsageError(f"$EDITOR ({editor}) failed: {exc}") from None
    finally:
        Path(path).unlink(missing_ok=True)


class TerminalApprover:
    """Asks on the terminal; `ask` is injectable so tests can script the answers."""

    def __init__(
        self, console: Console | None = None, ask: Callable[[str], str] | None = None, editor: str | None = None
    ):
        self.console = console or Console(stderr=True)
        self.ask = ask or (lambda prompt: self.console.input(prompt))
        self.editor = editor
        self.user = getpass.getuser()

    def __call__(self, ws: Workspace, payload: dict[str, Any]) -> dict[str, Any]:
        if payload["gate"] == "plan":
            return self._plan(ws)
        return self._final(payload)

    def _plan(self, ws: Workspace) -> dict[str, Any]:
        plan = ws.read_json(PLAN, HARNESS)
        show_plan(self.console, plan)
        while True:
            choice = self.ask("[a]pprove, [e]dit, or [r]eject with feedback? ").strip().lower()[:1]
            if choice == "a":
                return {"decision": "approve", "by": self.user}
            if choice == "e":
                text = json.dumps({k: v for k, v in plan.items() if k != "approval"}, indent=2, ensure_ascii=False)
                while True:
                    text = edit_in_editor(text, self.editor)
                    problem = self._check_edit(text)
                    if problem is None:
                        return {"decision": "edit", "plan_text": text, "by": self.user}
                    self.console.print(f"[red]{problem}[/]")
                    if self.ask("Edit again? [y/n] ").strip().lower()[:1] != "y":
                        break
            elif choice == "r":
                feedback = self.ask("Feedback for the Planner (empty: stop the run): ").strip()
                return {"decision": "reject", "feedback": feedback, "by": self.user}

    @staticmethod
    def _check_edit(text: str) -> str | None:
        try:
            plan = json.loads(text)
        except json.JSONDecodeError as exc:
            return f"plan.json (edited): not valid JSON: {exc.msg} at line {exc.lineno}"
        if isinstance(plan, dict):
            plan.setdefault("approval", None)
        problems = validate(plan, "plan.schema.json", "plan.json (edited)")
        return str(problems[0]) if problems else None

    def _final(self, payload: dict[str, Any]) -> dict[str, Any]:
        self.console.print(f"Final draft {payload['draft']} (sha256 {payload['sha256']}) passed review.")
        choice = self.ask("Sign it off? [a]pprove / [r]eject: ").strip().lower()[:1]
        if choice == "a":
            return {"decision": "approve", "version": payload["sha256"], "by": self.user}
        return {"decision": "reject", "feedback": self.ask("Why? ").strip(), "by": self.user}
