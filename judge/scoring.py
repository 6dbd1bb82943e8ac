"""Score and coverage from per-criterion results: the arithmetic in one place.

score = weight of criteria counted yes / weight of criteria that got a valid answer;
coverage = weight answered / total weight. A rubric with nothing answered has no score
(None), never a score of 0.
"""

from __future__ import annotations

from collections.abc import Sequence

from judge.judgement import CriterionResult


def score_and_coverage(results: Sequence[CriterionResult]) -> tuple[float | None, float]:
    total = sum(r.weight for r in results)
    answered = sum(r.weight for r in results if r.answer is not None)
    yes = sum(r.weight for r in results if r.answer is not None and r.counted_yes)
    score = yes / answered if answered else None
    coverage = answered / total if total else 0.0
    return score, coverage
