"""Where the shipped SWE-bench sample lives: the default data of `validate` and the hostile set."""

from __future__ import annotations

from pathlib import Path

SAMPLE_DIR = Path(__file__).parent / "data"
SAMPLE_TASKS = SAMPLE_DIR / "instances.jsonl.gz"
SAMPLE_CANDIDATES = SAMPLE_DIR / "candidates.jsonl.gz"
