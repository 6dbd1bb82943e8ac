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


def _pool(frame: pd.DataFrame, score: str) -> pd.DataFrame:
    """Labelled, non-empty, non-gold candidates of the standard condition, with a score."""
    chosen = frame[~frame["gold"] & (frame["condition"] == "standard")]
    scores = candidate_scores(chosen, score).dropna(subset=[score])
    return scores[~scores["empty"]]


def pair_table(frame: pd.DataFrame, score: str = "score") -> pd.DataFrame:
    """Every (resolved, unresolved) pair within a task: both scores and the failing system."""
    pool = _pool(frame, score)
    positives = pool[pool["resolved"]][["task_id", "repo", score]]
    negatives = pool[~pool["resolved"]][["task_id", score, "system"]]
    pairs = positives.merge(negatives, on="task_id", suffixes=("_pos", "_neg"))
    return pairs.rename(columns={f"{score}_pos": "pos", f"{score}_neg": "neg"})


def pair_shares(pairs: pd.DataFrame) -> dict:
    """Share of pairs ordered right, tied (exactly) and wrong."""
    n = len(pairs)
    if not n:
        return {"pairs": 0, "right": None, "tied": None, "wrong": None}
    diff = (pairs["pos"] - pairs["neg"]).to_numpy()
    return {
        "pairs": n,
        "right": float((diff > 1e-12).mean()),
        "tied": float((np.abs(diff) <= 1e-12).mean()),
        "wrong": float((diff < -1e-12).mean()),
    }


def _task_aucs(pairs: pd.DataFrame) -> pd.Series:
    """Per-task AUC from its pairs: (wins + ½ ties) / pairs."""
    diff = pairs["pos"] - pairs["neg"]
    won = np.where(diff > 1e-12, 1.0, np.where(diff.abs() <= 1e-12, 0.5, 0.0))
    return pd.Series(won, index=pairs.index).groupby(pairs["task_id"]).mean()


def _auc_summary(pairs: pd.DataFrame) -> dict:
    aucs = _task_aucs(pairs)
    return {
        "mean": float(aucs.mean()) if len(aucs) else None,
        "tasks": len(aucs),
        "pairs": len(pairs),
    }


def resolve_rates(frame: pd.DataFrame) -> pd.Series:
    chosen = frame[~frame["gold"] & (frame["condition"] == "standard")]
    scores = candidate_scores(chosen, "score")
    return scores.groupby("system")["resolved"].mean()


def hard_negative_check(frame: pd.DataFrame, score: str = "score") -> dict:
    """AUC against the failures of strong systems, one AUC per failing system, tie shares."""
    pairs = pair_table(frame, score)
    rates = resolve_rates(frame)
    strong = sorted(rates[rates >= HARD_RESOLVE_RATE].index)
    hard = pairs[pairs["system"].isin(strong)]
    per_system = {
        system: {**_auc_summary(group), "resolve_rate": float(rates.get(system, np.nan))}
        for system, group in pairs.groupby("system")
    }
    return {
        "strong_systems": strong,
        "hard_auc": _auc_summary(hard),
        "hard_shares": pair_shares(hard),
        "all_shares": pair_shares(pairs),
        "per_failing_system": per_system,
    }
