"""The blind judge on the scripted provider: what it is shown, and how answers become a score."""

from __future__ import annotations

import pytest

from judge.blind_judge import build_judge_prompt, criterion_order, reply_model
from judge.config import JudgeSettings
from judge.diff import DiffError
from judge.judges import LLMJudge
from judge.llm.providers.scripted import install_script
from judge.llm.schema import json_schema
from judge.loaders import load_tasks
from judge.records import Candidate, Task
from judge.rubric import Criterion, Rubric

TASK = Task(task_id="t1", description="`area()` returns the wrong value for circles.")
PATCH = """diff --git a/geo.py b/geo.py
--- a/geo.py
+++ b/geo.py
@@ -1,2 +1,3 @@ def area(r):
-    return 3 * r
+    import math
+    return math.pi * r ** 2  # by acme-coder-7b
"""
RUBRIC = Rubric(
    task_id="t1",
    generator="scripted:test",
    prompt_hash="p",
    criteria=[
        Criterion(
            id="c1",
            question="Does the patch change `area` in geo.py?",
            weight=2,
            category="localization",
        ),
        Criterion(
            id="c2", question="Does `area` use `math.pi * r ** 2`?", weight=5, category="root_cause"
        ),
        Criterion(
            id="c3",
            question="Does `area` reject negative `r` with `ValueError`?",
            weight=3,
            category="edge_cases",
        ),
    ],
)
LABELS = {"model_name_or_path": "acme-coder-7b", "harness": "HarnessX-9", "route": "route-blue"}
CANDIDATE = Candidate(task_id="t1", candidate_id="t1@acme", patch=PATCH, labels=LABELS)


async def judge_candidate(model, task, candidate, rubric, settings, run=0):
    return await LLMJudge(model, settings).judge(task, candidate, rubric, run)


def _reply(c1=("yes", "+    import math"), c2=("yes", "return math.pi * r ** 2"), c3=("no", "")):
    return {
        cid: {"reason": "r", "evidence": ev, "answer": ans}
        for cid, (ans, ev) in (("c1", c1), ("c2", c2), ("c3", c3))
    }


def test_prompt_is_blind_to_labels_and_tests(mini):
    loaded = load_tasks(mini / "tasks.jsonl")
    task = loaded.tasks["calc__calc-1"]
    candidate = Candidate(task_id=task.task_id, candidate_id="x", patch=PATCH, labels=LABELS)
    rubric = RUBRIC.model_copy(update={"task_id": task.task_id})
    prompt = build_judge_prompt(task, candidate, rubric, JudgeSettings(), 0)
    text = "\n".join(m.content for m in prompt.messages).lower()
    for secret in [*LABELS.values(), "secret_marker_xyz", "test_patch", "fail_to_pass"]:
        assert secret.lower() not in text
    assert "math.pi * r ** 2" in text  # the code itself is shown
    assert "weight" not in text and "rationale" not in text


async def test_score_is_the_weighted_share_of_yes(make_client):
    install_script("judge-score", [_reply()])
    model = make_client().model("scripted:judge-score")
    judgement = await judge_candidate(model, TASK, CANDIDATE, RUBRIC, JudgeSettings())
    assert judgement.status == "scored"
    assert judgement.score == pytest.approx((2 + 5) / (2 + 5 + 3))
    assert judgement.coverage == 1.0
    assert judgement.flags == []
    assert [c.verified for c in judgement.criteria] == [True, True, None]


@pytest.mark.parametrize(
    ("strict", "expected_score"),
    [(True, 2 / (2 + 5 + 3)), (False, (2 + 5) / (2 + 5 + 3))],
)
async def test_unverified_evidence_counts_as_no_when_strict(make_client, strict, expected_score):
    install_script("judge-lie", [_reply(c2=("yes", "return 3.14159 * r * r"))])
    model = make_client().model("scripted:judge-lie")
    settings = JudgeSettings(strict_evidence=strict)
    judgement = await judge_candidate(model, TASK, CANDIDATE, RUBRIC, settings)
    c2 = next(c for c in judgement.criteria if c.criterion_id == "c2")
    assert (c2.answer, c2.verified, c2.counted_yes) == ("yes", False, not strict)
    assert judgement.score == pytest.approx(expected_score)
    assert "unverified_evidence" in judgement.flags
    assert judgement.unverified == 1


