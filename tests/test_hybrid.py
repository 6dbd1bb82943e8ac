"""Hybrid judging: checked criteria answered statically, the rest by the LLM; and LLM rubrics
that carry checks."""

from __future__ import annotations

import pytest

from judge.config import JudgeSettings, RubricSettings
from judge.judges import LLMJudge, make_judge
from judge.llm.providers.scripted import install_script
from judge.records import Candidate, Task
from judge.rubric import Check, Criterion, Rubric
from rubric_gen.generator import NumberedDraft, generate_rubric
from rubric_gen.lint import lint_rubric

PATCH = (
    "diff --git a/geo.py b/geo.py\n--- a/geo.py\n+++ b/geo.py\n"
    "@@ -1,2 +1,2 @@ def area(r):\n-    return 3 * r\n+    return math.pi * r ** 2\n"
)
TASK = Task(task_id="t", description="`area()` is wrong for circles.")
CANDIDATE = Candidate(task_id="t", candidate_id="t@x", patch=PATCH)
CHECKED = [
    Criterion(
        id="c1",
        question="Does the patch modify `geo.py`?",
        weight=2,
        category="localization",
        check=Check(kind="touches_file", path="geo.py"),
    ),
    Criterion(
        id="c2",
        question="Does the patch introduce `math.pi`?",
        weight=1,
        category="behavior",
        check=Check(kind="adds_token", token="radius_squared"),
    ),
]
OPEN = [
    Criterion(
        id="c3", question="Does `area` compute pi * r squared?", weight=5, category="root_cause"
    ),
]
RUBRIC = Rubric(task_id="t", criteria=CHECKED + OPEN, generator="g", prompt_hash="p")


async def test_hybrid_sends_only_unchecked_criteria(make_client):
    script = install_script(
        "hybrid", [{"c3": {"reason": "r", "evidence": "return math.pi * r ** 2", "answer": "yes"}}]
    )
    judge = LLMJudge(make_client().model("scripted:hybrid"), JudgeSettings(), hybrid=True)
    judgement = await judge.judge(TASK, CANDIDATE, RUBRIC, 0)
    prompt = script.calls[0].prompt
    assert "c3: Does `area`" in prompt and "c1:" not in prompt and "c2:" not in prompt
    answerers = {c.criterion_id: c.answerer for c in judgement.criteria}
    assert answerers == {"c1": "static", "c2": "static", "c3": "llm"}
    assert judgement.score == pytest.approx((2 + 0 + 5) / (2 + 1 + 5))
    assert judgement.coverage == 1.0
    assert judgement.rubric_hash == RUBRIC.rubric_hash


async def test_hybrid_with_only_checked_criteria_makes_no_call(make_client):
    script = install_script("hybrid-none", [])
    rubric = RUBRIC.model_copy(update={"criteria": CHECKED})
    judge = make_judge("scripted:hybrid-none", make_client(), JudgeSettings(), hybrid=True)
    judgement = await judge.judge(TASK, CANDIDATE, rubric, 0)
    assert script.calls == []
    assert judgement.score == pytest.approx(2 / 3)
    assert judgement.usage.calls == 0


async def test_unparsed_llm_part_leaves_no_score(make_client):
    install_script("hybrid-bad", ["nope", "still nope"])
    judge = LLMJudge(make_client().model("scripted:hybrid-bad"), JudgeSettings(), hybrid=True)
    judgement = await judge.judge(TASK, CANDIDATE, RUBRIC, 0)
    assert judgement.status == "unparsed" and judgement.score is None
    assert judgement.coverage == pytest.approx((2 + 1) / (2 + 1 + 5))


async def test_without_hybrid_every_criterion_goes_to_the_llm(make_client):
    answers = {cid: {"reason": "r", "evidence": "", "answer": "no"} for cid in ("c1", "c2", "c3")}
    script = install_script("not-hybrid", [answers])
    judgement = await LLMJudge(make_client().model("scripted:not-hybrid"), JudgeSettings()).judge(
        TASK, CANDIDATE, RUBRIC, 0
    )
    assert all(f"{cid}:" in script.calls[0].prompt for cid in ("c1", "c2", "c3"))
    assert {c.answerer for c in judgement.criteria} == {"llm"}


def _draft(check):
    return {
        "question": "Does the patch modify `geo.py` for circles?",
        "weight": 3,
        "category": "localization",
        "anchors": ["geo.py"],
        "rationale": "r",
        "check": check,
    }


async def test_llm_rubrics_keep_their_checks(make_client):
    rows = [
        _draft({"kind": "touches_file", "path": "geo.py", "symbol": None, "token": None}),
        *[
            {**_draft(None), "question": f"Does `area` handle case {i} of `r` in `geo.py`?"}
            for i in range(4)
        ],
    ]
    install_script("gen-checks", [{"criteria": rows}])
    rubric = await generate_rubric(
        make_client().model("scripted:gen-checks"), TASK, RubricSettings()
    )
    assert rubric.criteria[0].check == Check(kind="touches_file", path="geo.py")
    assert all(c.check is None for c in rubric.criteria[1:])


def test_lint_rejects_checks_without_their_fields():
    items = [
        NumberedDraft(
            id="c1",
            question="Does the patch modify `geo.py`?",
            weight=2,
            category="localization",
            check={"kind": "changes_symbol", "path": "geo.py", "symbol": None},
        )
    ]
    assert "c1 has a changes_symbol check without symbol" in lint_rubric(items, RubricSettings())
