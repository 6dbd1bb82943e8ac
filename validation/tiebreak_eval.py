"""The tie-break stage in validation: which tied candidates to compare, and what the
comparisons changed — per-task AUC and best-of-N before and after, and what they cost.

Two kinds of comparisons are planned: the leaders within ε of each task's top score (what
best-of-N needs), and tied resolved/unresolved pairs up to a budget (what the AUC needs).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from judge.judgement import Judgement
from judge.select import pick_all
from judge.tiebreak import Pair, leader_pairs, round_robin_winner


@dataclass
class TieBreakPlan:
    leaders: dict[str, list[str]] = field(default_factory=dict)
    tied: list[Pair] = field(default_factory=list)
    tied_found: int = 0

    @property
    def pairs(self) -> list[Pair]:
        seen: dict[tuple, Pair] = {}
        for task, ids in self.leaders.items():
            for pair in leader_pairs(task, ids, len(ids)):
                seen.setdefault((pair.task_id, *sorted((pair.a, pair.b))), pair)
        for pair in self.tied:
            seen.setdefault((pair.task_id, *sorted((pair.a, pair.b))), pair)
        return list(seen.values())


def _pool(judgements: list[Judgement]) -> list[Judgement]:
    return [
        j
        for j in judgements
        if not j.labels.get("gold") and j.labels.get("condition", "standard") == "standard"
    ]


def _means(judgements: list[Judgement]) -> pd.DataFrame:
    rows = [
        {"task_id": j.task_id, "candidate_id": j.candidate_id, "score": j.rank_score,
         "resolved": bool(j.labels.get("resolved")), "empty": bool(j.labels.get("empty"))
         or "empty_patch" in j.flags}
        for j in _pool(judgements)
    ]  # fmt: skip
    frame = pd.DataFrame(rows, columns=["task_id", "candidate_id", "score", "resolved", "empty"])
    keys = ["task_id", "candidate_id", "resolved", "empty"]
    return frame.groupby(keys, as_index=False)["score"].mean().dropna(subset=["score"])


def plan(judgements: list[Judgement], epsilon: float, budget: int, top_k: int) -> TieBreakPlan:
    result = TieBreakPlan()
    for pick in pick_all(_pool(judgements), epsilon):
        if pick.tied_with:
            result.leaders[pick.task_id] = [pick.candidate_id, *pick.tied_with][:top_k]
    scores = _means(judgements)
    scores = scores[~scores["empty"]]
    pos, neg = scores[scores["resolved"]], scores[~scores["resolved"]]
    pairs = pos.merge(neg, on="task_id", suffixes=("_p", "_n"))
    tied = pairs[(pairs["score_p"] - pairs["score_n"]).abs() <= epsilon + 1e-12]
    result.tied_found = len(tied)
    result.tied = [
        Pair(row.task_id, row.candidate_id_p, row.candidate_id_n)
        for row in tied.sort_values(["task_id", "candidate_id_p", "candidate_id_n"])
        .head(budget)
        .itertuples()
    ]
    return result


def _verdict(verdicts: dict[Pair, str | None], task: str, a: str, b: str) -> str | bool | None:
    """The verdict for a pair in either order; False when it was not compared."""
    for pair in (Pair(task, a, b), Pair(task, b, a)):
        if pair in verdicts:
            return verdicts[pair]
    return False


def _aucs(judgements: list[Judgement], verdicts: dict[Pair, str | None] | None) -> float | None:
    scores = _means(judgements)
    scores = scores[~scores["empty"]]
    pairs = scores[scores["resolved"]].merge(
        scores[~scores["resolved"]], on="task_id", suffixes=("_p", "_n")
    )
    if pairs.empty:
        return None
    diff = pairs["score_p"] - pairs["score_n"]
    won = np.where(diff > 1e-12, 1.0, np.where(diff.abs() <= 1e-12, 0.5, 0.0))
    if verdicts is not None:
        for index, row in enumerate(pairs.itertuples()):
            verdict = _verdict(verdicts, row.task_id, row.candidate_id_p, row.candidate_id_n)
            if verdict is not False:
                won[index] = 0.5 if verdict is None else float(verdict == row.candidate_id_p)
    return float(pd.Series(won).groupby(pairs["task_id"].to_numpy()).mean().mean())


def _pick_rates(judgements, leaders, verdicts, epsilon) -> tuple[float | None, float | None]:
    resolved = {j.candidate_id: bool(j.labels.get("resolved")) for j in judgements}
    picks = pick_all(_pool(judgements), epsilon)
    before = [resolved.get(p.candidate_id, False) for p in picks]
    after = []
    for pick in picks:
        ids = leaders.get(pick.task_id)
        mine = {p: v for p, v in verdicts.items() if p.task_id == pick.task_id and ids}
        winner = round_robin_winner(ids, mine)[0] if mine else None
        after.append(resolved.get(winner or pick.candidate_id, False))
    mean = lambda xs: float(np.mean(xs)) if xs else None  # noqa: E731
    return mean(before), mean(after)


def evaluate(
    judgements: list[Judgement],
    found: TieBreakPlan,
    verdicts: dict[Pair, str | None],
    epsilon: float,
) -> dict:
    decided = [p for p in found.tied if verdicts.get(p) is not None]
    right = sum(verdicts[p] == p.a for p in decided)  # `a` is the resolved one
    before, after = _pick_rates(judgements, found.leaders, verdicts, epsilon)
    return {
        "tied_pairs_found": found.tied_found,
        "tied_pairs_compared": len(found.tied),
        "tied_pairs_decided": len(decided),
        "decided_right": right,
        "tasks_with_tied_leaders": len(found.leaders),
        "comparisons": len(verdicts),
        "auc_before": _aucs(judgements, None),
        "auc_after": _aucs(judgements, verdicts),
        "best_of_n_before": before,
        "best_of_n_after": after,
    }
