"""Loading tasks and candidates from the formats people have, with named errors."""

from __future__ import annotations

import gzip
import json

import pandas as pd
import pytest

from judge.loaders import load_candidates, load_tasks, read_rows
from judge.records import RecordError, candidate_from_row, derived_id, task_from_row

SWE_ROW = {
    "instance_id": "a__b-1",
    "repo": "a/b",
    "base_commit": "c0ffee",
    "problem_statement": "It breaks.",
    "hints_text": "",
    "patch": "diff --git a/x b/x",
    "test_patch": "diff --git a/tests/t b/tests/t",
    "FAIL_TO_PASS": ["tests/t::test_it"],
    "PASS_TO_PASS": [],
    "version": "1.0",
}


def test_swebench_row_loads_and_test_fields_are_withheld():
    task, withheld = task_from_row(SWE_ROW, "f:1")
    assert (task.task_id, task.repo, task.base_commit) == ("a__b-1", "a/b", "c0ffee")
    assert task.reference_patch == "diff --git a/x b/x"
    assert task.hints is None  # empty hints are absent, not ""
    assert set(withheld) == {"test_patch", "FAIL_TO_PASS", "PASS_TO_PASS"}
    assert "test_patch" not in task.model_dump_json()


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({"problem_statement": "x"}, "f:7: no task id"),
        ({"instance_id": "t1", "problem_statement": "  "}, "f:7: task t1 has no description"),
        ({"task_id": "t2"}, "f:7: task t2 has no description"),
    ],
)
def test_bad_tasks_name_the_record(row, message):
    with pytest.raises(RecordError, match=message):
        task_from_row(row, "f:7")


def test_candidate_labels_and_derived_ids():
    row = {"instance_id": "t", "model_name_or_path": "m1", "model_patch": "p", "resolved": True}
    candidate = candidate_from_row(row, "c:1")
    assert candidate.candidate_id == "t@m1"
    assert candidate.labels == {"model_name_or_path": "m1", "resolved": True}
    explicit = candidate_from_row({"task_id": "t", "candidate_id": "x", "patch": ""}, "c:2")
    assert (explicit.candidate_id, explicit.patch, explicit.labels) == ("x", "", {})
    assert derived_id("t", {}, "p").startswith("t@")
    assert derived_id("t", {"system": "s", "candidate_index": 3}, "p") == "t@s#3"


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({"model_patch": "p"}, "no task id"),
        ({"instance_id": "t", "system": "s"}, "has no patch field"),
    ],
)
def test_bad_candidates_name_the_record(row, message):
    with pytest.raises(RecordError, match=message):
        candidate_from_row(row, "c:9")


def _write_jsonl(path, rows, extra_lines=()):
    lines = [json.dumps(r) for r in rows] + list(extra_lines)
    path.write_text("\n".join(lines) + "\n")
    return path


def test_jsonl_tasks_with_bad_lines_load_the_rest(tmp_path):
    path = _write_jsonl(
        tmp_path / "t.jsonl",
        [SWE_ROW, {"instance_id": "nodesc"}, SWE_ROW],
        extra_lines=["{broken", "[1, 2]", ""],
    )
    loaded = load_tasks(path)
    assert list(loaded.tasks) == ["a__b-1"]
    reasons = [str(e) for e in loaded.errors]
    assert f"{path}:2: task nodesc has no description" in reasons
    assert f"{path}:3: duplicate task id a__b-1" in reasons
    assert any(r.startswith(f"{path}:4: not valid JSON") for r in reasons)
    assert f"{path}:5: not an object" in reasons
    assert loaded.withheld["a__b-1"]["FAIL_TO_PASS"] == ["tests/t::test_it"]


def test_json_parquet_and_gzip_tasks(tmp_path):
    (tmp_path / "t.json").write_text(json.dumps([SWE_ROW]))
    pd.DataFrame([SWE_ROW]).to_parquet(tmp_path / "t.parquet")
    with gzip.open(tmp_path / "t.jsonl.gz", "wt") as handle:
        handle.write(json.dumps(SWE_ROW) + "\n")
    for name in ("t.json", "t.parquet", "t.jsonl.gz"):
        loaded = load_tasks(tmp_path / name)
        assert list(loaded.tasks) == ["a__b-1"], name
        assert loaded.withheld["a__b-1"]["FAIL_TO_PASS"] == ["tests/t::test_it"], name


def test_saved_hugging_face_dataset(tmp_path):
    datasets = pytest.importorskip("datasets")
    datasets.Dataset.from_list([SWE_ROW]).save_to_disk(str(tmp_path / "ds"))
    loaded = load_tasks(tmp_path / "ds")
    assert loaded.tasks["a__b-1"].repo == "a/b"
    dict_dir = tmp_path / "dsd"
    datasets.DatasetDict({"test": datasets.Dataset.from_list([SWE_ROW])}).save_to_disk(
        str(dict_dir)
    )
    assert list(load_tasks(dict_dir, split="test").tasks) == ["a__b-1"]


def test_unknown_file_kind_is_an_error(tmp_path):
    (tmp_path / "t.csv").write_text("a,b\n")
    with pytest.raises(RecordError, match=r"not a \.jsonl"):
        read_rows(tmp_path / "t.csv")


def test_duplicate_candidates(tmp_path):
    rows = [
        {"instance_id": "t", "system": "s", "model_patch": "1"},
        {"instance_id": "t", "system": "s", "model_patch": "2"},
        {"instance_id": "t", "candidate_id": "x", "patch": "3"},
        {"instance_id": "t", "candidate_id": "x", "patch": "4"},
    ]
    loaded = load_candidates(_write_jsonl(tmp_path / "c.jsonl", rows))
    assert [c.candidate_id for c in loaded.candidates] == ["t@s", "t@s~2", "x"]
    assert [str(e) for e in loaded.errors] == [
        f"{tmp_path / 'c.jsonl'}:4: duplicate candidate id x"
    ]


def test_real_shared_rows_load(mini):
    loaded = load_candidates(mini / "candidates.jsonl")
    assert len(loaded.candidates) == 7 and not loaded.errors
    assert loaded.candidates[0].labels["model_name_or_path"] == "acme-coder-7b"
