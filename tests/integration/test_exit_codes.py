"""Jobs that produce nothing, or only part of their work, end with a clear message and an exit
code a CI job can read: 0 all done, 1 nothing produced, 2 refused, 3 some records failed."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from judge.cli import app
from judge.llm.providers.scripted import install_script
from judge.llm.types import PermanentError
from tests.scripted_llm import diff_reading_judge, rubric_writer

pytestmark = pytest.mark.integration
runner = CliRunner()


def _invoke(args: list[str], config) -> object:
    return runner.invoke(app, [*args, "--config", str(config)], env={"COLUMNS": "200"})


@pytest.fixture
def no_patch_tasks(mini, tmp_path):
    """The mini tasks without their reference patch (as a user's own backlog has)."""
    path = tmp_path / "tasks-no-patch.jsonl"
    rows = [json.loads(line) for line in (mini / "tasks.jsonl").read_text().splitlines()]
    path.write_text(
        "".join(json.dumps({k: v for k, v in r.items() if k != "patch"}) + "\n" for r in rows)
    )
    return path


def test_validate_without_any_rubric_explains_and_exits_1(mini, tmp_path, fast_config):
    install_script("never-json", lambda call: "Sorry, I cannot produce JSON.")
    judge = install_script("unused", diff_reading_judge)
    out = tmp_path / "report"
    result = _invoke(
        [
            "validate",
            "--data",
            str(mini / "tasks.jsonl"),
            "--candidates",
            str(mini / "candidates.jsonl"),
            "--generator",
            "scripted:never-json",
            "--judge",
            "scripted:unused",
            "--runs",
            "1",
            "--out",
            str(out),
        ],
        fast_config,
    )
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output and "KeyError" not in result.output
    assert "no task got a rubric" in result.output and "3 of 3 failed" in result.output
    assert "errors.jsonl" in result.output
    errors = [json.loads(line) for line in (out / "errors.jsonl").read_text().splitlines()]
    assert {e["record"] for e in errors} >= {"calc__calc-1", "text__text-2", "net__net-3"}
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["counts"]["judged"] == 0 and manifest["counts"]["errors"] == len(errors)
    assert not (out / "report.md").exists()
    assert judge.calls == []


def test_validate_whose_judge_fails_everywhere_exits_1(mini, tmp_path, fast_config):
    """Every call is refused (no empty patch, which would need no call): nothing is judged."""
    install_script("mini-writer", rubric_writer)
    rows = [json.loads(line) for line in (mini / "candidates.jsonl").read_text().splitlines()]
    candidates = tmp_path / "non-empty.jsonl"
    candidates.write_text("".join(json.dumps(r) + "\n" for r in rows if r["model_patch"].strip()))
    install_script("revoked", lambda call: PermanentError("HTTP 401: key revoked", kind="auth"))
    out = tmp_path / "report"
    result = _invoke(
        [
            "validate",
            "--data",
            str(mini / "tasks.jsonl"),
            "--candidates",
            str(candidates),
            "--generator",
            "scripted:mini-writer",
            "--judge",
            "scripted:revoked",
            "--runs",
            "1",
            "--out",
            str(out),
            "--no-baseline",
        ],
        fast_config,
    )
    assert result.exit_code == 1, result.output
    assert "produced no judgement with scripted:revoked" in result.output
    assert "HTTP 401: key revoked" in result.output and "Traceback" not in result.output
    errors = (out / "errors.jsonl").read_text().splitlines()
    assert len(errors) == len(rows) - 1 + 3  # non-empty candidates and gold, each named once
    assert (out / "manifest.json").exists() and not (out / "metrics.json").exists()


def test_baseline_without_reference_patches_is_skipped_not_fatal(
    mini, no_patch_tasks, tmp_path, fast_config
):
    install_script("mini-writer-2", rubric_writer)
    install_script("mini-judge", diff_reading_judge)
    out = tmp_path / "report"
    result = _invoke(
        [
            "validate",
            "--data",
            str(no_patch_tasks),
            "--candidates",
            str(mini / "candidates.jsonl"),
            "--generator",
            "scripted:mini-writer-2",
            "--judge",
            "scripted:mini-judge",
            "--runs",
            "1",
            "--out",
            str(out),
        ],
        fast_config,
    )
    assert result.exit_code == 0, result.output
    assert "reference baseline skipped" in result.output
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["baseline"] is None
    assert "none of 3 tasks" in metrics["baseline_skipped"]
    assert "reference baseline skipped" in (out / "report.md").read_text()


@pytest.mark.parametrize(
    ("replies", "code", "summary"),
    [
        ("all-bad", 1, "0 generated, 0 already frozen, 3 failed"),
        ("one-bad", 3, "2 generated, 0 already frozen, 1 failed"),
        ("all-good", 0, "3 generated, 0 already frozen, 0 failed"),
    ],
)
def test_rubrics_exit_code_tells_all_some_or_none(
    mini, tmp_path, fast_config, replies, code, summary
):
    def writer(call):
        if replies == "all-bad" or (replies == "one-bad" and "net__net-3" in call.prompt):
            return "no json"
        return rubric_writer(call)

    install_script(f"writer-{replies}", writer)
    out = tmp_path / "rubrics.jsonl"
    result = _invoke(
        [
            "rubrics",
            str(mini / "tasks.jsonl"),
            "--generator",
            f"scripted:writer-{replies}",
            "--out",
            str(out),
        ],
        fast_config,
    )
    assert result.exit_code == code, result.output
    assert summary in result.output
    assert "Traceback" not in result.output


def test_score_exit_code_tells_all_some_or_none(mini, tmp_path, fast_config):
    rubrics = tmp_path / "rubrics.jsonl"
    assert (
        _invoke(
            [
                "rubrics",
                str(mini / "tasks.jsonl"),
                "--generator",
                "reference",
                "--out",
                str(rubrics),
            ],
            fast_config,
        ).exit_code
        == 0
    )
    install_script("score-judge", diff_reading_judge)
    lines = (mini / "candidates.jsonl").read_text().splitlines()
    unknown = tmp_path / "unknown.jsonl"
    unknown.write_text(
        "".join(
            json.dumps(json.loads(line) | {"instance_id": "nope__nope-1"}) + "\n" for line in lines
        )
    )
    partial = tmp_path / "partial.jsonl"
    partial.write_text("\n".join([*lines, lines[0].replace("calc__calc-1", "nope__nope-1")]))

    def score(candidates, folder):
        return _invoke(
            [
                "score",
                str(mini / "tasks.jsonl"),
                str(candidates),
                "--rubrics",
                str(rubrics),
                "--judge",
                "scripted:score-judge",
                "--out",
                str(tmp_path / folder),
            ],
            fast_config,
        )

    none = score(unknown, "none")
    assert none.exit_code == 1 and "judged 0 now" in none.output
    some = score(partial, "some")
    assert some.exit_code == 3 and "judged 7 now" in some.output and "1 errors" in some.output
    again = score(mini / "candidates.jsonl", "some")
    assert again.exit_code == 0 and "7 already done" in again.output
