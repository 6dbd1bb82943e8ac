"""Fixtures shared by the integration tests: the mini run's rubrics and its golden files."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from judge.config import load_app_settings
from rubric_gen.run import RubricJob, generate_rubrics

GOLDEN = Path(__file__).parents[1] / "data" / "golden"


@pytest.fixture
def golden() -> Path:
    """Outputs recorded before streaming and prompt workers: byte-identity is checked on them."""
    return GOLDEN


@pytest.fixture
def normalised() -> Callable[[Path], list[str]]:
    """A judgements file's lines, sorted, with `created_at` blanked."""

    def lines(path: Path) -> list[str]:
        text = path.read_text().splitlines()
        return sorted(re.sub(r'"created_at":"[^"]*"', '"created_at":""', line) for line in text)

    return lines


@pytest.fixture
async def mini_rubrics(mini, tmp_path):
    """Settings with the cache in tmp, and the reference rubrics of the mini tasks."""
    settings = load_app_settings(sets=[f"llm.cache_path={tmp_path / 'c.sqlite'}"])
    path = tmp_path / "r.jsonl"
    await generate_rubrics(RubricJob(str(mini / "tasks.jsonl"), "reference", path), settings)
    return settings, path


@pytest.fixture
def with_workers() -> Callable:
    """`with_workers(settings, n)`: the settings with `judge.prompt_workers` set to n."""

    def change(settings, workers: int):
        judge = settings.judge.model_copy(update={"prompt_workers": workers})
        return settings.model_copy(update={"judge": judge})

    return change
