"""Every command's `--help` reads at 80 columns: each flag name whole, no line wider than the terminal.

Rich squeezes an options table that is too wide by cutting its widest cells with an ellipsis, flag names included
(`--web-allow-priva…`), so the options are grouped into panels (`rich_help_panel`) with short help lines. This
renders each command's help as a user's 80-column terminal would and looks for every flag the command accepts.
"""

from __future__ import annotations

import re

import pytest
import typer
from typer.testing import CliRunner

from harness.surfaces.cli import APPROVALS, BUDGET, MODEL, OUTPUT, SOURCES, WEB, app

COMMANDS = typer.main.get_command(app).commands


def _help(args: list[str], columns: int = 80) -> str:
    result = CliRunner().invoke(app, [*args, "--help"], env={"COLUMNS": str(columns), "TERMINAL_WIDTH": str(columns)})
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_flag_name_is_whole_at_80_columns(name):
    text = _help([name])
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "…" not in text
    flags = [f for p in COMMANDS[name].params for f in (*p.opts, *p.secondary_opts) if f.startswith("-")]
    assert flags
    for flag in flags:
        assert re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", text), f"{name}: {flag} not whole"


def test_the_root_help_lists_every_command_at_80_columns():
    text = _help([])
    assert "…" not in text and max(len(line) for line in text.splitlines()) <= 80
    for name in COMMANDS:
        assert re.search(rf"│ {re.escape(name)}\s", text), name


def test_run_groups_its_flags_into_panels():
    text = _help(["run"])
    panels = re.findall(r"╭─ (\w+) ─", text)
    assert {MODEL, SOURCES, WEB, BUDGET, APPROVALS, OUTPUT} <= set(panels)
    web = text[text.index(f"╭─ {WEB} ─") :]
    web = web[: web.index("╰")]
    for flag in ("--web-allow-private", "--web-ignore-robots", "--search-url"):
        assert flag in web
    assert len(text.splitlines()) < 100  # it was 139 lines, help wrapped into a column 20 wide


def test_final_approval_flags_still_choose_and_refuse_both(tmp_path):
    result = CliRunner().invoke(
        app, ["run", "q", "--require-final-approval", "--no-final-approval", "--runs-dir", str(tmp_path)]
    )
    assert result.exit_code == 2 and "choose one" in result.output
    assert not any(tmp_path.iterdir())
