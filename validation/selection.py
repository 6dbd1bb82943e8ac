"""How good are best-of-N picks? Resolve rate of the picks against a random pick, the best
single system and the oracle, on tasks with at least two candidates."""

from __future__ import annotations

import numpy as np
import pandas as pd

from judge.select import Pick
from validation.metrics import _num

PUBLISHED = {
    "gap_closed": "≈ 0.59 (hybrid verifier, best of 16)",
    "over_single_attempt": "+3.5 to +11 points",
}


def selection_table(picks: list[Pick], candidates: pd.DataFrame) -> pd.DataFrame:
    """Per task: picked resolved?, random (share resolved), oracle (any resolved).

    `candidates` has one row per candidate: task_id, candidate_id, system, resolved."""
    picked = {p.task_id: p.candidate_id for p in picks}
    rows = []
    for task, group in candidates.groupby("task_id"):
        if len(group) < 2 or task not in picked:
            continue
        chosen = group[group["candidate_id"] == picked[task]]
        rows.append(
            {
                "task_id": task,
                "picked": float(chosen["resolved"].iloc[0]) if len(chosen) else 0.0,
                "random": float(group["resolved"].mean()),
                "oracle": float(group["resolved"].any()),
            }
        )
    return pd.DataFrame(rows, columns=["task_id", "picked", "random", "oracle"])


def best_single_system(
    candidates: pd.DataFrame, tasks: list[str]
) -> tuple[str | None, float | None]:
    """The system with the highest expected resolve rate over the tasks (a task it did not
    attempt counts as unresolved; several attempts count as their mean)."""
    pool = candidates[candidates["task_id"].isin(tasks)]
    if pool.empty:
        return None, None
    per_task = pool.groupby(["system", "task_id"])["resolved"].mean().unstack(fill_value=0.0)
    per_task = per_task.reindex(columns=tasks, fill_value=0.0)
    rates = per_task.mean(axis=1)
    return str(rates.idxmax()), _num(rates.max())


def _gap(table: pd.DataFrame) -> float | None:
    span = table["oracle"].mean() - table["random"].mean()
    return _num((table["picked"].mean() - table["random"].mean()) / span) if span > 0 else None


def _ci(table: pd.DataFrame, statistic, n_boot: int, seed: int) -> list[float | None]:
    rng = np.random.default_rng(seed)
    draws = [statistic(table.iloc[rng.integers(0, len(table), len(table))]) for _ in range(n_boot)]
    draws = [d for d in draws if d is not None]
    if len(draws) < 2:
        return [None, None]
    return [_num(np.percentile(draws, 2.5)), _num(np.percentile(draws, 97.5))]


def _mean_of(column: str):
    def statistic(table: pd.DataFrame) -> float | None:
        return _num(table[column].mean())

    return statistic


def _mean_of(column: str):
    def statistic(table: pd.DataFrame) -> float | None:
        return _num(table[column].mean())

    return statistic


def selection_metrics(
    picks: list[Pick], candidates: pd.DataFrame, n_boot: int = 1000, seed: int = 0
) -> dict:
    table = selection_table(picks, candidates)
    if table.empty:
        return {"tasks": 0}
    system, best = best_single_system(candidates, table["task_id"].tolist())
    picked = _mean_of("picked")
    return {
        "tasks": len(table),
        "picked": picked(table),
        "picked_ci95": _ci(table, picked, n_boot, seed),
        "random": _mean_of("random")(table),
        "oracle": _mean_of("oracle")(table),
        "best_single_system": system,
        "best_single": best,
        "over_random": _num(table["picked"].mean() - table["random"].mean()),
        "over_best_single": None if best is None else _num(table["picked"].mean() - best),
        "gap_closed": _gap(table),
        "gap_closed_ci95": _ci(table, _gap, n_boot, seed),
    }
