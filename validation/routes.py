"""Routing-experiment report: which routes (models, harnesses, route names) are as good as the
best on the tasks they share, and which of those is cheapest.

Every statistic is over tasks: a route's score on a task is the mean over its candidates and
runs there; paired comparisons use only the tasks both routes attempted.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable

import numpy as np
import pandas as pd
from scipy import stats

from judge.judgement import Judgement
from validation.metrics import _num, mean_ci


def _number(value: object) -> float | None:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def route_frame(judgements: Iterable[Judgement], by: str, cost: str | None) -> pd.DataFrame:
    """One row per (task, route): mean score, resolve rate and mean cost of its candidates."""
    rows = [
        {
            "task_id": j.task_id,
            "route": str(j.labels[by]),
            "score": j.rank_score,
            "resolved": j.labels.get("resolved"),
            "cost": _number(j.labels.get(cost)) if cost else None,
        }
        for j in judgements
        if by in j.labels and not j.labels.get("gold")
    ]
    frame = pd.DataFrame(rows, columns=["task_id", "route", "score", "resolved", "cost"])
    frame["resolved"] = frame["resolved"].map(lambda v: float(v) if isinstance(v, bool) else np.nan)
    frame[["score", "cost"]] = frame[["score", "cost"]].astype(float)
    return frame.groupby(["route", "task_id"], as_index=False)[["score", "resolved", "cost"]].mean()


def route_table(per_task: pd.DataFrame, n_boot: int = 2000, seed: int = 0) -> pd.DataFrame:
    rows = []
    for route, group in per_task.groupby("route"):
        scores = group["score"].dropna().to_numpy()
        low, high = mean_ci(scores, n_boot, seed)
        mean_cost = _num(group["cost"].mean()) if group["cost"].notna().any() else None
        mean_score = _num(scores.mean()) if len(scores) else None
        rows.append(
            {
                "route": route,
                "tasks": int(group["task_id"].nunique()),
                "mean_score": mean_score,
                "ci_low": low,
                "ci_high": high,
                "resolve_rate": _num(group["resolved"].mean())
                if group["resolved"].notna().any()
                else None,
                "mean_cost": mean_cost,
                "score_per_dollar": _num(mean_score / mean_cost)
                if mean_cost and mean_score is not None
                else None,
            }
        )
    table = pd.DataFrame(rows)
    return table.sort_values("mean_score", ascending=False, na_position="last").reset_index(
        drop=True
    )


def paired_bootstrap(diffs: np.ndarray, n_boot: int, seed: int) -> list[float | None]:
    return mean_ci(diffs, n_boot, seed)


def wilcoxon_p(diffs: np.ndarray) -> float | None:
    """Two-sided Wilcoxon signed-rank p; 1.0 when every difference is zero."""
    if len(diffs) == 0:
        return None
    if np.all(diffs == 0):
        return 1.0
    return _num(stats.wilcoxon(diffs, zero_method="zsplit").pvalue)


def paired_comparisons(per_task: pd.DataFrame, n_boot: int = 2000, seed: int = 0) -> pd.DataFrame:
    wide = per_task.pivot_table(index="task_id", columns="route", values="score")
    rows = []
    for a, b in itertools.permutations(wide.columns, 2):
        both = wide[[a, b]].dropna()
        diffs = (both[a] - both[b]).to_numpy()
        low, high = paired_bootstrap(diffs, n_boot, seed)
        rows.append(
            {
                "route": a,
                "versus": b,
                "common_tasks": len(both),
                "mean_difference": _num(diffs.mean()) if len(diffs) else None,
                "ci_low": low,
                "ci_high": high,
                "wilcoxon_p": wilcoxon_p(diffs),
            }
        )
    columns = [
        "route",
        "versus",
        "common_tasks",
        "mean_difference",
        "ci_low",
        "ci_high",
        "wilcoxon_p",
    ]
    return pd.DataFrame(rows, columns=columns)


def _significant(row: pd.Series, alpha: float, sign: int) -> bool:
    """Is the paired difference significantly below (sign -1) or above (sign +1) zero?"""
    if not row["common_tasks"] or row["ci_low"] is None or row["wilcoxon_p"] is None:
        return False
    outside = row["ci_high"] < 0 if sign < 0 else row["ci_low"] > 0
    return bool(outside and row["wilcoxon_p"] < alpha)


def verdicts(table: pd.DataFrame, pairs: pd.DataFrame, alpha: float = 0.05) -> dict:
    """The best route by mean score; the routes not significantly worse than it on the tasks
    they share with it (paired CI below 0 *and* Wilcoxon p < alpha would be worse); routes
    that are significantly *better* on the shared tasks (their task sets differ, so a lower
    overall mean can hide that); and the cheapest of the top set when costs are known."""
    if table.empty:
        return {
            "best": None,
            "indistinguishable": [],
            "better_on_shared_tasks": [],
            "cheapest_of_those": None,
            "alpha": alpha,
        }
    best = str(table.iloc[0]["route"])
    versus_best = pairs[pairs["versus"] == best].set_index("route")
    same, better = [best], []
    for route in table["route"].iloc[1:]:
        if route not in versus_best.index or not versus_best.loc[route]["common_tasks"]:
            continue
        row = versus_best.loc[route]
        if _significant(row, alpha, +1):
            better.append(str(route))
        if not _significant(row, alpha, -1):
            same.append(str(route))
    priced = table[table["route"].isin(same) & table["mean_cost"].notna()]
    cheapest = str(priced.sort_values("mean_cost").iloc[0]["route"]) if not priced.empty else None
    return {
        "best": best,
        "indistinguishable": same,
        "better_on_shared_tasks": better,
        "cheapest_of_those": cheapest,
        "alpha": alpha,
    }


def pareto_front(table: pd.DataFrame) -> list[str]:
    """Routes no other route beats on both cost (lower) and score (higher)."""
    priced = table.dropna(subset=["mean_cost", "mean_score"])
    front = []
    for _, row in priced.iterrows():
        dominated = (
            (priced["mean_cost"] <= row["mean_cost"])
            & (priced["mean_score"] >= row["mean_score"])
            & (
                (priced["mean_cost"] < row["mean_cost"])
                | (priced["mean_score"] > row["mean_score"])
            )
        ).any()
        if not dominated:
            front.append(str(row["route"]))
    return front
