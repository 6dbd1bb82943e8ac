"""The three user jobs end to end on the shipped sample with the reference judge: select,
routes, and periodic validation with --compare-to / --fail-on-regression."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from judge.cli import app
from judge.jsonl import read_jsonl
from judge.select import Pick

pytestmark = pytest.mark.integration
runner = CliRunner()


def _run(*args: str, code: int = 0):
    result = runner.invoke(app, list(args), env={"COLUMNS": "200"})
    assert result.exit_code == code, result.output
    return result


@pytest.fixture(scope="module")
def sample_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("jobs")
    config = root / "fast.yaml"
    config.write_text(f"llm:\n  cache_path: {root / 'cache.sqlite'}\n")
    _run(
        "validate",
        "--limit",
        "12",
        "--runs",
        "1",
        "--out",
        str(root / "v1"),
        "--config",
        str(config),
    )
    return root, config


def test_select_picks_one_per_task_and_never_gold(sample_run):
    root, _ = sample_run
    result = _run(
        "select", str(root / "v1"), "--out", str(root / "picks.jsonl"), "--epsilon", "0.02"
    )
    picks = read_jsonl(root / "picks.jsonl", Pick)
    assert len(picks) == 12 and len({p.task_id for p in picks}) == 12
    assert not any(p.candidate_id.endswith("@gold") for p in picks)
    assert all(
        p.decided_by
        in {
            "score",
            "coverage",
            "unverified_evidence",
            "smaller_diff",
            "stable_id",
            "only_candidate",
        }
        for p in picks
    )
    assert "picked resolve rate" in result.output
    metrics = json.loads((root / "v1" / "metrics.json").read_text())
    selection = metrics["main"]["selection"]
    assert selection["tasks"] == 12 and selection["picked"] >= selection["random"]


def test_routes_report(sample_run):
    root, _ = sample_run
    result = _run("routes", str(root / "v1"), "--by", "system", "--out", str(root / "routes"))
    assert "best:" in result.output
    for name in (
        "routes.md",
        "routes.html",
        "routes.csv",
        "paired.csv",
        "routes.json",
        "routes.png",
    ):
        assert (root / "routes" / name).exists(), name
    summary = json.loads((root / "routes" / "routes.json").read_text())
    assert summary["verdict"]["best"] in {r["route"] for r in summary["routes"]}
    assert "gold" not in {r["route"] for r in summary["routes"]}
    missing = runner.invoke(
        app, ["routes", str(root / "v1"), "--by", "nope", "--out", str(root / "x")]
    )
    assert missing.exit_code == 2 and "no judgement" in missing.output


def test_compare_to_and_a_planted_regression(sample_run):
    root, config = sample_run
    old = json.loads((root / "v1" / "metrics.json").read_text())
    same = _run(
        "validate",
        "--limit",
        "12",
        "--runs",
        "2",
        "--out",
        str(root / "v2"),
        "--config",
        str(config),
        "--compare-to",
        str(root / "v1" / "metrics.json"),
        "--fail-on-regression",
    )
    assert "0 regressions" in same.output
    report = (root / "v2" / "report.md").read_text()
    assert "## Since last time" in report and "runs: `1` → `2`" in report
    old["main"]["checks"]["auc_without_empty"]["mean"] = 0.999  # then: far above today's CI
    planted = root / "planted.json"
    planted.write_text(json.dumps(old))
    flagged = _run(
        "validate",
        "--limit",
        "12",
        "--runs",
        "2",
        "--out",
        str(root / "v2"),
        "--config",
        str(config),
        "--compare-to",
        str(planted),
        "--fail-on-regression",
        code=1,
    )
    assert "1 regressions (per-task AUC, empty excluded)" in flagged.output
    bad = runner.invoke(
        app,
        [
            "validate",
            "--limit",
            "2",
            "--out",
            str(root / "v3"),
            "--compare-to",
            str(root / "nothing.json"),
        ],
    )
    assert bad.exit_code == 2 and "cannot read earlier metrics" in " ".join(bad.output.split())
    assert not (root / "v3" / "judgements.jsonl").exists()  # refused before any work


def test_validate_hostile_reports_score_changes_per_attack(sample_run):
    root, config = sample_run
    out = root / "hostile"
    result = _run(
        "validate",
        "--limit",
        "3",
        "--runs",
        "1",
        "--hostile",
        "--out",
        str(out),
        "--config",
        str(config),
    )
    assert "Per-task AUC" in result.output
    metrics = json.loads((out / "metrics.json").read_text())
    effects = metrics["main"]["hostile"]
    assert effects["huge_diff"]["variants"] == 1 and effects["prompt_injection"]["variants"] == 3
    assert all(e["rose"] == 0 for e in effects.values())  # the reference judge is never fooled
    assert effects["comment_only_claim"]["mean_change"] < 0
    assert "## Hostile patches" in (out / "report.md").read_text()
    assert (
        metrics["main"]["checks"]["auc_without_empty"]["tasks"] <= 3
    )  # attacks are not candidates
