"""The four checks on hand-built tables; expected values are written as the arithmetic."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from validation.frame import COLUMNS, repo_of
from validation.metrics import (
    auc_check,
    common_task_systems,
    failure_quality_check,
    gold_check,
    icc_2_1,
    mean_ci,
    repeat_check,
    run_figures,
)


def frame(rows: list[dict]) -> pd.DataFrame:
    """A judgement table from the few fields a test cares about."""
    defaults = {
        "repo": "o/r",
        "run_index": 0,
        "system": "s",
        "condition": "standard",
        "resolved": False,
        "empty": False,
        "gold": False,
        "coverage": 1.0,
        "status": "scored",
        "unparsed": False,
        "truncated": False,
        "yes_answers": 0,
        "unverified_yes": 0,
        "calls": 1,
        "cache_hits": 0,
        "input_tokens": 10,
        "output_tokens": 5,
        "cost_usd": 0.01,
    }
    full = []
    for row in rows:
        merged = {**defaults, **row}
        merged.setdefault("candidate_id", f"{merged['task_id']}@{merged['system']}")
        merged.setdefault("graded", merged["score"])
        full.append(merged)
    table = pd.DataFrame(full)[COLUMNS]
    table["score"] = table["score"].astype(float)
    table["graded"] = table["graded"].astype(float)
    return table


def test_gold_check():
    table = frame(
        [
            {"task_id": "a", "gold": True, "score": 1.0},
            {"task_id": "b", "gold": True, "score": 0.6},
            {"task_id": "c", "gold": True, "score": 0.9},
            {"task_id": "c", "score": 0.1},  # not gold: ignored
        ]
    )
    gold = gold_check(table)
    assert gold["n"] == 3
    assert gold["mean"] == pytest.approx((1.0 + 0.6 + 0.9) / 3)
    assert gold["median"] == pytest.approx(0.9)
    assert gold["share_ge_0_8"] == pytest.approx(2 / 3)
    assert sum(gold["histogram"]["counts"]) == 3
    assert gold_check(frame([{"task_id": "a", "score": 0.5}])) == {"n": 0}


def test_icc_matches_shrout_and_fleiss():
    # Shrout & Fleiss (1979), table 2: six targets rated by four judges; ICC(2,1) = 0.29.
    ratings = np.array(
        [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]
    )
    assert icc_2_1(ratings.astype(float)) == pytest.approx(0.29, abs=0.005)
    assert icc_2_1(np.array([[1.0, 1.0]])) is None


def test_repeat_check():
    rows = []
    for cid, (first, second) in {"x": (0.5, 0.7), "y": (0.2, 0.2), "z": (0.9, 0.8)}.items():
        rows += [
            {"task_id": "t", "candidate_id": cid, "run_index": 0, "score": first},
            {"task_id": "t", "candidate_id": cid, "run_index": 1, "score": second},
        ]
    repeat = repeat_check(frame(rows))
    assert (repeat["runs"], repeat["n"]) == (2, 3)
    assert repeat["mean_abs_dev"] == pytest.approx((0.1 + 0.1 + 0 + 0 + 0.05 + 0.05) / 6)
    assert repeat["mean_sd"] == pytest.approx((np.sqrt(0.02) + 0 + np.sqrt(0.005)) / 3)
    assert repeat["share_range_le_0_05"] == pytest.approx(1 / 3)  # ranges 0.2, 0.0, 0.1
    assert repeat["mean_pairwise_pearson"] == pytest.approx(
        np.corrcoef([0.5, 0.2, 0.9], [0.7, 0.2, 0.8])[0, 1]
    )
    assert repeat_check(frame([{"task_id": "t", "score": 0.5}])) == {"runs": 1, "n": 1}


AUC_ROWS = [
    # task a: resolved 0.9 and 0.5 against unresolved 0.5 and 0.1
    {"task_id": "a", "system": "p", "resolved": True, "score": 0.9},
    {"task_id": "a", "system": "q", "resolved": True, "score": 0.5},
    {"task_id": "a", "system": "r", "resolved": False, "score": 0.5},
    {"task_id": "a", "system": "s", "resolved": False, "score": 0.1},
    # task b: one class only
    {"task_id": "b", "system": "p", "resolved": True, "score": 0.3},
    # task c: resolved 0.2 against unresolved 0.8 and an empty patch at 0.0
    {"task_id": "c", "system": "p", "resolved": True, "score": 0.2},
    {"task_id": "c", "system": "q", "resolved": False, "score": 0.8},
    {"task_id": "c", "system": "r", "resolved": False, "score": 0.0, "empty": True},
    # gold and other conditions never count
    {"task_id": "c", "system": "gold", "gold": True, "resolved": True, "score": 1.0},
    {"task_id": "c", "system": "v", "condition": "issue-removed", "resolved": False, "score": 0.9},
]


def test_auc_without_and_with_empty_patches():
    table = frame(AUC_ROWS)
    task_a = (1 + 1 + 0.5 + 1) / 4  # wins + ½ ties over 4 pairs
    without = auc_check(table, include_empty=False, n_boot=200)
    assert without["per_task"] == pytest.approx({"a": task_a, "c": 0 / 1})
    assert without["mean"] == pytest.approx((task_a + 0.0) / 2)
    assert (without["tasks"], without["pairs"], without["tasks_skipped_one_class"]) == (2, 4 + 1, 1)
    with_empty = auc_check(table, include_empty=True, n_boot=200)
    assert with_empty["per_task"]["c"] == pytest.approx((0 + 1) / 2)
    assert with_empty["mean"] == pytest.approx((task_a + 0.5) / 2)
    assert with_empty["pairs"] == 4 + 2
    low, high = without["ci95"]
    assert low <= without["mean"] <= high
    assert without["per_repo"]["o/r"]["tasks"] == 2


def test_pooled_auc_counts_every_pair():
    table = frame(
        [r for r in AUC_ROWS if not r.get("gold") and r.get("condition") != "issue-removed"]
    )
    # positives 0.9, 0.5, 0.3, 0.2 ; negatives (no empty) 0.5, 0.1, 0.8
    wins = (1 + 1 + 1) + (0.5 + 1 + 0) + (0 + 1 + 0) + (0 + 1 + 0)
    assert auc_check(table, include_empty=False, n_boot=100)["pooled"] == pytest.approx(wins / 12)


def _systems(rates: dict[str, tuple[int, int, float]]) -> pd.DataFrame:
    """system -> (resolved candidates, failing candidates, failing score), one task each."""
    rows = []
    for system, (resolved, failing, score) in rates.items():
        for i in range(resolved):
            rows.append({"task_id": f"t{i}", "system": system, "resolved": True, "score": 0.9})
        for i in range(failing):
            rows.append({"task_id": f"t{resolved + i}", "system": system, "score": score})
    return frame(rows)


def test_failure_quality_rho_and_a_system_without_failures():
    table = _systems(
        {
            "a": (1, 4, 0.10),
            "b": (2, 3, 0.20),
            "c": (3, 2, 0.30),
            "d": (4, 1, 0.40),
            "e": (5, 1, 0.50),
            "perfect": (6, 0, 0.0),
        }
    )
    check = failure_quality_check(table, n_boot=50)
    assert check["status"] == "ok"
    assert check["systems"] == 5  # the system with no failures has no failing mean
    assert check["per_system"]["perfect"]["failing"] == 0
    assert check["per_system"]["perfect"]["failing_mean_score"] is None
    assert check["per_system"]["b"]["resolve_rate"] == pytest.approx(2 / 5)
    assert check["spearman_rho"] == pytest.approx(1.0)
    assert 0 <= check["permutation_p"] <= 0.05


def test_failure_quality_needs_five_systems():
    table = _systems({"a": (1, 1, 0.1), "b": (2, 1, 0.2), "c": (3, 1, 0.3), "d": (4, 1, 0.4)})
    check = failure_quality_check(table, n_boot=10)
    assert check["status"] == "insufficient"
    assert "needs 5 systems" in check["reason"]


def test_common_tasks_drop_the_systems_that_attempted_least():
    rows = [{"task_id": f"t{i}", "system": s, "score": 0.5} for s in "abcde" for i in range(12)]
    rows += [{"task_id": "t0", "system": "tiny", "score": 0.5}]
    from validation.frame import candidate_scores

    systems, tasks = common_task_systems(candidate_scores(frame(rows)))
    assert systems == ["a", "b", "c", "d", "e"]
    assert len(tasks) == 12


def test_run_figures():
    table = frame(
        [
            {
                "task_id": "a",
                "score": 0.5,
                "yes_answers": 4,
                "unverified_yes": 1,
                "truncated": True,
            },
            {"task_id": "b", "score": None, "status": "unparsed", "unparsed": True},
            {"task_id": "c", "score": 0.0, "status": "empty", "calls": 0, "cost_usd": 0.0},
            {"task_id": "c", "system": "t", "score": 0.0},
        ]
    )
    run = run_figures(table)
    assert run["judgements"] == 4 and run["judge_calls"] == 3
    assert run["unparsed_rate"] == pytest.approx(1 / 3)  # empty patches are not judged
    assert run["truncated_rate"] == pytest.approx(1 / 3)
    assert run["unverified_yes_rate"] == pytest.approx(1 / 4)
    assert run["cost_usd"] == pytest.approx(0.01 * 3)
    assert run["score_ties_rate"] == pytest.approx(1 / 2)  # task c: two candidates tie at the top


def test_unknown_cost_stays_unknown_and_small_samples_have_no_ci():
    table = frame([{"task_id": "a", "score": 0.5, "cost_usd": None}])
    assert run_figures(table)["cost_usd"] is None
    assert mean_ci(np.array([0.7]), 100, 0) == [None, None]
    assert mean_ci(np.array([0.7, 0.7]), 100, 0) == [0.7, 0.7]


@pytest.mark.parametrize(
    ("task_id", "repo"),
    [
        ("django__django-11099", "django/django"),
        ("scikit-learn__scikit-learn-10297", "scikit-learn/scikit-learn"),
        ("calc-1", "(none)"),
    ],
)
def test_repo_of(task_id, repo):
    assert repo_of(task_id) == repo
