"""Hard negatives, per-failing-system AUC and tie shares, on a hand-built table."""

from __future__ import annotations

import pytest

from tests.test_metrics import frame
from validation.pairs import hard_negative_check, pair_counts, pair_shares


def _c(task, cid, system, resolved, score, empty=False):
    return {"task_id": task, "candidate_id": cid, "system": system, "resolved": resolved,
            "score": score, "empty": empty}  # fmt: skip


# strong: resolves 2 of 3 (≥ 0.5); weak: resolves 0 of 2
ROWS = [
    _c("t1", "t1@strong", "strong", True, 1.0),
    _c("t1", "t1@weak", "weak", False, 0.2),
    _c("t2", "t2@strong", "strong", False, 0.9),  # a plausible failure
    _c("t2", "t2@other", "other", True, 0.9),  # tied with it
    _c("t2", "t2@weak", "weak", False, 0.1),
    _c("t3", "t3@strong", "strong", True, 0.5),
    _c("t3", "t3@other", "other", False, 0.7),  # wrongly ordered
    _c("t3", "t3@empty", "weak", False, 0.0, empty=True),  # empty: left out
]


def test_pairs_and_their_shares():
    counts = pair_counts(frame(ROWS))
    # t1: strong>weak; t2: other vs strong (tie), other vs weak; t3: strong vs other (wrong)
    assert int(counts[["right", "tied", "wrong"]].to_numpy().sum()) == 4
    assert pair_shares(counts) == {"pairs": 4, "right": 2 / 4, "tied": 1 / 4, "wrong": 1 / 4}
    assert pair_shares(counts.iloc[:0])["tied"] is None


def test_hard_negative_auc_and_per_system_auc():
    check = hard_negative_check(frame(ROWS))
    # resolve rates: strong 2/3, other 1/2, weak 0/3 → strong systems: other, strong
    assert check["strong_systems"] == ["other", "strong"]
    # hard pairs: t2 (other vs strong: tie → 0.5), t3 (strong vs other: wrong → 0)
    assert check["hard_auc"] == {"mean": (0.5 + 0.0) / 2, "tasks": 2, "pairs": 2}
    assert check["hard_shares"]["tied"] == pytest.approx(1 / 2)
    per = check["per_failing_system"]
    assert per["weak"]["mean"] == pytest.approx((1.0 + 1.0) / 2)  # t1 and t2, both right
    assert per["weak"]["resolve_rate"] == pytest.approx(0 / 3)
    assert per["strong"] == {"mean": 0.5, "tasks": 1, "pairs": 1, "resolve_rate": 2 / 3}
    assert per["other"]["mean"] == 0.0 and per["other"]["tasks"] == 1


def test_graded_auc_breaks_binary_ties():
    from validation.metrics import auc_check

    rows = [
        {**_c("t1", "t1@a", "a", True, 1.0), "graded": 0.95},
        {**_c("t1", "t1@b", "b", False, 1.0), "graded": 0.80},  # tied at 1.0, graded apart
        {**_c("t2", "t2@a", "a", True, 0.6), "graded": 0.55},
        {**_c("t2", "t2@b", "b", False, 0.6), "graded": 0.60},  # graded orders it wrongly
    ]
    table = frame(rows)
    assert auc_check(table, include_empty=False, n_boot=10)["mean"] == pytest.approx(0.5)
    graded = auc_check(table, include_empty=False, n_boot=10, column="graded")
    assert graded["mean"] == pytest.approx((1.0 + 0.0) / 2)
    assert hard_negative_check(table, "graded")["all_shares"]["tied"] == 0.0
    assert hard_negative_check(table)["all_shares"]["tied"] == 1.0


def test_counting_by_sorting_equals_enumerating_every_pair():
    import numpy as np

    from validation.pairs import _counts

    rng = np.random.default_rng(0)
    for _ in range(50):
        pos = rng.choice([0.0, 0.25, 0.5, 0.75, 1.0], size=rng.integers(1, 12))
        neg = rng.choice([0.0, 0.25, 0.5, 0.75, 1.0], size=rng.integers(1, 12))
        right = sum(p > n for p in pos for n in neg)
        tied = sum(p == n for p in pos for n in neg)
        assert _counts(pos, neg) == (right, tied, len(pos) * len(neg) - right - tied)
