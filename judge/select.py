"""Best-of-N selection from saved judgements: one pick per task, with the rule that decided it.

Candidates are ranked by mean graded score over repeat runs (P(yes)-weighted; the binary score
where no confidence was recorded), which already breaks most ties between strong candidates.
Scores within `epsilon` of the best are a tie, broken in order by higher coverage, fewer
unverified evidence quotes, the smaller diff and finally the candidate id (stable across runs).
An empty patch is never picked while any
non-empty candidate exists.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict

from judge.judgement import Judgement

RULES = ("coverage", "unverified_evidence", "smaller_diff", "stable_id")


@dataclass(frozen=True)
class Standing:
    """One candidate's record over its runs."""

    task_id: str
    candidate_id: str
    score: float | None
    coverage: float
    unverified: float
    patch_size: int | None
    empty: bool
    labels: dict[str, Any]

    def tie_key(self) -> tuple:
        size = self.patch_size if self.patch_size is not None else math.inf
        return (-self.coverage, self.unverified, size, self.candidate_id)


class Pick(BaseModel):
    model_config = ConfigDict(extra="forbid")

    task_id: str
    candidate_id: str
    score: float | None
    runner_up: str | None = None
    margin: float | None = None
    """Score of the pick minus the runner-up's (0 for a tie broken by a rule)."""
    decided_by: str
    candidates: int
    tied_with: list[str] = []
    labels: dict[str, Any] = {}
    pairwise: dict[str, Any] | None = None


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def standings(judgements: Iterable[Judgement]) -> dict[str, list[Standing]]:
    """Per task, one standing per candidate (scores averaged over scored runs)."""
    runs: dict[tuple[str, str], list[Judgement]] = defaultdict(list)
    for judgement in judgements:
        runs[(judgement.task_id, judgement.candidate_id)].append(judgement)
    by_task: dict[str, list[Standing]] = defaultdict(list)
    for (task_id, candidate_id), group in sorted(runs.items()):
        by_task[task_id].append(_standing(task_id, candidate_id, group))
    return dict(by_task)


def _standing(task_id: str, candidate_id: str, group: list[Judgement]) -> Standing:
    return Standing(
        task_id=task_id,
        candidate_id=candidate_id,
        score=_mean([j.rank_score for j in group if j.rank_score is not None]),
        coverage=_mean([j.coverage for j in group]) or 0.0,
        unverified=_mean([float(j.unverified) for j in group]) or 0.0,
        patch_size=group[0].patch_size,
        empty=any(j.status == "empty" for j in group),
        labels=group[0].labels,
    )


def deciding_rule(first: Standing, second: Standing) -> str:
    """The first tie rule on which two tied candidates differ."""
    for rule, a, b in zip(RULES, first.tie_key(), second.tie_key(), strict=True):
        if a != b:
            return rule
    return "stable_id"


def ranking(pool: list[Standing], epsilon: float) -> tuple[list[Standing], list[Standing]]:
    """(the near-tied leaders in tie-rule order, everyone else by score)."""
    scored = [s for s in pool if s.score is not None]
    if not scored:
        return sorted(pool, key=Standing.tie_key), []
    best = max(s.score for s in scored)
    leaders = sorted((s for s in scored if s.score >= best - epsilon), key=Standing.tie_key)
    rest = sorted(
        (s for s in pool if s not in leaders), key=lambda s: (-(s.score or -1), s.tie_key())
    )
    return leaders, rest


def _decision(leaders: list[Standing], runner_up: Standing | None) -> str:
    if runner_up is None:
        return "only_candidate"
    return "score" if len(leaders) == 1 else deciding_rule(leaders[0], leaders[1])


def _margin(winner: Standing, runner_up: Standing | None) -> float | None:
    if runner_up is None or winner.score is None or runner_up.score is None:
        return None
    return winner.score - runner_up.score


def pick(candidates: list[Standing], epsilon: float = 0.0) -> Pick:
    non_empty = [s for s in candidates if not s.empty]
    leaders, rest = ranking(non_empty or candidates, epsilon)
    order = leaders + rest
    winner = order[0]
    runner_up = order[1] if len(order) > 1 else None
    return Pick(
        task_id=winner.task_id,
        candidate_id=winner.candidate_id,
        score=winner.score,
        runner_up=runner_up.candidate_id if runner_up else None,
        margin=_margin(winner, runner_up),
        decided_by=_decision(leaders, runner_up),
        candidates=len(candidates),
        tied_with=[s.candidate_id for s in leaders[1:]],
        labels=winner.labels,
    )


def pick_all(judgements: Iterable[Judgement], epsilon: float = 0.0) -> list[Pick]:
    return [pick(group, epsilon) for _, group in sorted(standings(judgements).items())]
