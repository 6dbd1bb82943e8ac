"""The score and rubrics jobs with bad input, failures mid-way, and resumption."""

from __future__ import annotations

import json

import pytest

from judge.config import load_app_settings
from judge.jsonl import read_jsonl
from judge.judgement import Judgement
from judge.llm.providers.scripted import install_script
from judge.llm.settings import RetrySettings
from judge.llm.types import PermanentError
from judge.rubric import Rubric
from judge.score_run import ScoreJob, score
from rubric_gen.run import RubricJob, generate_rubrics
from tests.scripted_llm import diff_reading_judge, rubric_writer

pytestmark = pytest.mark.integration


@pytest.fixture
def app_settings(tmp_path):
    settings = load_app_settings()
    llm = settings.llm.model_copy(
        update={
            "cache_path": str(tmp_path / "cache.sqlite"),
            "retry": RetrySettings(max_attempts=2, initial_wait_s=0, max_wait_s=0),
        }
    )
    return settings.model_copy(update={"llm": llm})


@pytest.fixture
async def rubrics(mini, tmp_path, app_settings):
    install_script("run-writer", rubric_writer)
    path = tmp_path / "rubrics.jsonl"
    summary = await generate_rubrics(
        RubricJob(str(mini / "tasks.jsonl"), "scripted:run-writer", path), app_settings
    )
    assert summary.generated == 3
    return path


def _job(mini, rubrics, out, judge, candidates=None, tasks=None, runs=1):
    return ScoreJob(
        tasks=str(tasks or mini / "tasks.jsonl"),
        candidates=str(candidates or mini / "candidates.jsonl"),
        rubrics=rubrics,
        judge=judge,
        out_dir=out,
        runs=runs,
    )


async def test_bad_records_are_named_and_the_rest_is_judged(mini, tmp_path, rubrics, app_settings):
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(
        (mini / "tasks.jsonl").read_text() + json.dumps({"instance_id": "nodesc"}) + "\n"
    )
    candidates = tmp_path / "candidates.jsonl"
    extra = [
        {
            "instance_id": "calc__calc-1",
            "model_name_or_path": "prose-bot",
            "model_patch": "I fixed add().",
        },
        {
            "instance_id": "ghost__ghost-9",
            "model_name_or_path": "m",
            "model_patch": "diff --git a/x b/x",
        },
    ]
    candidates.write_text(
        (mini / "candidates.jsonl").read_text()
        + "".join(json.dumps(r) + "\n" for r in extra)
        + "{broken\n"
    )
    other_rubrics = tmp_path / "other.jsonl"  # rubrics for calc and text only
    other_rubrics.write_text(
        "".join(
            r.model_dump_json() + "\n"
            for r in read_jsonl(rubrics, Rubric)
            if r.task_id != "net__net-3"
        )
    )
    install_script("run-judge", diff_reading_judge)
    out = tmp_path / "run"
    summary = await score(
        _job(mini, other_rubrics, out, "scripted:run-judge", candidates, tasks), app_settings
    )
    reasons = " | ".join(f"{e.record}: {e.reason}" for e in summary.errors)
    assert f"{tasks}:4: task nodesc has no description" in reasons
    assert "calc__calc-1@prose-bot: no file header" in reasons
    assert "unknown task id ghost__ghost-9" in reasons
    assert f"{candidates}:10: not valid JSON" in reasons
    assert "no rubric for task net__net-3" in reasons and "rubrics for 2 other tasks" in reasons
    judged = {j.candidate_id for j in read_jsonl(out / "judgements.jsonl", Judgement)}
    assert len(judged) == 5 and not any(c.startswith("net__") for c in judged)
    on_disk = [json.loads(line) for line in (out / "errors.jsonl").read_text().splitlines()]
    assert len(on_disk) == len(summary.errors) == 6


async def test_failure_mid_run_then_resume_judges_each_candidate_once(
    mini, tmp_path, rubrics, app_settings
):
    calls = 0

    def crashing(call):
        nonlocal calls
        calls += 1
        return PermanentError("scripted crash") if calls > 3 else diff_reading_judge(call)

    install_script("run-crash", crashing)
    out = tmp_path / "run"
    app_settings.llm.concurrency = 1
    first = await score(_job(mini, rubrics, out, "scripted:run-crash", runs=2), app_settings)
    assert first.judged < 14 and len(first.errors) == 14 - first.judged
    assert all("scripted crash" in e.reason for e in first.errors)
    install_script("run-crash", diff_reading_judge)
    second = await score(_job(mini, rubrics, out, "scripted:run-crash", runs=2), app_settings)
    assert second.skipped_done == first.judged
    assert second.errors == []
    keys = [j.key for j in read_jsonl(out / "judgements.jsonl", Judgement)]
    assert len(keys) == len(set(keys)) == 14  # seven candidates, two runs, each exactly once
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["counts"]["judgements_on_disk"] == 14


async def test_rubric_failures_are_reported_and_the_run_goes_on(mini, tmp_path, app_settings):
    def picky(call):
        if "net__net-3" in call.messages[-1].content:
            return {"criteria": []}
        return rubric_writer(call)

    install_script("run-picky", picky)
    path = tmp_path / "rubrics.jsonl"
    summary = await generate_rubrics(
        RubricJob(str(mini / "tasks.jsonl"), "scripted:run-picky", path), app_settings
    )
    assert summary.generated == 2
    assert [e.record for e in summary.errors] == ["net__net-3"]
    assert "failed lint twice" in summary.errors[0].reason
    forced = await generate_rubrics(
        RubricJob(str(mini / "tasks.jsonl"), "scripted:run-picky", path, force=True), app_settings
    )
    assert forced.generated == 2 and forced.skipped_existing == 0
