"""Resolved-versus-unresolved pairs of the same task: ties, wrong orders, and the AUC against
the failures of strong systems.

A judge that only catches crude failures scores a high overall AUC on data whose failing
patches come from weak systems. Users route among strong models, so every report also gives the
AUC against *hard negatives* — the failing patches of systems that resolve at least half of the
tasks in the data — and one AUC per failing system, beside the share of pairs the judge ties or
orders wrongly (binary criteria saturate on strong candidates: ties are the first thing to see).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from validation.frame import candidate_scores

HARD_RESOLVE_RATE = 0.5
EPS = 1e-12


def _pool(frame: pd.DataFrame, score: str) -> pd.DataFrame:
    """Labelled, non-empty, non-gold candidates of the standard condition, with a score."""
    chosen = frame[~frame["gold"] & (frame["condition"] == "standard")]
    scores = candidate_scores(chosen, score).dropna(subset=[score])
    return scores[~scores["empty"]]


def _counts(pos: np.ndarray, neg: np.ndarray) -> tuple[int, int, int]:
    """(right, tied, wrong) over every (positive, negative) pair, by sorting: a task with
    thousands of candidates costs n log n, never the n² pairs themselves."""
    if not len(pos) or not len(neg):
        return 0, 0, 0
    ordered = np.sort(neg)
    below = np.searchsorted(ordered, pos - EPS, side="left")
    not_above = np.searchsorted(ordered, pos + EPS, side="right")
    right, tied = int(below.sum()), int((not_above - below).sum())
    return right, tied, len(pos) * len(neg) - right - tied


def pair_counts(frame: pd.DataFrame, score: str = "score") -> pd.DataFrame:
    """Per task and failing system: pairs ordered right, tied and wrong."""
    pool = _pool(frame, score)
    rows = []
    for task, group in pool.groupby("task_id"):
        pos = group.loc[group["resolved"], score].to_numpy(dtype=float)
        for system, failing in group[~group["resolved"]].groupby("system"):
            right, tied, wrong = _counts(pos, failing[score].to_numpy(dtype=float))
            if right + tied + wrong:
                rows.append((task, system, right, tied, wrong))
    return pd.DataFrame(rows, columns=["task_id", "system", "right", "tied", "wrong"])


def pair_shares(counts: pd.DataFrame) -> dict:
    """Share of pairs ordered right, tied (exactly) and wrong."""
    n = int(counts[["right", "tied", "wrong"]].to_numpy().sum()) if len(counts) else 0
    if not n:
        return {"pairs": 0, "right": None, "tied": None, "wrong": None}
    return {
        "pairs": n,
        "right": float(counts["right"].sum() / n),
        "tied": float(counts["tied"].sum() / n),
        "wrong": float(counts["wrong"].sum() / n),
    }


def _auc_summary(counts: pd.DataFrame) -> dict:
    """Mean per-task AUC, (wins + ½ ties) / pairs, over the tasks these pairs come from."""
    per_task = counts.groupby("task_id")[["right", "tied", "wrong"]].sum()
    pairs = per_task.sum(axis=1)
    aucs = (per_task["right"] + 0.5 * per_task["tied"]) / pairs
    return {
        "mean": float(aucs.mean()) if len(aucs) else None,
        "tasks": len(aucs),
        "pairs": int(pairs.sum()),
    }


def resolve_rates(frame: pd.DataFrame) -> pd.Series:
    chosen = frame[~frame["gold"] & (frame["condition"] == "standard")]
    scores = candidate_scores(chosen, "score")
    return scores.groupby("system")["resolved"].mean()


def hard_negative_check(frame: pd.DataFrame, score: str = "score") -> dict:
    """AUC against the failures of strong systems, one AUC per failing system, tie shares."""
    counts = pair_counts(frame, score)
    rates = resolve_rates(frame)
    strong = sorted(rates[rates >= HARD_RESOLVE_RATE].index)
    hard = counts[counts["system"].isin(strong)]
    per_system = {
        system: {**_auc_summary(group), "resolve_rate": float(rates.get(system, np.nan))}
        for system, group in counts.groupby("system")
    }
    return {
        "strong_systems": strong,
        "hard_auc": _auc_summary(hard),
        "hard_shares": pair_shares(hard),
        "all_shares": pair_shares(counts),
        "per_failing_system": per_system,
    }
