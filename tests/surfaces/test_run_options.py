"""The run options are declared once (`RunOptions`, harness/contract/options.py): every other declaration of them is
derived from its fields' metadata or held equal to it here — `research run`'s options, research.yaml's schema,
`harness.run`'s parameters, the LangGraph server's request and `research serve`'s request — and an error about an
option names its flag and carries its field."""

from __future__ import annotations

import dataclasses
import inspect
import typing
from pathlib import Path

import pytest
import typer

from harness.contract.options import (
    BUDGET_FLAGS,
    RunOptions,
    browser_fields,
    field_of_flag,
    flag_of,
    option_of,
    options,
    python_type,
    request_fields,
)
from harness.contract.schemas import schema
from harness.errors import UsageError
from harness.orchestrator.config import build_config
from harness.surfaces import api
from harness.surfaces.cli import app
from harness.surfaces.langgraph_server import ResearchRequest, _config_from_request
from harness.surfaces.serve import request as serve_request

RUN = typer.main.get_command(app).commands["run"]
DISPLAY_ONLY = {"--quiet", "--json"}  # how `research run` shows a run, not how the run goes: no RunOptions field
FIELDS = [f.name for f in dataclasses.fields(RunOptions)]


def _params_by_flag():
    out = {}
    for p in RUN.params:
        for flag in (*p.opts, *p.secondary_opts):
            out.setdefault(flag, []).append(p)
    return out


def test_every_run_option_is_one_cli_option_with_its_flag_help_and_panel():
    by_flag = _params_by_flag()
    seen = set()
    for name, o in options():
        if o.flag is None:  # an object given part by part (budget: its --budget-* flags)
            assert o.parts, name
            continue
        if name == "question":
            (arg,) = [p for p in RUN.params if isinstance(p, typer.core.TyperArgument)]
            assert arg.name == "question" and arg.help == o.help
            continue
        params = by_flag.get(o.flag, [])
        assert len(params) == 1, (name, o.flag)
        (param,) = params
        assert param.help == o.help, name
        assert getattr(param, "rich_help_panel", None) == o.panel, name
        assert param.envvar == o.envvar, name
        assert set(param.opts) == {o.flag, *([o.short] if o.short else [])}, name
        seen.add(id(param))
        if o.off and not o.off_help:
            assert param.secondary_opts == [o.off], name
        elif o.off:
            (off,) = by_flag[o.off]
            assert off.help == o.off_help and getattr(off, "rich_help_panel", None) == o.panel, name
            seen.add(id(off))
    rest = {flag for p in RUN.params if id(p) not in seen and p.param_type_name == "option" for flag in p.opts}
    assert rest == DISPLAY_ONLY  # every other option of `run` is a field of RunOptions


def test_the_flags_are_unique_and_map_back_to_their_fields():
    flags = [f for _, o in options() for f in (o.flag, o.off, o.short) if f]
    assert len(flags) == len(set(flags))
    assert field_of_flag("--no-web") == "web" and field_of_flag("--budget-usd") == "budget.usd"
    assert flag_of("budget.wall_seconds") == "--budget-seconds" == BUDGET_FLAGS["wall_seconds"]
    assert field_of_flag("--nope") is None


def _entry(doc: dict, key: str) -> dict:
    node = doc
    for part in key.split("."):
        node = node["properties"][part]
    return node


def test_config_schema_holds_each_options_entry_where_its_research_yaml_key_is():
    doc = schema("config.schema.json")
    keyed = [(name, o) for name, o in options() if o.key]
    assert {o.key.split(".")[0] for _, o in keyed} <= set(doc["properties"])
    for name, o in keyed:
        assert _entry(doc, o.key) == o.schema, name
    for dim, part in option_of("budget").parts:
        assert doc["$defs"]["limits"]["properties"][dim] == part.schema, dim
    for name, o in options():  # an option with no research.yaml key is none of the file's
        if not o.key and "." not in name:
            assert name not in doc["properties"], name


def test_harness_run_takes_every_option_and_only_them():
    params = inspect.signature(api.run).parameters
    assert list(params)[0] == "question"
    assert set(params) - {"approver", "events"} == set(FIELDS)


def test_the_langgraph_request_carries_the_request_options_with_their_types():
    hints = typing.get_type_hints(ResearchRequest)
    assert list(hints) == list(request_fields())
    for name in hints:
        expected = python_type(name)
        origin = typing.get_origin(hints[name]) or hints[name]
        if expected is not None:
            assert origin in (expected if isinstance(expected, tuple) else (expected,)), name
    assert set(browser_fields()) <= set(request_fields())  # what a browser may set, a request may


def test_serve_takes_the_browser_options_with_their_flags_and_types():
    assert serve_request.FIELDS == browser_fields()
    assert {"runs_dir", "agents", "yes", "web_allow_private", "model_base_url"}.isdisjoint(serve_request.FIELDS)
    for name in serve_request.FIELDS:
        assert serve_request.FLAGS[name] == flag_of(name)
    for dim, flag in BUDGET_FLAGS.items():
        assert serve_request.FLAGS[f"budget.{dim}"] == flag


