"""Streaming stages keep their output byte-identical to the in-memory ones (golden files made
before the change, with `created_at` blanked), with or without prompt workers; they resume
without rescanning per item, and a torn last line is still cut off by reading only the file's
tail."""

from __future__ import annotations

import pytest

from judge.jsonl import iter_json_rows, read_jsonl
from judge.judgement import Judgement
from judge.llm.providers.scripted import install_script
from judge.score_run import ScoreJob, done_keys, score
from tests.scripted_llm import diff_reading_judge

pytestmark = pytest.mark.integration
WORKERS = pytest.mark.parametrize("workers", [0, 2], ids=["in-process", "two-prompt-workers"])


@WORKERS
async def test_judgements_are_byte_identical_to_the_in_memory_version(
    mini, tmp_path, mini_rubrics, golden, normalised, workers, with_workers
):
    settings, rubrics = mini_rubrics
    settings = with_workers(settings, workers)
    install_script("golden", diff_reading_judge)
    job = ScoreJob(str(mini / "tasks.jsonl"), str(mini / "candidates.jsonl"), rubrics,
                   "scripted:golden", tmp_path / "run", runs=2)  # fmt: skip
    summary = await score(job, settings)
    assert summary.judged == 14 and summary.errors == []
    ours = normalised(tmp_path / "run" / "judgements.jsonl")
    assert ours == (golden / "score_mini.jsonl").read_text().splitlines()
    again = await score(job, settings)
    assert (again.judged, again.skipped_done) == (0, 14)


@WORKERS
async def test_exported_requests_are_byte_identical(
    mini, tmp_path, mini_rubrics, golden, workers, with_workers
):
    settings, rubrics = mini_rubrics
    settings = with_workers(settings, workers)
    job = ScoreJob(str(mini / "tasks.jsonl"), str(mini / "candidates.jsonl"), rubrics,
                   "openai:gpt-4.1-mini", tmp_path / "run", runs=2)  # fmt: skip
    summary = await score(job, settings, export=tmp_path / "req.jsonl")
    assert summary.exported == 12
    assert (tmp_path / "req.jsonl").read_bytes() == (golden / "export_mini.jsonl").read_bytes()


def test_resume_keys_and_torn_tails(tmp_path):
    path = tmp_path / "j.jsonl"
    path.write_text(
        '{"candidate_id": "a", "run_index": 0}\n{"candidate_id": "a", "run_index": 1}\n'
        '{"candidate_id": "b"}\n{"candidate_id": "c", "run_in'
    )
    assert done_keys(path) == {("a", 0), ("a", 1), ("b", 0)}
    assert path.read_text().endswith('{"candidate_id": "b"}\n')  # the torn line is gone
    assert [r["candidate_id"] for r in iter_json_rows(path)] == ["a", "a", "b"]
    assert done_keys(tmp_path / "missing.jsonl") == set()
    assert read_jsonl(tmp_path / "missing.jsonl", Judgement) == []


async def test_the_table_read_from_the_file_equals_the_one_from_objects(mini, tmp_path,
                                                                        mini_rubrics):  # fmt: skip
    import pandas as pd

    from validation.frame import frame_from_file, judgements_frame

    settings, rubrics = mini_rubrics
    install_script("frame-judge", diff_reading_judge)
    job = ScoreJob(str(mini / "tasks.jsonl"), str(mini / "candidates.jsonl"), rubrics,
                   "scripted:frame-judge", tmp_path / "run", runs=2)  # fmt: skip
    await score(job, settings)
    path = tmp_path / "run" / "judgements.jsonl"
    streamed = frame_from_file(path)
    objects = judgements_frame(read_jsonl(path, Judgement))
    assert len(streamed) == 14
    pd.testing.assert_frame_equal(streamed, objects, check_dtype=False)


async def test_export_opens_a_new_file_at_the_provider_limits(
    mini, tmp_path, mini_rubrics, monkeypatch, golden
):
    import json

    from judge.llm import batch_files

    monkeypatch.setattr(batch_files, "MAX_FILE_REQUESTS", 5)
    settings, rubrics = mini_rubrics
    job = ScoreJob(str(mini / "tasks.jsonl"), str(mini / "candidates.jsonl"), rubrics,
                   "openai:gpt-4.1-mini", tmp_path / "run", runs=2)  # fmt: skip
    for stale in ("req.part4.jsonl", "req.part4.jsonl.specs.json", "req.part5.jsonl"):
        (tmp_path / stale).write_text("left by an earlier, larger export\n")
    summary = await score(job, settings, export=tmp_path / "req.jsonl")
    assert not any(tmp_path.glob("req.part[45]*"))  # this export's files, and only those
    parts = [tmp_path / "req.jsonl", tmp_path / "req.part2.jsonl", tmp_path / "req.part3.jsonl"]
    assert summary.exported == 12 and not (tmp_path / "req.part4.jsonl").exists()
    sizes = [len(p.read_text().splitlines()) for p in parts]
    assert sizes == [5, 5, 2]
    joined = b"".join(p.read_bytes() for p in parts)
    assert joined == (golden / "export_mini.jsonl").read_bytes()  # the same lines, split
    for part in parts:
        specs = json.loads(part.with_name(part.name + ".specs.json").read_text())
        ids = {json.loads(line)["custom_id"] for line in part.read_text().splitlines()}
        assert set(specs) == ids
