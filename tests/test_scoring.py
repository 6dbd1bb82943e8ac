"""Scoring with preservation criteria: they never earn points, only take them away; and a
preservation "yes" needs no quote when the code it names is untouched."""

from __future__ import annotations

import pytest

from judge.blind_judge import answers_to_results, reply_model
from judge.judgement import CriterionResult
from judge.rubric import Criterion, Rubric
from judge.scoring import score_and_coverage


def _r(weight: int, answer: str | None, counted: bool, preservation: bool = False):
    return CriterionResult(criterion_id=f"c{weight}{answer}", weight=weight, answer=answer,
                           counted_yes=counted, preservation=preservation)  # fmt: skip


@pytest.mark.parametrize(
    ("results", "score", "coverage"),
    [
        # plain rubric: the weighted share of yes, as before
        ([_r(5, "yes", True), _r(3, "no", False)], 5 / (5 + 3), 1.0),
        # a patch that does nothing: preservation met, nothing achieved → 0, not 2/10
        ([_r(5, "no", False), _r(3, "no", False), _r(2, "yes", True, True)], 0.0, 1.0),
        # broken preservation subtracts its weight from the met achievement weight
        ([_r(5, "yes", True), _r(3, "no", False), _r(2, "no", False, True)], (5 - 2) / 8, 1.0),
        # never below 0
        ([_r(1, "yes", True), _r(3, "no", False, True)], 0.0, 1.0),
        # unanswered criteria lower coverage, not the score
        ([_r(5, "yes", True), _r(5, None, False), _r(2, "yes", True, True)], 1.0, 7 / 12),
        ([_r(5, None, False)], None, 0.0),
    ],
)
def test_score_with_preservation(results, score, coverage):
    got_score, got_coverage = score_and_coverage(results)
    assert got_score == (None if score is None else pytest.approx(score))
    assert got_coverage == pytest.approx(coverage)


RUBRIC = Rubric(
    task_id="t", generator="g", prompt_hash="p",
    criteria=[
        Criterion(id="c1", question="Does `area` use `math.pi`?", weight=5, category="root_cause"),
        Criterion(id="c2", question="Does `perimeter` keep working?", weight=2,
                  category="preservation", anchors=["perimeter"]),
    ],
)  # fmt: skip
DIFF = "diff --git a/geo.py b/geo.py\n@@ -1 +1 @@\n-    return 3 * r\n+    return math.pi * r\n"


def _reply(c2_evidence: str = "", c2_answer: str = "yes"):
    model = reply_model(("c1", "c2"))
    return model.model_validate({
        "c1": {"reason": "r", "evidence": "return math.pi * r", "answer": "yes"},
        "c2": {"reason": "r", "evidence": c2_evidence, "answer": c2_answer},
    })  # fmt: skip


def test_an_untouched_preservation_yes_needs_no_quote():
    results = answers_to_results(RUBRIC, _reply(), DIFF, strict=True)
    c2 = results[1]
    assert (c2.preservation, c2.verified, c2.counted_yes) == (True, True, True)
    assert score_and_coverage(results) == (1.0, 1.0)


def test_a_preservation_yes_on_touched_code_needs_its_quote():
    touched = DIFF + "@@ -9 +9 @@ def perimeter(r):\n-    return 6 * r\n+    return 2 * r\n"
    results = answers_to_results(RUBRIC, _reply(), touched, strict=True)
    assert (results[1].verified, results[1].counted_yes) == (False, False)
    assert score_and_coverage(results)[0] == pytest.approx((5 - 2) / 5)
    quoted = answers_to_results(RUBRIC, _reply("+    return 2 * r"), touched, strict=True)
    assert (quoted[1].verified, quoted[1].counted_yes) == (True, True)
    assert score_and_coverage(quoted)[0] == 1.0