def test_the_new_run_form_is_drawn_from_the_browser_options():
    fields = serve_request.form_fields()
    names = [f["name"] for f in fields]
    assert names[:2] == ["question", "corpus"] and len(names) == len(set(names))
    assert set(names) == set(browser_fields()) - {"budget"} | {f"budget.{dim}" for dim in BUDGET_FLAGS}
    by_name = {f["name"]: f for f in fields}
    for name, f in by_name.items():
        assert (f["flag"], f["help"]) == (flag_of(name), option_of(name).help)
    assert by_name["engine"]["input"] == "select" and by_name["engine"]["choices"] == ["offline", "llm"]
    assert (by_name["concurrency"]["min"], by_name["concurrency"]["max"], by_name["concurrency"]["step"]) == (1, 64, 1)
    assert by_name["budget.usd"]["step"] == "any" and by_name["web"]["input"] == "checkbox"
    assert by_name["search"]["input"] == "text"  # several providers, comma-separated
    js = (Path(serve_request.__file__).parent / "static" / "serve.js").read_text(encoding="utf-8")
    assert "meta.form" in js


def test_options_flags_round_trip_through_the_metadata():
    assert serve_request.option_flags("web", False) == ["--no-web"]
    assert serve_request.option_flags("require_final_approval", True) == ["--require-final-approval"]
    assert serve_request.option_flags("require_final_approval", False) == ["--no-final-approval"]
    assert serve_request.option_flags("max_revisions", 0) == ["--max-revisions", "0"]
    assert serve_request.option_flags("engine", None) == []


def test_a_request_mapping_reads_only_the_allowed_fields():
    got = RunOptions.from_mapping({"question": "q", "web": True, "yes": True, "x": 1}, allowed=browser_fields())
    assert got == RunOptions("q", web=True)


def test_options_over_research_yaml_take_the_files_values_only_where_not_given():
    merged = RunOptions("q", concurrency=2).over({"concurrency": 8, "max_revisions": 0, "web": True, "budget": {}})
    assert (merged.concurrency, merged.max_revisions, merged.web, merged.budget) == (2, 0, True, None)


@pytest.mark.parametrize(
    ("given", "field", "message"),
    [
        ({"question": " "}, "question", "QUESTION: must not be empty"),
        ({"engine": "gpt"}, "engine", "--engine gpt: choose offline or llm"),
        ({"model": "gemini"}, "model", "--model gemini: expected PROVIDER:NAME"),
        ({"max_revisions": 11}, "max_revisions", "--max-revisions 11: must be a whole number from 0 to 10"),
        ({"concurrency": 0}, "concurrency", "--concurrency 0: must be a whole number from 1 to 64"),
        ({"budget": {"tokens": -1}}, "budget.tokens", "--budget-tokens -1: must be a whole number"),
        ({"budget": {"wall_seconds": "x"}}, "budget.wall_seconds", "--budget-seconds 'x': expected a number"),
        ({"budget": 5}, "budget", "budget: expected an object of limits"),
        ({"agents": ["writer"]}, "agents", "--agent writer: expected ROLE=VALUE"),
        ({"agents": ["cook=llm"]}, "agents", "--agent cook=llm: unknown role 'cook'"),
        ({"agents": ["writer=python:nope"]}, "agents", "--agent: 'python:nope' must look like"),
        ({"language": "French"}, "language", "--language 'French': expected a language code"),
        ({"citation_style": "mla"}, "citation_style", "--citation-style mla: choose one of apa"),
        ({"search": "tavily"}, "search", "--search: the web is off for this run (add --web)"),
        ({"search_url": "http://x"}, "search_url", "--search-url: the web is off for this run (add --web)"),
        ({"model_base_url": "http://x"}, "model_base_url", "--model-base-url http://x: no role of this run"),
        ({"budget": {"usd": 1}, "engine": "llm", "model": "openai:unknown-model-x"}, "budget.usd", "--budget-usd 1"),
    ],
)
def test_a_bad_option_is_one_line_naming_its_flag_and_carrying_its_field(tmp_path, given, field, message):
    given = {"question": "q?", "engine": "offline", "runs_dir": str(tmp_path), **given}
    with pytest.raises(UsageError) as caught:
        build_config(RunOptions(**given), config_data={})
    assert caught.value.field == field and str(caught.value).startswith(message), str(caught.value)


def test_the_langgraph_request_is_read_through_the_options(tmp_path):
    cfg = _config_from_request(
        {"question": "q?", "engine": "offline", "runs_dir": str(tmp_path), "language": "fr", "citation_style": "ieee"}
    )
    assert (cfg.language, cfg.citation_style, cfg.runs_dir) == ("fr", "ieee", tmp_path.resolve())
    with pytest.raises(UsageError) as caught:
        _config_from_request({"question": "q?", "runs_dir": str(tmp_path), "engine": "gpt"})
    assert caught.value.field == "engine"


def test_an_assistants_configurable_sets_options_a_request_does_not(tmp_path):
    config = {"configurable": {"thread_id": "t", "language": "de", "concurrency": 2, "question": "not this"}}
    request = {"question": "q?", "engine": "offline", "runs_dir": str(tmp_path), "concurrency": 3, "language": None}
    cfg = _config_from_request(request, config)
    assert (cfg.question, cfg.language, cfg.concurrency) == ("q?", "de", 3)
    with pytest.raises(UsageError) as caught:
        _config_from_request(request, {"configurable": {"max_revisions": 99}})
    assert caught.value.field == "max_revisions"


def test_an_agent_that_names_a_function_not_a_class_is_one_line_not_an_internal_error(tmp_path):
    from harness.orchestrator.agents import build_agents

    cfg = build_config("q?", agents=["writer=python:os:system"], engine="offline", runs_dir=str(tmp_path))
    with pytest.raises(UsageError) as caught:
        build_agents(cfg)
    assert str(caught.value) == "--agent writer=python:os:system: os.system is not a class"
    assert caught.value.field == "agents"


def test_the_langchain_tool_takes_run_options_only():
    from harness.surfaces.research_tool import research_tool

    params = set(inspect.signature(research_tool).parameters) - {"name", "description"}
    assert params <= set(FIELDS)
