"""`validate --tiebreak` in batch mode on the shipped sample, with the scripted provider (its
batch double answers at once): the report shows both AUCs, tie and wrong-order shares, and the
tie-break's before and after. Scripted answers: never a measurement, only the bookkeeping."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from judge.cli import app
from judge.llm.providers.scripted import install_script
from tests.scripted_llm import diff_reading_judge

pytestmark = [pytest.mark.integration, pytest.mark.slow]
runner = CliRunner()


def _prefer_longer(call) -> dict:
    """A scripted comparer: prefers the patch with more added lines, in either position."""
    prompt = call.prompt
    a, b = prompt.index("Patch A"), prompt.index("Patch B")
    first, second = prompt[a:b], prompt[b:]
    return {"reason": "scripted", "better": "A" if first.count("\n+") >= second.count("\n+")
            else "B"}  # fmt: skip


def test_validate_tiebreak_in_batch_mode(tmp_path):
    judge = install_script("tb-judge", diff_reading_judge)
    comparer = install_script("tb-compare", _prefer_longer)
    config = tmp_path / "c.yaml"
    config.write_text(f"llm:\n  cache_path: {tmp_path / 'cache.sqlite'}\n"
                      "batch:\n  poll_interval_s: 0\n")  # fmt: skip
    out = tmp_path / "report"
    result = runner.invoke(app, ["validate", "--judge", "scripted:tb-judge", "--runs", "1",
                                 "--limit", "8", "--tiebreak", "scripted:tb-compare",
                                 "--tiebreak-budget", "5", "--batch", "--no-baseline",
                                 "--out", str(out), "--config", str(config)],
                           env={"COLUMNS": "200"})  # fmt: skip
    assert result.exit_code == 0, result.output
    metrics = json.loads((out / "metrics.json").read_text())
    tiebreak = metrics["main"]["tiebreak"]
    assert tiebreak["model"] == "scripted:tb-compare"
    assert 0 < tiebreak["tied_pairs_compared"] <= 5
    assert tiebreak["requests"] == 2 * tiebreak["comparisons"] > 0
    # identical comparisons (equal patches) share one request; none is asked twice
    asked = len(comparer.calls)
    assert 0 < asked <= tiebreak["requests"]
    assert json.loads((out / "batches.json").read_text())["batches"]  # a batch was submitted
    assert judge.calls  # the judge's requests went through the batch double too
    checks = metrics["main"]["checks"]
    assert checks["auc_graded_without_empty"]["tasks"] == checks["auc_without_empty"]["tasks"]
    report = (out / "report.md").read_text()
    assert "## Tie-break" in report and "per-task AUC before → after" in report
    assert "graded score (P(yes))" in report and "Pairs tied / wrongly ordered" in report
    again = runner.invoke(app, ["validate", "--judge", "scripted:tb-judge", "--runs", "1",
                                "--limit", "8", "--tiebreak", "scripted:tb-compare",
                                "--tiebreak-budget", "5", "--no-baseline",
                                "--out", str(out), "--config", str(config)],
                          env={"COLUMNS": "200"})  # fmt: skip
    assert again.exit_code == 0, again.output
    assert len(comparer.calls) == asked  # resumed from the cache: nothing asked again
    assert json.loads((out / "metrics.json").read_text())["main"]["tiebreak"] == tiebreak
