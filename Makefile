# The two commands a newcomer needs: `make run` (the main job) and `make test`
# (ruff lint and format, the import-linter layer contract, the type checker, then the test suite).
# Each creates .venv and installs the project into it on first use.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
RUNS ?= runs
QUESTION ?= How do asyncio.TaskGroup and asyncio.gather differ in error handling and cancellation?

.PHONY: run test venv clean

venv: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $@

run: venv
	$(BIN)/research run "$(QUESTION)" --corpus python-docs --yes --runs-dir $(RUNS)

test: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/mypy
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
