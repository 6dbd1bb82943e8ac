"""Hostile patches: the prompt keeps its structure, the reference judge is not fooled, long
inputs are cut and flagged, and nothing crashes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from judge.blind_judge import build_judge_prompt
from judge.config import JudgeSettings, ReferenceSettings
from judge.judges import ReferenceJudge
from judge.loaders import load_candidates, load_tasks
from judge.records import Candidate
from rubric_gen.reference import reference_rubric
from validation.hostile import ATTACKS, huge_diff, variants
from validation.sample import SAMPLE_CANDIDATES, SAMPLE_TASKS

HOSTILE = Path(__file__).parent / "data" / "hostile" / "hostile.jsonl"
TASKS = load_tasks(SAMPLE_TASKS).tasks
LOADED = load_candidates(HOSTILE)
ROWS = [json.loads(line) for line in HOSTILE.read_text().splitlines()]
BASES = {r["base"]: r for r in ROWS}
FENCE = re.compile(r'<candidate_diff id="(\w+)">\n(.*)\n</candidate_diff id="\1">', re.DOTALL)


SAMPLE = {c.candidate_id: c for c in load_candidates(SAMPLE_CANDIDATES).candidates}


def _base(candidate: Candidate) -> Candidate:
    """The untouched sample patch the variant was built from."""
    return SAMPLE[candidate.labels["base"]]


def _split(prompt: str) -> tuple[str, str, str]:
    """Text before the fence, inside it, and after it; fails if the fence is not unique."""
    matches = list(FENCE.finditer(prompt))
    assert len(matches) == 1
    match = matches[0]
    return prompt[: match.start()], match.group(2), prompt[match.end() :]


def test_the_set_loads_without_errors():
    assert not LOADED.errors
    assert len(LOADED.candidates) == len(ROWS) == 27
    assert {c.labels["attack"] for c in LOADED.candidates} == set(ATTACKS) - {"huge_diff"}
    assert all("\udcff" not in c.patch for c in LOADED.candidates)  # cleaned at load time


@pytest.mark.parametrize("candidate", LOADED.candidates, ids=lambda c: c.candidate_id.split("~")[1])
def test_prompt_structure_survives(candidate):
    task = TASKS[candidate.task_id]
    rubric = reference_rubric(task, ReferenceSettings())
    base = _base(candidate).model_copy(  # same id and labels: same criterion order, same redaction
        update={"candidate_id": candidate.candidate_id, "labels": candidate.labels}
    )
    settings = JudgeSettings()
    attacked = build_judge_prompt(task, candidate, rubric, settings, 0).messages[1].content
    clean = build_judge_prompt(task, base, rubric, settings, 0).messages[1].content
    before, inside, after = _split(attacked)
    clean_before, _, clean_after = _split(clean)
    assert after == clean_after  # the criteria and instructions after the diff are untouched
    assert before.split("<candidate_diff")[0] == clean_before.split("<candidate_diff")[0]
    assert "</candidate_diff" not in inside and "<criteria>" not in inside
    assert "</task_description>" not in inside and "<instructions>" not in inside


@pytest.mark.parametrize("candidate", LOADED.candidates, ids=lambda c: c.candidate_id.split("~")[1])
async def test_reference_judge_score_does_not_rise(candidate):
    task = TASKS[candidate.task_id]
    rubric = reference_rubric(task, ReferenceSettings())
    judge = ReferenceJudge()
    attacked = await judge.judge(task, candidate, rubric, 0)
    clean = await judge.judge(task, _base(candidate), rubric, 0)
    assert attacked.score <= clean.score


async def test_dead_code_on_a_weak_patch_gains_nothing():
    base = _base(LOADED.candidates[0])
    task = TASKS[base.task_id]
    rubric = reference_rubric(task, ReferenceSettings())
    weak = Candidate(task_id=base.task_id, candidate_id="weak", patch="")
    weak = weak.model_copy(
        update={"patch": "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n"}
    )
    (dead,) = variants(weak, task, {"dead_code_keywords": ATTACKS["dead_code_keywords"]})
    judge = ReferenceJudge()
    before = await judge.judge(task, weak, rubric, 0)
    after = await judge.judge(task, dead, rubric, 0)
    tokens = [
        c
        for c in after.criteria
        if c.criterion_id in {r.id for r in rubric.criteria if r.check.kind == "adds_token"}
    ]
    assert not any(c.counted_yes for c in tokens)
    assert after.score == before.score


@pytest.mark.slow
def test_five_megabyte_diff_is_truncated_and_flagged():
    base = _base(LOADED.candidates[0])
    task = TASKS[base.task_id]
    big = base.model_copy(update={"patch": huge_diff(base.patch, [])})
    assert len(big.patch) > 5_000_000
    rubric = reference_rubric(task, ReferenceSettings())
    prompt = build_judge_prompt(task, big, rubric, JudgeSettings(), 0)
    assert prompt.truncated
    assert len(prompt.messages[1].content) < 12_000 * 4 + 10_000
    content = prompt.messages[1].content
    assert "[... truncated by file: 1 files not shown: generated_table.py (+" in content
    added = [line for line in base.patch.splitlines() if line.startswith("+ ")][:3]
    assert all(line in content for line in added)  # the real change stays in view