async def test_unparsed_reply_has_no_score_and_zero_coverage(make_client):
    install_script("judge-garbage", ["I think it is fine.", "Still not JSON."])
    model = make_client().model("scripted:judge-garbage")
    judgement = await judge_candidate(model, TASK, CANDIDATE, RUBRIC, JudgeSettings())
    assert (judgement.status, judgement.score, judgement.coverage) == ("unparsed", None, 0.0)
    assert judgement.raw_reply == "Still not JSON."
    assert "invalid reply after one repair" in judgement.reason
    assert all(c.answer is None for c in judgement.criteria)


async def test_long_diffs_are_truncated_and_flagged(make_client):
    script = install_script("judge-trunc", [_reply(c1=("no", ""), c2=("no", ""))])
    big = PATCH + "".join(f"+# filler line {i}\n" for i in range(2000))
    candidate = CANDIDATE.model_copy(update={"patch": big})
    settings = JudgeSettings(max_diff_tokens=200)
    judgement = await judge_candidate(
        make_client().model("scripted:judge-trunc"), TASK, candidate, RUBRIC, settings
    )
    assert "truncated" in judgement.flags
    assert "[... truncated:" in script.calls[0].prompt
    assert len(script.calls[0].prompt) < 4000


async def test_empty_patch_is_zero_without_a_call(make_client):
    script = install_script("judge-empty", [])
    candidate = CANDIDATE.model_copy(update={"patch": "  \n"})
    judgement = await judge_candidate(
        make_client().model("scripted:judge-empty"), TASK, candidate, RUBRIC, JudgeSettings()
    )
    assert (judgement.status, judgement.score, judgement.coverage) == ("empty", 0.0, 1.0)
    assert script.calls == []
    assert all(c.answer == "no" for c in judgement.criteria)


def test_malformed_diff_is_refused_before_any_call():
    candidate = CANDIDATE.model_copy(update={"patch": "I changed geo.py to use math.pi"})
    with pytest.raises(DiffError, match="not a unified diff"):
        build_judge_prompt(TASK, candidate, RUBRIC, JudgeSettings(), 0)


def test_criterion_order_is_seeded_per_candidate_and_run():
    rubric = RUBRIC.model_copy(update={"criteria": RUBRIC.criteria * 1})
    orders = {criterion_order(rubric, f"cand{i}", run, 0) for i in range(6) for run in range(3)}
    assert len(orders) > 1  # shuffled
    assert criterion_order(rubric, "cand1", 0, 0) == criterion_order(rubric, "cand1", 0, 0)
    assert all(sorted(o) == ["c1", "c2", "c3"] for o in orders)


async def test_recorded_order_is_the_order_shown(make_client):
    script = install_script("judge-order", [_reply()])
    judgement = await judge_candidate(
        make_client().model("scripted:judge-order"),
        TASK,
        CANDIDATE,
        RUBRIC,
        JudgeSettings(shuffle_seed=7),
    )
    positions = [script.calls[0].prompt.index(f"\n{cid}: ") for cid in judgement.order]
    assert positions == sorted(positions)


def test_reply_schema_requires_exactly_the_offered_ids():
    assert reply_model(("c2", "c1")) is reply_model(("c1", "c2"))  # one model for every order
    schema = json_schema(reply_model(("c2", "c1")), ("c2", "c1"))
    assert list(schema["properties"]) == ["c2", "c1"]
    assert sorted(schema["required"]) == ["c1", "c2"]
    assert schema["additionalProperties"] is False
    with pytest.raises(ValueError):
        reply_model(("c1",)).model_validate(
            {"c1": {"reason": "", "evidence": "", "answer": "maybe"}}
        )
