"""Score and coverage from per-criterion results: the arithmetic in one place.

score = (weight of achievement criteria counted yes - weight of preservation criteria not met)
        / weight of achievement criteria that got a valid answer, and never below 0;
coverage = weight answered / total weight. A rubric with nothing answered has no score
(None), never a score of 0.

Preservation criteria ("does the patch keep X working?") are met by untouched code, so they must
never earn points: a patch that only adds a reproduction script would otherwise collect their
weight and outrank an attempted fix. They only subtract when the patch breaks what they protect,
and a patch that achieves nothing scores 0.
"""

from __future__ import annotations

from collections.abc import Sequence

from judge.judgement import CriterionResult


def _credit(result: CriterionResult) -> float:
    """How much of a criterion's weight counts as met: P(yes), but a "yes" that does not count
    (unverified evidence) earns nothing, as in the binary score."""
    if result.answer == "yes" and not result.counted_yes:
        return 0.0
    if result.p_yes is None:
        return 1.0 if result.counted_yes else 0.0
    return result.p_yes


def _binary(result: CriterionResult) -> float:
    return 1.0 if result.counted_yes else 0.0


def _weighted(results: Sequence[CriterionResult], credit) -> float | None:
    """(met achievement weight - broken preservation weight) / answered achievement weight,
    at least 0; `credit` says how much of a criterion is met (1/0, or P(yes)). None when
    nothing was answered."""
    answered = [r for r in results if r.answer is not None]
    if not answered:
        return None
    base = met = broken = 0.0
    for result in answered:
        weight, earned = result.weight, credit(result)
        if result.preservation:
            broken += weight * (1.0 - earned)
        else:
            base, met = base + weight, met + weight * earned
    return max(met - broken, 0.0) / base if base else 0.0


def graded_score(results: Sequence[CriterionResult]) -> float | None:
    """The score's arithmetic with each answer's P(yes) in place of yes/no."""
    return _weighted(results, _credit)


def score_and_coverage(results: Sequence[CriterionResult]) -> tuple[float | None, float]:
    total = sum(r.weight for r in results)
    answered = sum(r.weight for r in results if r.answer is not None)
    return _weighted(results, _binary), (answered / total if total else 0.0)
