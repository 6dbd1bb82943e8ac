"""The frozen rubrics file: append-only, the newest rubric of a task wins."""

from __future__ import annotations

from pathlib import Path

from judge.jsonl import read_jsonl
from judge.llm.types import ConfigError
from judge.rubric import Rubric, content_hash


def load_rubrics(path: Path) -> dict[str, Rubric]:
    """Rubrics by task id; a rubric whose stored hash does not match its criteria is an error
    (it was edited by hand, and judgements citing the old hash would be ambiguous)."""
    rubrics: dict[str, Rubric] = {}
    for rubric in read_jsonl(path, Rubric):
        if content_hash(rubric.task_id, rubric.criteria) != rubric.rubric_hash:
            raise ConfigError(
                f"{path}: the rubric for {rubric.task_id} does not match its hash "
                f"{rubric.rubric_hash}; regenerate it with --force instead of editing it"
            )
        rubrics[rubric.task_id] = rubric
    return rubrics
