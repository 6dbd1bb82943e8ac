"""Append-only JSONL and the frozen rubrics file."""

from __future__ import annotations

import json
import logging

import pytest

from judge.jsonl import JsonlAppender, read_jsonl
from judge.llm.types import ConfigError
from judge.rubric import Criterion, Rubric
from judge.rubric_store import load_rubrics


def _rubric(task_id: str, question: str = "Does `f` change in `m.py`?") -> Rubric:
    criterion = Criterion(id="c1", question=question, weight=3, category="behavior")
    return Rubric(task_id=task_id, criteria=[criterion], generator="g", prompt_hash="p")


def test_appender_writes_one_line_per_record(tmp_path):
    path = tmp_path / "out" / "r.jsonl"
    with JsonlAppender(path) as sink:
        sink.write(_rubric("a"))
        sink.write(_rubric("b"))
    assert [r.task_id for r in read_jsonl(path, Rubric)] == ["a", "b"]
    assert path.read_text().count("\n") == 2


def test_torn_last_line_is_dropped_and_appends_stay_clean(tmp_path, caplog):
    path = tmp_path / "r.jsonl"
    good = _rubric("a").model_dump_json()
    path.write_text(good + "\n" + good[: len(good) // 2])
    with caplog.at_level(logging.WARNING):
        assert [r.task_id for r in read_jsonl(path, Rubric)] == ["a"]
    assert "torn last line" in caplog.text
    assert path.read_text() == good + "\n"
    path.write_text(good + "\n" + good[:10])
    with JsonlAppender(path) as sink:
        sink.write(_rubric("b"))
    assert [r.task_id for r in read_jsonl(path, Rubric)] == ["a", "b"]


def test_damaged_middle_line_is_skipped(tmp_path, caplog):
    path = tmp_path / "r.jsonl"
    good = _rubric("a").model_dump_json()
    path.write_text(f'{good}\n{{"not": "a rubric"}}\n\n{good}\n')
    with caplog.at_level(logging.WARNING):
        assert len(read_jsonl(path, Rubric)) == 2
    assert ":2: skipped" in caplog.text
    assert read_jsonl(tmp_path / "missing.jsonl", Rubric) == []


def test_rubric_hash_covers_criteria_only():
    a, b = _rubric("t"), _rubric("t")
    assert a.rubric_hash == b.rubric_hash and len(a.rubric_hash) == 16
    assert _rubric("t", "Does `g` change in `m.py`?").rubric_hash != a.rubric_hash
    assert _rubric("u").rubric_hash != a.rubric_hash
    assert a.total_weight == 3


def test_newest_rubric_wins_and_edited_rubrics_are_refused(tmp_path):
    path = tmp_path / "rubrics.jsonl"
    old, new = _rubric("t"), _rubric("t", "Does `g` change in `m.py`?")
    path.write_text(old.model_dump_json() + "\n" + new.model_dump_json() + "\n")
    assert load_rubrics(path)["t"].rubric_hash == new.rubric_hash
    edited = json.loads(old.model_dump_json())
    edited["criteria"][0]["weight"] = 5
    path.write_text(json.dumps(edited) + "\n")
    with pytest.raises(ConfigError, match="does not match its hash"):
        load_rubrics(path)
