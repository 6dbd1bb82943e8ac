"""End to end on the scripted provider: tasks → frozen rubrics → blind judgements → show."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from judge.cli import app
from judge.jsonl import read_jsonl
from judge.judgement import Judgement
from judge.llm.providers.scripted import install_script
from judge.rubric import Rubric
from tests.scripted_llm import diff_reading_judge, rubric_writer

pytestmark = pytest.mark.integration
runner = CliRunner()

LABELS = ("acme-coder-7b", "zeta-llm-70b", "omega-agent-1")
TEST_CONTENT = ("secret_marker_xyz", "hidden_abc", "hidden_q9", "test_patch", "FAIL_TO_PASS")


def _run(*args: str):
    result = runner.invoke(app, list(args), env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture
def scored(mini, workdir, fast_config):
    """Rubrics then judgements for the mini set; returns the scripts and the run folder."""
    writer = install_script("e2e-writer", rubric_writer)
    judge = install_script("e2e-judge", diff_reading_judge)
    tasks, cands = str(mini / "tasks.jsonl"), str(mini / "candidates.jsonl")
    _run(
        "rubrics",
        tasks,
        "--generator",
        "scripted:e2e-writer",
        "--out",
        "rubrics.jsonl",
        "--config",
        str(fast_config),
    )
    _run(
        "score",
        tasks,
        cands,
        "--rubrics",
        "rubrics.jsonl",
        "--judge",
        "scripted:e2e-judge",
        "--out",
        "run",
        "--config",
        str(fast_config),
    )
    return writer, judge, workdir / "run"


def test_scores_are_the_hand_computed_weighted_shares(scored):
    _, _, run = scored
    scores = {j.candidate_id: j.score for j in read_jsonl(run / "judgements.jsonl", Judgement)}
    assert scores == pytest.approx(
        {
            "calc__calc-1@acme-coder-7b": (3 + 5 + 2 + 2) / (3 + 5 + 2 + 2 + 1),
            "calc__calc-1@zeta-llm-70b": (3 + 5) / (3 + 5 + 2 + 2 + 1),
            "calc__calc-1@omega-agent-1": 0.0,  # empty patch
            "text__text-2@acme-coder-7b": (3 + 5 + 2 + 2) / (3 + 5 + 2 + 2 + 1),
            "text__text-2@zeta-llm-70b": 0 / (3 + 5 + 2 + 2 + 1),
            "net__net-3@acme-coder-7b": (3 + 5 + 4 + 2) / (3 + 5 + 4 + 2 + 1),
            "net__net-3@zeta-llm-70b": (3 + 2) / (3 + 5 + 4 + 2 + 1),  # a comment is no fix
        }
    )


def test_rubrics_are_frozen_and_judgements_cite_them(scored, workdir, mini, fast_config):
    writer, _, run = scored
    rubrics = {r.task_id: r for r in read_jsonl(workdir / "rubrics.jsonl", Rubric)}
    assert sorted(rubrics) == ["calc__calc-1", "net__net-3", "text__text-2"]
    assert all(
        len(r.criteria) == 5 and r.generator == "scripted:e2e-writer" for r in rubrics.values()
    )
    for judgement in read_jsonl(run / "judgements.jsonl", Judgement):
        assert judgement.rubric_hash == rubrics[judgement.task_id].rubric_hash
        assert sorted(judgement.order) == (
            []
            if judgement.status == "empty"
            else sorted(c.id for c in rubrics[judgement.task_id].criteria)
        )
    calls_before = len(writer.calls)
    _run(
        "rubrics",
        str(mini / "tasks.jsonl"),
        "--generator",
        "scripted:e2e-writer",
        "--out",
        "rubrics.jsonl",
        "--config",
        str(fast_config),
    )
    assert len(writer.calls) == calls_before  # frozen: no regeneration without --force
    assert len(read_jsonl(workdir / "rubrics.jsonl", Rubric)) == 3


def test_labels_are_kept_beside_results_and_the_empty_patch_costs_no_call(scored):
    _, judge, run = scored
    judgements = {j.candidate_id: j for j in read_jsonl(run / "judgements.jsonl", Judgement)}
    assert judgements["calc__calc-1@acme-coder-7b"].labels == {
        "model_name_or_path": "acme-coder-7b",
        "resolved": True,
    }
    empty = judgements["calc__calc-1@omega-agent-1"]
    assert (empty.status, empty.coverage, empty.usage.calls) == ("empty", 1.0, 0)
    assert len(judge.calls) == 6  # seven candidates, one of them empty


def test_no_prompt_sees_labels_or_tests(scored):
    writer, judge, _ = scored
    for call in judge.calls:
        text = "\n".join(m.content for m in call.messages)
        assert not [s for s in (*LABELS, *TEST_CONTENT) if s.lower() in text.lower()]
        assert "resolved" not in text and "Co-authored-by" not in text
    for call in writer.calls:
        text = "\n".join(m.content for m in call.messages)
        assert not [s for s in TEST_CONTENT if s in text]
        assert "model_patch" not in text and "acme" not in text.lower()


def test_manifest_records_provenance(scored):
    manifest = json.loads((scored[2] / "manifest.json").read_text())
    assert manifest["command"] == "score"
    assert manifest["counts"]["judgements_on_disk"] == 7
    assert manifest["counts"]["errors"] == 0
    assert manifest["inputs"]["judge"] == "scripted:e2e-judge"
    assert manifest["settings"]["judge"]["strict_evidence"] is True
    assert manifest["usage"]["total"]["calls"] == 6


def test_rerun_resumes_without_duplicates(scored, mini, fast_config):
    _, judge, run = scored
    calls = len(judge.calls)
    result = _run(
        "score",
        str(mini / "tasks.jsonl"),
        str(mini / "candidates.jsonl"),
        "--rubrics",
        "rubrics.jsonl",
        "--judge",
        "scripted:e2e-judge",
        "--out",
        "run",
        "--config",
        str(fast_config),
    )
    assert "7 already done" in result.output
    assert len(judge.calls) == calls
    assert len(read_jsonl(run / "judgements.jsonl", Judgement)) == 7


def test_show_prints_the_table(scored):
    result = _run("show", str(scored[2]), "--candidate", "net__net-3@zeta-llm-70b")
    assert "def parse_port" in result.output
    assert "score 0.333" in result.output
    assert "int(text)" in result.output
    missing = runner.invoke(app, ["show", str(scored[2]), "--candidate", "nope"])
    assert missing.exit_code == 2 and "no judgement" in missing.output


def test_reference_generator_and_judge_need_no_model(mini, workdir):
    tasks, cands = str(mini / "tasks.jsonl"), str(mini / "candidates.jsonl")
    made = _run("rubrics", tasks, "--generator", "reference", "--out", "ref-rubrics.jsonl")
    assert "3 generated" in made.output
    _run(
        "score",
        tasks,
        cands,
        "--rubrics",
        "ref-rubrics.jsonl",
        "--judge",
        "reference",
        "--out",
        "ref-run",
        "--runs",
        "2",
    )
    judgements = read_jsonl(workdir / "ref-run" / "judgements.jsonl", Judgement)
    assert len(judgements) == 14
    by_id = {(j.candidate_id, j.run_index): j for j in judgements}
    assert by_id[("net__net-3@acme-coder-7b", 0)].score == 1.0  # the fix matches the reference
    assert by_id[("text__text-2@zeta-llm-70b", 0)].score == 0.0  # wrong file
    assert all(j.usage.calls == 0 and j.judge_model == "reference" for j in judgements)
    assert (
        by_id[("calc__calc-1@zeta-llm-70b", 0)].score
        == by_id[("calc__calc-1@zeta-llm-70b", 1)].score
    )


def _all_no(call):
    from tests.scripted_llm import _CRITERION

    return {
        cid: {"reason": "r", "evidence": "", "answer": "no"}
        for cid, _ in _CRITERION.findall(call.messages[-1].content)
    }


def _prefers_fix(call):
    """Prefers the patch that contains the real fix, in whichever position it is shown."""
    prompt = call.messages[-1].content
    a, b = prompt.index("Patch A"), prompt.index("Patch B")
    return {"reason": "r", "better": "A" if "TypeError" in prompt[a:b] else "B"}


def test_select_with_pairwise_tie_breaks(mini, workdir, fast_config):
    install_script("sel-writer", rubric_writer)
    install_script("sel-judge", _all_no)  # every candidate scores 0: all tied
    pairwise = install_script("sel-pairwise", _prefers_fix)
    tasks, cands = str(mini / "tasks.jsonl"), str(mini / "candidates.jsonl")
    _run(
        "rubrics",
        tasks,
        "--generator",
        "scripted:sel-writer",
        "--out",
        "r.jsonl",
        "--config",
        str(fast_config),
    )
    _run(
        "score",
        tasks,
        cands,
        "--rubrics",
        "r.jsonl",
        "--judge",
        "scripted:sel-judge",
        "--out",
        "run",
        "--config",
        str(fast_config),
    )
    plain = _run("select", "run", "--out", "plain.jsonl")
    assert "smaller_diff" in plain.output
    _run(
        "select",
        "run",
        "--out",
        "picks.jsonl",
        "--pairwise",
        "scripted:sel-pairwise",
        "--top-k",
        "2",
        "--config",
        str(fast_config),
    )
    from judge.jsonl import read_jsonl as read
    from judge.select import Pick

    picks = {p.task_id: p for p in read(workdir / "picks.jsonl", Pick)}
    calc = picks["calc__calc-1"]
    assert calc.decided_by == "pairwise"
    assert calc.candidate_id == "calc__calc-1@acme-coder-7b"  # the full fix, though larger
    assert calc.pairwise["comparisons"] == 2
    assert len(pairwise.calls) >= 2
    assert not any("acme-coder-7b" in c.messages[-1].content.lower() for c in pairwise.calls)
