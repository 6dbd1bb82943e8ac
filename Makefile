# One command sets up and runs; everything installs into .venv from the project's own files.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup run test lint bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

run: setup  ## the main job
	$(BIN)/rubric-judge --help
	$(BIN)/rubric-judge llm check

test: setup  ## lint, then the whole test suite (offline)
	$(BIN)/ruff check .
	$(BIN)/python -m pytest

bench: setup  ## speed targets (see benchmarks/)
	$(BIN)/python benchmarks/llm_overhead.py

clean:
	rm -rf $(VENV) .rubric-judge .pytest_cache .coverage
