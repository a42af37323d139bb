"""The agent skill `skills/research/SKILL.md`: the Agent Skills format, loaded by deepagents' skills middleware,
and every command and flag it shows is one the `research` command line has."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import typer
import yaml
from deepagents import create_deep_agent
from deepagents.backends import FilesystemBackend
from langchain_core.messages import HumanMessage, SystemMessage

from fakes.scripted import Say, ScriptedChatModel
from harness.surfaces.cli import app

REPO = Path(__file__).resolve().parents[2]
SKILL = REPO / "skills" / "research" / "SKILL.md"


def front_matter() -> tuple[dict, str]:
    text = SKILL.read_text(encoding="utf-8")
    match = re.match(r"^---\n(.*?)\n---\n(.*)$", text, re.S)
    assert match, "SKILL.md starts with YAML front matter between --- lines"
    return yaml.safe_load(match.group(1)), match.group(2)


def test_the_front_matter_follows_the_agent_skills_format():
    meta, body = front_matter()
    assert meta["name"] == SKILL.parent.name == "research"
    assert 0 < len(meta["description"]) <= 1024 and len(meta.get("compatibility", "")) <= 500
    for heading in ("## When to use it", "## The commands", "## How to read a run folder", "## How to check a claim"):
        assert heading in body


def test_every_command_and_flag_the_skill_shows_exists():
    group = typer.main.get_command(app)
    _meta, body = front_matter()
    lines = [ln.split("#", 1)[0].strip() for ln in re.findall(r"```sh\n(.*?)```", body, re.S)[0].splitlines()]
    shown = [shlex.split(ln) for ln in lines if ln.startswith("research ")]
    inline = [shlex.split(m) for m in re.findall(r"`(research [a-z]+[^`]*)`", body)]
    assert len(shown) >= 8
    for words in shown + inline:
        command = group.commands.get(words[1])
        assert command is not None, words
        options = {opt for p in command.params for opt in p.opts + p.secondary_opts}
        for word in words[2:]:
            if word.startswith("--"):
                assert word in options, (words[1], word)


def test_deepagents_skills_middleware_loads_it():
    model = ScriptedChatModel(policy=lambda turn: Say("ok"))
    agent = create_deep_agent(
        model=model, backend=FilesystemBackend(root_dir=REPO, virtual_mode=True), skills=["/skills/"]
    )
    agent.invoke({"messages": [HumanMessage("Which skills do you have?")]})
    meta, _body = front_matter()
    system = next(str(m.content) for m in model.calls[0] if isinstance(m, SystemMessage))
    assert "/skills/research/SKILL.md" in system and meta["description"][:80] in system
