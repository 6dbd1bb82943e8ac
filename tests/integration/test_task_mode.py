"""Task-mode rubrics grounded in a repository the test builds: the generator never sees the
merged fix, reads code at the base commit only (the fix commit is the clone's HEAD), records
what it was shown; `repos fetch` clones a local bare repository through a file URL."""

from __future__ import annotations

import json
import subprocess

import pytest
from typer.testing import CliRunner

from judge.cli import app
from judge.llm.providers.scripted import install_script
from judge.rubric_store import load_rubrics
from tests.conftest import CALC_FIX_PATCH

pytestmark = pytest.mark.integration
runner = CliRunner(env={"COLUMNS": "250"})

FIX = CALC_FIX_PATCH


def _writer(call) -> dict:
    return {"criteria": [
        {"question": q, "weight": w, "category": c, "anchors": [], "rationale": "r", "check": None}
        for q, w, c in [
            ("Does the patch change `add` in `calc/ops.py`?", 3, "localization"),
            ("Does `add` return the sum of `a` and `b`?", 5, "root_cause"),
            ("Does `summary` in `calc/report.py` add every value of `xs`?", 4, "behavior"),
            ("Does `add` accept negative numbers such as `-1`?", 2, "edge_cases"),
            ("Does the patch leave `scale` in `calc/ops.py` alone?", 1, "scope"),
        ]
    ]}  # fmt: skip


@pytest.fixture
def tasks_file(calc_tasks_file):
    return calc_tasks_file


def test_task_mode_never_shows_the_fix_and_records_what_it_read(
    calc_repo, tasks_file, tmp_path, fast_config
):
    repos_dir, _, _ = calc_repo
    script = install_script("task-writer", _writer)
    out = tmp_path / "rubrics.jsonl"
    result = runner.invoke(app, ["rubrics", str(tasks_file), "--generator", "scripted:task-writer",
                                 "--rubric-source", "task", "--repos-dir", str(repos_dir),
                                 "--out", str(out), "--config", str(fast_config)])  # fmt: skip
    assert result.exit_code == 0, result.output
    (call,) = script.calls
    prompt = call.prompt
    assert "secret_fixed_sum" not in prompt  # nothing of the fix commit or the merged change
    assert "<reference_patch" not in prompt and "No merged change is available" in prompt
    assert "`calc/ops.py` lines 4-7 (add), at the base commit:" in prompt
    assert "    6     total = a - b" in prompt  # numbered lines of the base version
    rubric = load_rubrics(out)["calc-1"]
    assert rubric.source == "task"
    assert {"path": "calc/ops.py", "name": "add", "lines": [4, 7]} in rubric.context
    assert rubric.context[0]["path"] in ("calc/ops.py", "calc/report.py")


def test_reference_mode_shows_the_fix_and_says_so(calc_repo, tasks_file, tmp_path, fast_config):
    script = install_script("ref-writer", _writer)
    out = tmp_path / "rubrics.jsonl"
    result = runner.invoke(app, ["rubrics", str(tasks_file), "--generator", "scripted:ref-writer",
                                 "--rubric-source", "reference", "--out", str(out),
                                 "--config", str(fast_config)])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "secret_fixed_sum" in script.calls[0].prompt
    assert load_rubrics(out)["calc-1"].source == "reference"
    refused = runner.invoke(app, ["rubrics", str(tasks_file), "--generator", "reference",
                                  "--rubric-source", "task", "--out", str(tmp_path / "x.jsonl"),
                                  "--config", str(fast_config)])  # fmt: skip
    assert refused.exit_code == 2 and "has no task mode" in refused.output


def test_validate_in_task_mode_audits_the_fix_lines(calc_repo, tasks_file, tmp_path, fast_config):
    repos_dir, _, _ = calc_repo
    install_script("val-writer", _writer)
    install_script("val-judge", lambda call: {
        cid: {"reason": "r", "evidence": "", "answer": "no"}
        for cid in ("c1", "c2", "c3", "c4", "c5")
    })  # fmt: skip
    candidates = tmp_path / "candidates.jsonl"
    candidates.write_text("".join(json.dumps(r) + "\n" for r in [
        {"instance_id": "calc-1", "system": "a", "resolved": True, "model_patch": FIX},
        {"instance_id": "calc-1", "system": "b", "resolved": False, "model_patch": ""},
    ]))  # fmt: skip
    out = tmp_path / "report"
    result = runner.invoke(app, ["validate", "--data", str(tasks_file), "--candidates",
                                 str(candidates), "--generator", "scripted:val-writer",
                                 "--judge", "scripted:val-judge", "--runs", "1",
                                 "--repos-dir", str(repos_dir), "--out", str(out),
                                 "--config", str(fast_config)])  # fmt: skip
    assert result.exit_code == 0, result.output
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["main"]["rubric_source"] == "task"
    assert metrics["main"]["gold_check_informative"] is True
    leak = metrics["leak_audit"]
    assert leak["fix_lines"] >= 1 and leak["fix_line_leaks"] == 0
    assert "0 lines of the merged fix in generator prompts" in result.output
    assert "task mode" in (out / "report.md").read_text()
    shown = runner.invoke(app, ["show", str(out), "--candidate", "calc-1@a"])
    assert shown.exit_code == 0, shown.output
    assert "rubric: scripted:val-writer, source task" in shown.output
    assert "rubric context: calc/ops.py:4-7 add" in shown.output


def test_repos_fetch_clones_once_and_checks_base_commits(calc_repo, tasks_file, tmp_path):
    repos_dir, base, _ = calc_repo
    source = tmp_path / "origin" / "calc" / "calc.git"
    source.parent.mkdir(parents=True)
    subprocess.run(["git", "clone", "-q", "--bare", str(repos_dir / "calc" / "calc"),
                    str(source)], check=True)  # fmt: skip
    target = tmp_path / "clones"
    template = f"file://{tmp_path / 'origin'}/{{repo}}.git"
    first = runner.invoke(app, ["repos", "fetch", str(tasks_file), "--repos-dir", str(target),
                                "--url-template", template])  # fmt: skip
    assert first.exit_code == 0, first.output
    assert "1 cloned, 0 already there, 0 failed; 1 base commits checked, 0 missing" in first.output
    assert (target / "calc__calc" / "HEAD").is_file()  # bare: no work tree to read by mistake
    again = runner.invoke(app, ["repos", "fetch", str(tasks_file), "--repos-dir", str(target),
                                "--url-template", template])  # fmt: skip
    assert "0 cloned, 1 already there" in again.output
    lost = tmp_path / "lost.jsonl"
    lost.write_text(tasks_file.read_text().replace(base, "0" * 40))
    missing = runner.invoke(app, ["repos", "fetch", str(lost), "--repos-dir", str(target),
                                  "--url-template", template])  # fmt: skip
    assert missing.exit_code == 3 and "missing calc/calc: " + "0" * 40 in missing.output
