# One command sets up and runs; everything installs into .venv from the project's own files.
PYTHON ?= python3
SHARED ?= ../shared/data/swebench
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup run test lint bench clean browser

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

JUDGE ?= reference
GENERATOR ?= reference
REPORT ?= reports/sample

run: setup  ## the main job: validate the judge on the shipped SWE-bench sample (offline by default)
	$(BIN)/rubric-judge validate --judge $(JUDGE) --generator $(GENERATOR) --out $(REPORT) --browse

test: setup browser  ## lint, then the whole test suite (offline)
	$(BIN)/ruff check .
	$(BIN)/python -m pytest

browser:  ## headless Chromium for the report-safety test (Debian's package; installed when root)
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; \
	  else echo "chromium not installed and not root: the browser test will be skipped"; fi; }

bench: setup  ## speed and quality targets (see benchmarks/); SHARED points at the full data
	$(BIN)/python benchmarks/reference_judge.py --shared $(SHARED)
	$(BIN)/python benchmarks/llm_overhead.py

clean:
	rm -rf $(VENV) .rubric-judge .pytest_cache .coverage reports
