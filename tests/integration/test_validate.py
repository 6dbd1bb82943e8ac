"""`validate` end to end on the shipped sample, and the leak audit."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from judge.cli import app
from judge.jsonl import read_jsonl
from judge.judgement import Judgement
from judge.llm.providers.scripted import install_script
from judge.llm.types import Message
from tests.scripted_llm import diff_reading_judge
from validation.frame import judgements_frame
from validation.leak_audit import LeakAudit, distinctive_test_lines, failing_test_names
from validation.metrics import all_checks
from validation.sample import SAMPLE_TASKS
from validation.validate import ValidateJob, load_inputs

pytestmark = pytest.mark.integration
runner = CliRunner()


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """validate --judge scripted (answers from the diff) on six sample tasks, two runs."""
    out = tmp_path_factory.mktemp("validate") / "report"
    cache = out.parent / "cache.sqlite"
    config = out.parent / "fast.yaml"
    config.write_text(
        f"llm:\n  cache_path: {cache}\n  retry: {{max_attempts: 2, initial_wait_s: 0}}\n"
    )
    script = install_script("validate-judge", diff_reading_judge)
    result = runner.invoke(
        app,
        [
            "validate",
            "--judge",
            "scripted:validate-judge",
            "--runs",
            "2",
            "--limit",
            "6",
            "--out",
            str(out),
            "--config",
            str(config),
        ],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    return out, script, result.output


def test_outputs_exist_and_name_the_judge(report):
    out, _, output = report
    for name in (
        "metrics.json",
        "report.md",
        "report.html",
        "judgements.jsonl",
        "rubrics.jsonl",
        "manifest.json",
        "baseline/judgements.jsonl",
        "figures/score_distributions.png",
    ):
        assert (out / name).exists(), name
    markdown = (out / "report.md").read_text()
    assert "`scripted:validate-judge`" in markdown and "0.75–0.86" in markdown
    assert "reference baseline" in markdown
    assert "data:image/png;base64," in (out / "report.html").read_text()
    assert "Per-task AUC" in output


def test_metrics_agree_with_a_recomputation_from_the_judgements(report):
    out, _, _ = report
    metrics = json.loads((out / "metrics.json").read_text())
    judgements = read_jsonl(out / "judgements.jsonl", Judgement)
    assert len(judgements) == metrics["data"]["n_candidates"] * 2
    again = all_checks(judgements_frame(judgements))
    main = metrics["main"]["checks"]
    assert main["auc_without_empty"]["mean"] == pytest.approx(again["auc_without_empty"]["mean"])
    assert main["auc_with_empty"]["per_task"] == pytest.approx(again["auc_with_empty"]["per_task"])
    assert main["gold"]["mean"] == pytest.approx(again["gold"]["mean"])
    assert main["repeat"]["runs"] == 2
    assert main["run"]["judge_calls"] == again["run"]["judge_calls"]
    assert metrics["main"]["gold_check_informative"] is False  # reference rubrics
    assert metrics["baseline"]["judge"] == "reference"


def test_every_prompt_was_audited_and_none_leaked(report):
    out, script, _ = report
    metrics = json.loads((out / "metrics.json").read_text())
    leak = metrics["leak_audit"]
    hits = metrics["usage"]["total"]["cache_hits"]  # identical prompts within the run
    assert leak["prompts_scanned"] == len(script.calls) + hits
    assert len(script.calls) > 0
    assert leak["needles"] > 0
    assert leak["pipeline_leaks"] == 0


def test_rerun_reuses_everything(report):
    out, script, _ = report
    calls = len(script.calls)
    config = out.parent / "fast.yaml"
    result = runner.invoke(
        app,
        [
            "validate",
            "--judge",
            "scripted:validate-judge",
            "--runs",
            "2",
            "--limit",
            "6",
            "--out",
            str(out),
            "--config",
            str(config),
        ],
    )
    assert result.exit_code == 0, result.output
    assert len(script.calls) == calls
    keys = [j.key for j in read_jsonl(out / "judgements.jsonl", Judgement)]
    assert len(keys) == len(set(keys))


def test_planted_test_name_in_a_description_is_counted(tmp_path):
    rows = [json.loads(line) for line in __import__("gzip").open(SAMPLE_TASKS, "rt")][:2]
    planted = sorted(failing_test_names(rows[0]["FAIL_TO_PASS"]))[0]
    rows[0]["problem_statement"] += f"\nSee {planted} for the failing case."
    data = tmp_path / "tasks.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    inputs = load_inputs(ValidateJob(out=tmp_path, data=str(data)))
    audit = LeakAudit()
    for task_id, task in inputs.tasks.items():
        audit.add_task_tests(inputs.withheld[task_id])
        audit.scan("scripted:x", [Message(role="user", content=task.description)])
    summary = audit.summary()
    assert summary["hits"] >= 1
    assert any(hit["text"] == planted for hit in summary["examples"])


def test_audit_tells_pipeline_leaks_from_the_tasks_own_text():
    audit = LeakAudit()
    audit.add_task_tests(
        {
            "FAIL_TO_PASS": ["tests/t.py::test_parses_empty_port[x]"],
            "test_patch": "+++ b/tests/t.py\n+    assert parse_port('') is None  # edge\n",
        }
    )
    audit.add_legitimate(["The issue mentions test_parses_empty_port itself."])
    audit.scan("m", [Message(role="user", content="test_parses_empty_port")])
    audit.scan("m", [Message(role="user", content="assert parse_port('') is None  # edge")])
    summary = audit.summary()
    assert (summary["hits"], summary["hits_in_inputs"], summary["pipeline_leaks"]) == (2, 1, 1)
    assert distinctive_test_lines("+short\n+" + "x" * 40) == {"x" * 40}
    assert failing_test_names(["a.py::C::test_abcd[1]", "test_efgh (m.C)", "tiny"]) == {
        "test_abcd",
        "test_efgh",
    }


def test_a_test_line_inside_a_model_written_criterion_is_not_a_pipeline_leak():
    """In task mode the generator never sees tests: a criterion that happens to match a
    test-patch line is the model's own text, counted apart; the same line put into the
    prompt anywhere else is still a pipeline leak."""
    line = "assert parse_port('') is None  # edge case"
    audit = LeakAudit()
    audit.add_task_tests({"test_patch": f"+++ b/tests/t.py\n+    {line}\n"})
    criterion = f"Does `{line}` hold after the patch in net/url.py?"
    audit.add_model_text([criterion, None])
    audit.scan("judge", [Message(role="user", content=f"c1: {criterion}\n<diff>...</diff>")])
    audit.scan("judge", [Message(role="user", content=f"c1: {criterion}\n+    {line}")])
    summary = audit.summary()
    assert summary["hits"] == 2
    assert summary["hits_in_model_text"] == 1
    assert summary["pipeline_leaks"] == 1 and summary["hits_in_inputs"] == 0
    assert [h["in_model_text"] for h in summary["examples"]] == [True, False]


def test_browse_command_writes_the_site_of_a_run(report, tmp_path):
    out, _, _ = report
    result = runner.invoke(app, ["browse", str(out), "--out", str(tmp_path / "site")])
    assert result.exit_code == 0, result.output
    assert "browse the run:" in result.output
    index = (tmp_path / "site" / "index.html").read_text()
    tasks = sorted((tmp_path / "site" / "tasks").glob("*.html"))
    assert len(tasks) == 6 and index.count('href="tasks/') == 6
    for name in ("worst-auc.html", "closest-call.html"):
        assert (tmp_path / "site" / name).exists()
    page = tasks[0].read_text()
    assert (
        "Candidates × criteria" in page
        and "scripted:validate-judge" not in page.split("<h2>Rubric")[0]
    )
    missing = runner.invoke(app, ["browse", str(tmp_path / "nothing"), "--out", str(tmp_path)])
    assert missing.exit_code == 2 and "no manifest.json" in missing.output
