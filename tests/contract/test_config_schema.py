"""schemas/config.schema.json is generated from the run options (harness/contract/config_schema.py): the checked-in
file is exactly what the generator writes, so an option edited without regenerating the file fails here."""

from __future__ import annotations

import dataclasses

from harness.contract import config_schema
from harness.contract.options import option_of, options
from harness.contract.resources import schemas_dir
from harness.contract.schemas import schema


def test_the_checked_in_file_is_the_generated_one():
    on_disk = (schemas_dir() / config_schema.FILE).read_text(encoding="utf-8")
    assert on_disk == config_schema.render(), f"schemas/config.schema.json is stale: run {config_schema.WRITE_COMMAND}"
    assert schema(config_schema.FILE) == config_schema.config_schema()


def test_each_options_entry_is_its_metadatas_at_its_key():
    doc = config_schema.config_schema()
    for name, o in options():
        if o.key:
            section, _, key = o.key.rpartition(".")
            node = doc["properties"][section]["properties"] if section else doc["properties"]
            assert node[key] == o.schema, name
    assert doc["$defs"]["limits"]["properties"] == {dim: p.schema for dim, p in option_of("budget").parts}


def test_editing_an_options_schema_changes_the_generated_file(monkeypatch):
    before = config_schema.render()

    def edited():
        for name, o in options():
            yield name, dataclasses.replace(o, schema={**o.schema, "maximum": 65}) if name == "concurrency" else o

    monkeypatch.setattr(config_schema, "options", edited)
    after = config_schema.render()
    assert after != before and '"maximum": 65' in after


def test_the_command_writes_and_checks_the_file(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(config_schema, "schemas_dir", lambda: tmp_path)
    (tmp_path / config_schema.FILE).write_text("{}\n", encoding="utf-8")
    assert config_schema.main(["--check"]) == 1
    assert config_schema.WRITE_COMMAND in capsys.readouterr().err
    assert config_schema.main(["--write"]) == 0
    assert (tmp_path / config_schema.FILE).read_text(encoding="utf-8") == config_schema.render()
    assert config_schema.main(["--check"]) == 0
    assert config_schema.main([]) == 2
