# One command sets up and runs; everything installs into .venv from the project's own files.
PYTHON ?= python3
SHARED ?= ../shared/data/swebench
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup run test lint bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

JUDGE ?= reference
GENERATOR ?= reference
REPORT ?= reports/sample

run: setup  ## the main job: validate the judge on the shipped SWE-bench sample (offline by default)
	$(BIN)/rubric-judge validate --judge $(JUDGE) --generator $(GENERATOR) --out $(REPORT)

test: setup  ## lint, then the whole test suite (offline)
	$(BIN)/ruff check .
	$(BIN)/python -m pytest

bench: setup  ## speed and quality targets (see benchmarks/); SHARED points at the full data
	$(BIN)/python benchmarks/reference_judge.py --shared $(SHARED)
	$(BIN)/python benchmarks/llm_overhead.py

clean:
	rm -rf $(VENV) .rubric-judge .pytest_cache .coverage reports
