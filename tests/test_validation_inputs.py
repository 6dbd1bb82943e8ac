"""Labelled candidates: flat files, folders, the experiments layout, system grouping."""

from __future__ import annotations

import json

import pytest

from judge.llm.types import ConfigError
from validation.candidates import gold_candidates, load_labelled
from validation.systems import SystemRules, load_system_rules, parse_group_option
from validation.validate import ValidateJob, load_inputs

RULES = load_system_rules()


@pytest.mark.parametrize(
    ("run", "expected"),
    [
        (
            "mini-v2.2.8_claude-sonnet-4-5_I0-run3",
            ("mini-SWE-agent + Claude Sonnet 4.5", "standard"),
        ),
        (
            "mini-v2.2.8_claude-sonnet-4-5_P4-generic-issue-removed-run1",
            ("mini-SWE-agent + Claude Sonnet 4.5", "issue-removed"),
        ),
        (
            "autocoderover-v20240408_gpt-4-0125-preview_acr-run-2_LiteOverlap",
            ("AutoCodeRover + GPT-4", "standard"),
        ),
        ("someone-else", ("someone-else", "standard")),
    ],
)
def test_bundled_rules(run, expected):
    assert RULES.assign(run) == expected


def test_group_option_and_bad_rules(tmp_path):
    rules = parse_group_option(["^acme-=Acme"])
    assert rules.assign("acme-run-3") == ("Acme", "standard")
    with pytest.raises(ConfigError, match="PATTERN=SYSTEM"):
        parse_group_option(["nonsense"])
    bad = tmp_path / "rules.yaml"
    bad.write_text("rules:\n  - {pattern: '(', system: x}\n")
    with pytest.raises(ConfigError, match="invalid system rules"):
        load_system_rules(bad)


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_flat_file_folder_and_experiments_layout(tmp_path):
    folder = tmp_path / "flat"
    folder.mkdir()
    _write(
        folder / "acme-run-1.jsonl",
        [
            {"instance_id": "t1", "model_patch": "diff", "resolved": True},
            {"instance_id": "t2", "model_patch": "", "resolved": False},
            {"instance_id": "t3", "model_patch": "diff"},  # no verdict
        ],
    )
    run = tmp_path / "20240101_agent"
    (run / "results").mkdir(parents=True)
    _write(
        run / "all_preds.jsonl",
        [
            {"instance_id": "t1", "model_name_or_path": "agent-x", "model_patch": "diff"},
            {"instance_id": "t2", "model_name_or_path": "agent-x", "model_patch": "diff"},
        ],
    )
    (run / "results" / "results.json").write_text(json.dumps({"resolved": ["t2"]}))
    rules = SystemRules(rules=parse_group_option(["^acme-run=Acme"]).rules)
    loaded = load_labelled([folder, run], rules)
    labels = {c.candidate_id: c.labels for c in loaded.candidates}
    assert labels["t1@acme-run-1"]["system"] == "Acme"  # run name from the file name
    assert labels["t2@acme-run-1"]["empty"] is True
    assert labels["t2@agent-x"]["resolved"] is True and labels["t1@agent-x"]["resolved"] is False
    assert labels["t1@agent-x"]["run"] == "agent-x"
    assert [e.source for e in loaded.errors] == ["t3@acme-run-1"]


def test_missing_results_file_is_named(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    _write(run / "all_preds.jsonl", [{"instance_id": "t1", "model_patch": "d"}])
    loaded = load_labelled([run], RULES)
    assert loaded.candidates == []
    assert "results.json" in loaded.errors[0].source


def test_sample_inputs_limit_repos_and_gold(tmp_path):
    inputs = load_inputs(ValidateJob(out=tmp_path, limit=3))
    assert len(inputs.tasks) == 3
    gold = [c for c in inputs.candidates if c.labels.get("gold")]
    assert len(gold) == 3 and all(c.patch for c in gold)
    assert all("FAIL_TO_PASS" in w for w in inputs.withheld.values())
    django = load_inputs(ValidateJob(out=tmp_path, repos=("django/django",)))
    assert {t.repo for t in django.tasks.values()} == {"django/django"}
    assert len(gold_candidates({})) == 0
