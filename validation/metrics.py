"""The four checks, as pure functions over the judgement table.

1. gold patches score well; 2. the same answer twice; 3. resolved ranks above unresolved
(per-task AUC); 4. quality inside failures (Spearman across systems). Each returns a plain dict
of figures with counts and confidence intervals, ready for `metrics.json`.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
from scipy import stats
from sklearn.metrics import roc_auc_score

from validation.frame import candidate_scores
from validation.pairs import hard_negative_check

MIN_SYSTEMS = 5
GOLD_GOOD = 0.8
STABLE_RANGE = 0.05


def _num(value: float | None) -> float | None:
    """JSON-safe: NaN and infinities become None."""
    return None if value is None or not math.isfinite(float(value)) else float(value)


def mean_ci(values: np.ndarray, n_boot: int, seed: int) -> list[float | None]:
    """95 % percentile bootstrap CI of the mean (resampling the given units)."""
    if len(values) < 2:
        return [None, None]  # one unit has no sampling distribution to speak of
    if np.all(values == values[0]):
        return [_num(values[0]), _num(values[0])]
    result = stats.bootstrap(
        (values,), np.mean, n_resamples=n_boot, method="percentile", random_state=seed
    )
    return [_num(result.confidence_interval.low), _num(result.confidence_interval.high)]


# 1. Gold patches -------------------------------------------------------------------------


def gold_check(frame: pd.DataFrame, n_boot: int = 2000, seed: int = 0) -> dict:
    scores = candidate_scores(frame[frame["gold"]])["score"].dropna().to_numpy()
    if len(scores) == 0:
        return {"n": 0}
    counts, edges = np.histogram(scores, bins=10, range=(0.0, 1.0))
    return {
        "n": len(scores),
        "mean": _num(scores.mean()),
        "ci95": mean_ci(scores, n_boot, seed),
        "median": _num(np.median(scores)),
        "share_ge_0_8": _num((scores >= GOLD_GOOD).mean()),
        "histogram": {"edges": edges.round(2).tolist(), "counts": counts.tolist()},
    }


# 2. Repeat runs --------------------------------------------------------------------------


def icc_2_1(matrix: np.ndarray) -> float | None:
    """ICC(2,1), two-way random effects, absolute agreement, single rater (Shrout & Fleiss)."""
    n, k = matrix.shape
    if n < 2 or k < 2:
        return None
    grand = matrix.mean()
    ss_rows = k * ((matrix.mean(axis=1) - grand) ** 2).sum()
    ss_cols = n * ((matrix.mean(axis=0) - grand) ** 2).sum()
    ss_error = ((matrix - grand) ** 2).sum() - ss_rows - ss_cols
    ms_rows, ms_cols = ss_rows / (n - 1), ss_cols / (k - 1)
    ms_error = ss_error / ((n - 1) * (k - 1))
    denominator = ms_rows + (k - 1) * ms_error + k * (ms_cols - ms_error) / n
    return _num((ms_rows - ms_error) / denominator) if denominator else None


def _pearson(a: np.ndarray, b: np.ndarray) -> float | None:
    if np.std(a) == 0 or np.std(b) == 0:
        return 1.0 if np.array_equal(a, b) else None
    return float(np.corrcoef(a, b)[0, 1])


def repeat_check(frame: pd.DataFrame, n_boot: int = 2000, seed: int = 0) -> dict:
    runs = (
        frame[~frame["gold"]]
        .pivot_table(index="candidate_id", columns="run_index", values="score", aggfunc="mean")
        .dropna()
    )
    if runs.shape[1] < 2 or runs.empty:
        return {"runs": int(runs.shape[1]), "n": len(runs)}
    matrix = runs.to_numpy()
    centred = np.abs(matrix - matrix.mean(axis=1, keepdims=True))
    pairs = [
        _pearson(matrix[:, i], matrix[:, j])
        for i, j in itertools.combinations(range(matrix.shape[1]), 2)
    ]
    pairs = [p for p in pairs if p is not None]
    return {
        "runs": int(matrix.shape[1]),
        "n": len(matrix),
        "mean_sd": _num(matrix.std(axis=1, ddof=1).mean()),
        "mean_abs_dev": _num(centred.mean()),
        "mean_abs_dev_ci95": mean_ci(centred.mean(axis=1), n_boot, seed),
        "mean_pairwise_pearson": _num(np.mean(pairs)) if pairs else None,
        "icc_2_1": icc_2_1(matrix),
        "share_range_le_0_05": _num((np.ptp(matrix, axis=1) <= STABLE_RANGE + 1e-12).mean()),
    }


# 3. Resolved above unresolved ------------------------------------------------------------


def task_aucs(
    frame: pd.DataFrame, include_empty: bool, column: str = "score"
) -> tuple[pd.DataFrame, int]:
    """Per-task AUC = (wins + ½ ties) / pairs, and the number of tasks skipped (one class)."""
    scores = candidate_scores(frame[~frame["gold"] & (frame["condition"] == "standard")], column)
    scores = scores.rename(columns={column: "score"}).dropna(subset=["score"])
    if not include_empty:
        scores = scores[~scores["empty"]]
    rows, skipped = [], 0
    for (task, repo), group in scores.groupby(["task_id", "repo"]):
        positives = int(group["resolved"].sum())
        negatives = len(group) - positives
        if positives == 0 or negatives == 0:
            skipped += 1
            continue
        auc = roc_auc_score(group["resolved"].astype(int), group["score"])
        rows.append({"task_id": task, "repo": repo, "auc": auc, "pairs": positives * negatives})
    return pd.DataFrame(rows, columns=["task_id", "repo", "auc", "pairs"]), skipped


def pooled_auc(frame: pd.DataFrame, include_empty: bool) -> float | None:
    scores = candidate_scores(frame[~frame["gold"] & (frame["condition"] == "standard")])
    scores = scores.dropna(subset=["score"])
    if not include_empty:
        scores = scores[~scores["empty"]]
    if scores["resolved"].nunique() < 2:
        return None
    return _num(roc_auc_score(scores["resolved"].astype(int), scores["score"]))


def auc_check(
    frame: pd.DataFrame,
    include_empty: bool,
    n_boot: int = 2000,
    seed: int = 0,
    column: str = "score",
) -> dict:
    aucs, skipped = task_aucs(frame, include_empty, column)
    values = aucs["auc"].to_numpy()
    per_repo = {
        repo: {
            "mean": _num(g["auc"].mean()),
            "ci95": mean_ci(g["auc"].to_numpy(), n_boot, seed),
            "tasks": len(g),
        }
        for repo, g in aucs.groupby("repo")
    }
    return {
        "include_empty": include_empty,
        "tasks": len(values),
        "tasks_skipped_one_class": skipped,
        "pairs": int(aucs["pairs"].sum()),
        "mean": _num(values.mean()) if len(values) else None,
        "median": _num(np.median(values)) if len(values) else None,
        "ci95": mean_ci(values, n_boot, seed) if len(values) else [None, None],
        "pooled": pooled_auc(frame.assign(score=frame[column]), include_empty),
        "per_repo": per_repo,
        "per_task": aucs.set_index("task_id")["auc"].round(4).to_dict(),
    }


# 4. Quality inside failures --------------------------------------------------------------


def system_table(scores: pd.DataFrame) -> pd.DataFrame:
    """Per system: resolve rate over all its candidates, mean score of its unresolved
    non-empty candidates."""
    failing = scores[~scores["resolved"] & ~scores["empty"]]
    table = pd.DataFrame(
        {
            "candidates": scores.groupby("system").size(),
            "resolve_rate": scores.groupby("system")["resolved"].mean(),
            "failing": failing.groupby("system").size(),
            "failing_mean_score": failing.groupby("system")["score"].mean(),
        }
    )
    table = table.fillna({"candidates": 0, "failing": 0})
    return table.astype({"candidates": int, "failing": int})


def _rho(table: pd.DataFrame) -> float | None:
    usable = table.dropna(subset=["failing_mean_score"])
    if (
        len(usable) < 2
        or usable["failing_mean_score"].nunique() < 2
        or usable["resolve_rate"].nunique() < 2
    ):
        return None  # a constant column has no rank correlation
    return _num(stats.spearmanr(usable["failing_mean_score"], usable["resolve_rate"]).statistic)


MIN_COMMON_TASKS = 10


def common_task_systems(scores: pd.DataFrame) -> tuple[list[str], list[str]]:
    """The systems to compare on shared tasks, and those shared tasks.

    Systems that attempted few tasks would shrink the intersection to nothing, so the system
    with the fewest tasks is dropped until at least `MIN_COMMON_TASKS` tasks are shared (or only
    `MIN_SYSTEMS` systems are left)."""
    attempted = {s: set(g["task_id"]) for s, g in scores.groupby("system")}
    systems = sorted(attempted, key=lambda s: (-len(attempted[s]), s))
    while True:
        shared = set.intersection(*(attempted[s] for s in systems)) if systems else set()
        if len(shared) >= MIN_COMMON_TASKS or len(systems) <= MIN_SYSTEMS:
            return systems, sorted(shared)
        systems = systems[:-1]


def _system_scores(frame: pd.DataFrame, common_tasks: bool) -> pd.DataFrame:
    scores = candidate_scores(frame[~frame["gold"] & (frame["condition"] == "standard")])
    scores = scores.dropna(subset=["score"])
    if common_tasks:
        systems, tasks = common_task_systems(scores)
        scores = scores[scores["system"].isin(systems) & scores["task_id"].isin(tasks)]
    return scores


def _task_system_sums(scores: pd.DataFrame) -> np.ndarray:
    """tasks × systems × (candidates, resolved, failing, failing score sum): resampling tasks
    then only sums rows of this array."""
    failing = ~scores["resolved"] & ~scores["empty"]
    parts = (
        scores.assign(
            n=1,
            r=scores["resolved"].astype(int),
            f=failing.astype(int),
            fs=scores["score"].where(failing, 0.0),
        )
        .groupby(["task_id", "system"])[["n", "r", "f", "fs"]]
        .sum()
    )
    tasks = parts.index.get_level_values(0).unique()
    systems = parts.index.get_level_values(1).unique()
    full = parts.reindex(pd.MultiIndex.from_product([tasks, systems]), fill_value=0)
    return full.to_numpy(dtype=float).reshape(len(tasks), len(systems), 4)


def _rho_from_sums(sums: np.ndarray) -> float | None:
    candidates, resolved, failing, failing_score = sums.T
    usable = failing > 0
    if usable.sum() < 2:
        return None
    means = failing_score[usable] / failing[usable]
    rates = resolved[usable] / candidates[usable]
    if np.ptp(means) == 0 or np.ptp(rates) == 0:
        return None
    return float(stats.spearmanr(means, rates).statistic)


def _bootstrap_rho(scores: pd.DataFrame, n_boot: int, seed: int) -> list[float | None]:
    rng = np.random.default_rng(seed)
    cube = _task_system_sums(scores)
    draws = []
    for _ in range(n_boot):
        sample = cube[rng.integers(0, len(cube), size=len(cube))].sum(axis=0)
        if (rho := _rho_from_sums(sample)) is not None:
            draws.append(rho)
    if len(draws) < 2:
        return [None, None]
    return [_num(np.percentile(draws, 2.5)), _num(np.percentile(draws, 97.5))]


def _permutation_p(table: pd.DataFrame, seed: int) -> float | None:
    usable = table.dropna(subset=["failing_mean_score"])

    def statistic(x: np.ndarray) -> float:
        return stats.spearmanr(x, usable["resolve_rate"]).statistic

    result = stats.permutation_test(
        (usable["failing_mean_score"].to_numpy(),),
        statistic,
        permutation_type="pairings",
        n_resamples=9999,
        random_state=seed,
    )
    return _num(result.pvalue)


def failure_quality_check(
    frame: pd.DataFrame, n_boot: int = 1000, seed: int = 0, common_tasks: bool = False
) -> dict:
    scores = _system_scores(frame, common_tasks)
    table = system_table(scores)
    usable = table.dropna(subset=["failing_mean_score"])
    result = {
        "common_tasks_only": common_tasks,
        "tasks": int(scores["task_id"].nunique()),
        "systems": len(usable),
        "per_system": _records(table),
    }
    if len(usable) < MIN_SYSTEMS:
        return {
            **result,
            "status": "insufficient",
            "reason": f"needs {MIN_SYSTEMS} systems with failing patches, has {len(usable)}",
        }
    return {
        **result,
        "status": "ok",
        "spearman_rho": _rho(table),
        "ci95": _bootstrap_rho(scores, n_boot, seed),
        "permutation_p": _permutation_p(table, seed),
    }


def _records(table: pd.DataFrame) -> dict[str, dict]:
    return {
        str(system): {
            "candidates": int(row["candidates"]),
            "resolve_rate": _num(row["resolve_rate"]),
            "failing": int(row["failing"]),
            "failing_mean_score": _num(row["failing_mean_score"]),
        }
        for system, row in table.iterrows()
    }


# Run figures -------------------------------------------------------------------------------


def _rate(numerator: float, denominator: float) -> float | None:
    return _num(numerator / denominator) if denominator else None


def run_figures(frame: pd.DataFrame) -> dict:
    judged = frame[frame["status"] != "empty"]
    costs = frame["cost_usd"]
    return {
        "judgements": len(frame),
        "judge_calls": int(frame["calls"].sum()),
        "cache_hits": int(frame["cache_hits"].sum()),
        "input_tokens": int(frame["input_tokens"].sum()),
        "output_tokens": int(frame["output_tokens"].sum()),
        "cost_usd": None if costs.isna().any() else _num(costs.sum()),
        "unparsed_rate": _rate(judged["unparsed"].sum(), len(judged)),
        "truncated_rate": _rate(judged["truncated"].sum(), len(judged)),
        "unverified_yes_rate": _rate(judged["unverified_yes"].sum(), judged["yes_answers"].sum()),
        "score_ties_rate": _tie_rate(frame),
    }


def _tie_rate(frame: pd.DataFrame) -> float | None:
    """Share of tasks where the top non-gold score is shared by two or more candidates."""
    scores = candidate_scores(frame[~frame["gold"]]).dropna(subset=["score"])
    tops = scores.groupby("task_id")["score"].apply(lambda s: int((s == s.max()).sum()) > 1)
    return _rate(tops.sum(), len(tops))


def all_checks(frame: pd.DataFrame, n_boot: int = 2000, seed: int = 0) -> dict:
    """Every check on one judgement table; AUC with and without empty patches, failure quality
    over all failing patches and over the tasks every compared system attempted."""
    return {
        "gold": gold_check(frame, n_boot, seed),
        "repeat": repeat_check(frame, n_boot, seed),
        "auc_without_empty": auc_check(frame, include_empty=False, n_boot=n_boot, seed=seed),
        "auc_with_empty": auc_check(frame, include_empty=True, n_boot=n_boot, seed=seed),
        "failure_quality": failure_quality_check(frame, n_boot=n_boot // 2, seed=seed),
        "failure_quality_common_tasks": failure_quality_check(
            frame, n_boot=n_boot // 2, seed=seed, common_tasks=True
        ),
        "run": run_figures(frame),
        "hard_negatives": hard_negative_check(frame),
        "auc_graded_without_empty": auc_check(
            frame, include_empty=False, n_boot=n_boot, seed=seed, column="graded"
        ),
        "hard_negatives_graded": hard_negative_check(frame, "graded"),
    }
