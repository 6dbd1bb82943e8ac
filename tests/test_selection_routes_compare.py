"""Selection metrics, routing statistics and run comparison, with hand-computed values."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from judge.judgement import Judgement
from judge.select import Pick
from validation.compare import compare
from validation.routes import (
    paired_comparisons,
    pareto_front,
    route_frame,
    route_table,
    verdicts,
    wilcoxon_p,
)
from validation.selection import best_single_system, selection_metrics, selection_table

CANDIDATES = pd.DataFrame(
    [
        # t1: two of three resolved; the pick is resolved
        ("t1", "t1@a", "A", True),
        ("t1", "t1@b", "B", True),
        ("t1", "t1@c", "C", False),
        # t2: one of two resolved; the pick is not
        ("t2", "t2@a", "A", False),
        ("t2", "t2@b", "B", True),
        # t3: none resolved
        ("t3", "t3@a", "A", False),
        ("t3", "t3@c", "C", False),
        # t4: a single candidate is not a selection
        ("t4", "t4@a", "A", True),
    ],
    columns=["task_id", "candidate_id", "system", "resolved"],
)
PICKS = [
    Pick(task_id=t, candidate_id=c, score=1.0, decided_by="score", candidates=2)
    for t, c in [("t1", "t1@a"), ("t2", "t2@a"), ("t3", "t3@c"), ("t4", "t4@a")]
]


def test_selection_against_random_best_single_and_oracle():
    table = selection_table(PICKS, CANDIDATES)
    assert list(table["task_id"]) == ["t1", "t2", "t3"]
    result = selection_metrics(PICKS, CANDIDATES, n_boot=200)
    picked, random, oracle = (1 + 0 + 0) / 3, (2 / 3 + 1 / 2 + 0) / 3, (1 + 1 + 0) / 3
    assert result["picked"] == pytest.approx(picked)
    assert result["random"] == pytest.approx(random)
    assert result["oracle"] == pytest.approx(oracle)
    assert result["gap_closed"] == pytest.approx((picked - random) / (oracle - random))
    # B: resolved t1 and t2, did not attempt t3 → 2/3; A: 1/3; C: 0
    assert (result["best_single_system"], result["best_single"]) == ("B", pytest.approx(2 / 3))
    assert result["over_best_single"] == pytest.approx(picked - 2 / 3)
    assert best_single_system(CANDIDATES, []) == (None, None)
    assert selection_metrics([], CANDIDATES) == {"tasks": 0}


def _judgement(task: str, route: str, score: float, cost: float, resolved: bool) -> Judgement:
    return Judgement(
        task_id=task,
        candidate_id=f"{task}@{route}",
        rubric_hash="h",
        judge_model="m",
        prompt_hash="p",
        status="scored",
        score=score,
        coverage=1.0,
        labels={"route": route, "cost": cost, "resolved": resolved},
    )


def _routes() -> list[Judgement]:
    rows = []
    for i in range(8):
        rows.append(_judgement(f"t{i}", "big", 0.8 + 0.01 * i, 2.0, True))
        rows.append(
            _judgement(
                f"t{i}", "small", 0.79 + 0.01 * i + (0.02 if i % 2 else -0.02), 0.5, i % 2 == 0
            )
        )
        rows.append(_judgement(f"t{i}", "weak", 0.3, 0.4, False))
    rows.append(
        _judgement("t0", "gold", 1.0, 0.0, True).model_copy(
            update={"labels": {"route": "gold", "gold": True}}
        )
    )
    return rows


def test_route_table_pairs_and_verdict():
    per_task = route_frame(_routes(), by="route", cost="cost")
    table = route_table(per_task, n_boot=300)
    assert list(table["route"]) == ["big", "small", "weak"]  # gold patches are not a route
    big = table.set_index("route").loc["big"]
    assert big["mean_score"] == pytest.approx(np.mean([0.8 + 0.01 * i for i in range(8)]))
    assert big["mean_cost"] == 2.0 and big["resolve_rate"] == 1.0
    assert big["score_per_dollar"] == pytest.approx(big["mean_score"] / 2.0)
    pairs = paired_comparisons(per_task, n_boot=300)
    small = pairs[(pairs["route"] == "small") & (pairs["versus"] == "big")].iloc[0]
    assert small["common_tasks"] == 8
    assert small["mean_difference"] == pytest.approx(
        -0.01
    )  # +0.02 and -0.02 alternate around -0.01
    verdict = verdicts(table, pairs)
    assert verdict["best"] == "big"
    assert "small" in verdict["indistinguishable"] and "weak" not in verdict["indistinguishable"]
    assert verdict["cheapest_of_those"] == "small"
    assert pareto_front(table) == ["big", "small", "weak"]


def test_wilcoxon_matches_scipy_and_handles_zeros():
    diffs = np.array([0.1, -0.05, 0.2, 0.15, 0.3, -0.01])
    assert wilcoxon_p(diffs) == pytest.approx(stats.wilcoxon(diffs, zero_method="zsplit").pvalue)
    assert wilcoxon_p(np.zeros(4)) == 1.0
    assert wilcoxon_p(np.array([])) is None


def _metrics(auc: float, ci: list[float], judge: str = "j") -> dict:
    checks = {
        "gold": {"mean": 0.9, "ci95": [0.85, 0.95]},
        "auc_without_empty": {"mean": auc, "ci95": ci},
        "failure_quality": {"spearman_rho": 0.5, "ci95": [0.1, 0.9]},
    }
    return {
        "main": {
            "checks": checks,
            "judge": judge,
            "generator": "g",
            "prompt_hashes": {"judge": ["h"]},
            "runs": 3,
        },
        "data": {"tasks": "x", "candidates": ["y"], "n_tasks": 40, "n_candidates": 400},
    }


@pytest.mark.parametrize(
    ("old_auc", "new_auc", "new_ci", "flag"),
    [
        (0.80, 0.70, [0.65, 0.75], "regression"),
        (0.70, 0.80, [0.75, 0.85], "improvement"),
        (0.78, 0.80, [0.75, 0.85], ""),
    ],
)
def test_compare_flags_only_when_the_ci_excludes_the_old_value(old_auc, new_auc, new_ci, flag):
    result = compare(_metrics(old_auc, [0.7, 0.9]), _metrics(new_auc, new_ci), "old.json")
    row = next(r for r in result["figures"] if r["figure"] == "per-task AUC, empty excluded")
    assert row["flag"] == flag
    assert row["difference"] == pytest.approx(new_auc - old_auc)
    assert (result["regressions"] == [row["figure"]]) is (flag == "regression")
    missing = next(r for r in result["figures"] if r["figure"] == "repeat runs: ICC(2,1)")
    assert (missing["then"], missing["flag"]) == (None, "")


def test_compare_lists_setting_changes():
    result = compare(
        _metrics(0.8, [0.7, 0.9], judge="a"), _metrics(0.8, [0.7, 0.9], judge="b"), "o"
    )
    assert result["changes"] == [{"what": "judge", "then": "a", "now": "b"}]


def test_routes_cli_with_costs_draws_the_pareto_plot(tmp_path):
    from typer.testing import CliRunner

    from judge.cli import app

    run = tmp_path / "run"
    run.mkdir()
    (run / "judgements.jsonl").write_text("".join(j.model_dump_json() + "\n" for j in _routes()))
    result = CliRunner().invoke(
        app,
        ["routes", str(run), "--by", "route", "--cost", "cost", "--out", str(tmp_path / "out")],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    assert "cheapest of those: small" in result.output
    markdown = (tmp_path / "out" / "routes.md").read_text()
    assert "Pareto frontier" in markdown and "**Cheapest of those:** small" in markdown
    assert (tmp_path / "out" / "routes.png").read_bytes()[:4] == b"\x89PNG"
