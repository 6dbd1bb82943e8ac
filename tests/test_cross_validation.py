"""Leave-one-repository-out selection, with hand-computed folds."""

from __future__ import annotations

import pandas as pd
import pytest

from validation.cross_validation import choose, leave_one_repo_out

# setting "simple" is steady; "complex" shines on repo a only (an in-sample artefact)
ROWS = [
    ("simple", "a1", "a", 0.70), ("simple", "a2", "a", 0.80),
    ("simple", "b1", "b", 0.75), ("simple", "c1", "c", 0.75),
    ("complex", "a1", "a", 1.00), ("complex", "a2", "a", 1.00),
    ("complex", "b1", "b", 0.60), ("complex", "c1", "c", 0.70),
]  # fmt: skip
AUCS = pd.DataFrame(ROWS, columns=["setting", "task_id", "repo", "auc"])


def test_each_fold_is_chosen_without_its_own_repository():
    result = leave_one_repo_out(AUCS, ["simple", "complex"], tolerance=0.0)
    chosen = dict(zip(result["repo"], result["setting"], strict=False))
    # fold a: b, c only → simple (0.75) beats complex (0.65)
    # fold b: a, c → simple (0.70+0.80+0.75)/3 = 0.75, complex (1+1+0.70)/3 = 0.90 → complex
    # fold c: a, b → simple 0.75, complex (1+1+0.6)/3 ≈ 0.867 → complex
    assert chosen == {"a": "simple", "b": "complex", "c": "complex"}
    assert result.set_index("task_id")["auc"].to_dict() == {
        "a1": 0.70, "a2": 0.80, "b1": 0.60, "c1": 0.70,
    }  # fmt: skip
    assert result["auc"].mean() == pytest.approx((0.70 + 0.80 + 0.60 + 0.70) / 4)


def test_the_simpler_setting_wins_within_the_tolerance():
    means = pd.Series({"simple": 0.75, "complex": 0.76})
    assert choose(means, ["simple", "complex"], tolerance=0.02) == "simple"
    assert choose(means, ["simple", "complex"], tolerance=0.005) == "complex"
    assert choose(means, ["complex", "simple"], tolerance=0.0) == "complex"
