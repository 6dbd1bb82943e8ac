"""Prompt workers (their judgements and exports are checked against the golden files in
test_streaming.py): a bad diff is reported the same way, order is kept, and the candidate
stream is read only a few chunks ahead."""

from __future__ import annotations

import json
import shutil

import pytest

from judge import prompt_pool
from judge.jsonl import read_jsonl
from judge.judges import LLMJudge
from judge.llm.client import LLMClient
from judge.llm.providers.scripted import install_script
from judge.prompt_pool import (
    CHUNK,
    BuildFailure,
    PromptJob,
    PromptPool,
    auto_workers,
    build_prompt,
)
from judge.records import Candidate
from judge.rubric import Rubric
from judge.score_run import ScoreJob, score
from tests.scripted_llm import diff_reading_judge

pytestmark = pytest.mark.integration


async def test_a_bad_diff_is_reported_alike_with_and_without_workers(
    mini, tmp_path, mini_rubrics, with_workers
):
    settings, rubrics = mini_rubrics
    rows = (mini / "candidates.jsonl").read_text().splitlines()
    broken = {**json.loads(rows[1]), "model_patch": "--- a/x\n+++ b/x\n@@ nonsense @@\n+x\n"}
    candidates = tmp_path / "c.jsonl"
    candidates.write_text("\n".join([rows[0], json.dumps(broken), *rows[2:]]) + "\n")
    install_script("pool-errors", diff_reading_judge)
    reasons = {}
    for workers in (0, 2):
        forced = with_workers(settings, workers)
        out = tmp_path / f"run{workers}"
        job = ScoreJob(str(mini / "tasks.jsonl"), str(candidates), rubrics,
                       "scripted:pool-errors", out)  # fmt: skip
        summary = await score(job, forced)
        assert summary.judged == 6 and len(summary.errors) == 1
        reasons[workers] = summary.errors[0].reason
        shutil.rmtree(out)
    assert reasons[0] == reasons[2] and "malformed hunk header" in reasons[0]


def test_the_pool_keeps_order_and_reads_only_a_few_chunks_ahead(mini, mini_rubrics, tmp_path):
    settings, rubrics_path = mini_rubrics
    from judge.loaders import iter_candidates, load_tasks

    tasks = load_tasks(str(mini / "tasks.jsonl")).tasks
    rubrics = {r.task_id: r for r in read_jsonl(rubrics_path, Rubric)}
    candidates = list(iter_candidates(str(mini / "candidates.jsonl")))
    drawn = []

    def stream():
        for index in range(CHUNK * 20):
            drawn.append(index)
            yield candidates[index % len(candidates)], index

    job = PromptJob(tasks, rubrics, settings.judge, hybrid=False, confidence="none")
    with PromptPool(job, workers=1) as pool:
        built = pool.build(stream())
        first = next(built)
        assert len(drawn) <= CHUNK * (prompt_pool.CHUNKS_AHEAD_PER_WORKER + 2)
        rest = list(built)
    assert [run for _, run, _ in [first, *rest]] == list(range(CHUNK * 20))
    for candidate, run, prompt in [first, *rest][:14]:
        assert prompt == build_prompt(job, candidate, run)  # the same as built in-process


@pytest.mark.parametrize(
    ("setting", "planned", "cores", "allowed", "expected"),
    [
        (3, 10, 1, False, 3),  # a number set is a number used
        (0, 10**6, 8, True, 0),
        (None, 10**6, 8, False, 0),  # the library never starts workers on its own
        (None, 10**6, 8, True, 4),  # at most four
        (None, 10**6, 2, True, 1),  # one core stays with the main process
        (None, 10**6, 1, True, 0),
        (None, 100, 8, True, 0),  # a small run: not worth starting them
    ],
)
def test_how_many_workers(setting, planned, cores, allowed, expected, monkeypatch):
    monkeypatch.setitem(prompt_pool._AUTO, "allowed", allowed)
    assert auto_workers(setting, planned, cores) == expected


async def test_an_empty_patch_needs_no_prompt_and_a_failure_stays_with_its_candidate(
    mini_rubrics,
):
    settings, _ = mini_rubrics
    job = PromptJob({}, {}, settings.judge, hybrid=False, confidence="none")
    empty = Candidate(task_id="t", candidate_id="t@x", patch="  \n")
    assert build_prompt(job, empty, 0) is None
    lost = Candidate(task_id="t", candidate_id="t@y", patch="--- a/x\n+++ b/x\n")
    failure = build_prompt(job, lost, 0)  # its task is unknown to the job
    assert isinstance(failure, BuildFailure) and str(failure) == "'t'"
    install_script("pool-failure", diff_reading_judge)
    client = LLMClient(settings.llm, use_cache=False)
    judge = LLMJudge(client.model("scripted:pool-failure"), settings.judge)
    with pytest.raises(BuildFailure, match="'t'"):
        await judge.judge_built(lost, Rubric.model_construct(task_id="t", criteria=[]), 0, failure)
    await client.aclose()
