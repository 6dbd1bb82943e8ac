"""The judge sees the code around the change and the static facts, read at the base commit of
a repository the test builds; `score --repos-dir` records them and `show` prints them."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from judge.cli import app
from judge.config import JudgeSettings
from judge.judges import make_judge
from judge.llm.providers.scripted import install_script
from judge.records import Candidate, Task
from judge.rubric import Criterion, Rubric
from tests.scripted_llm import diff_reading_judge

pytestmark = pytest.mark.integration
runner = CliRunner()

UNDEFINED = (
    "diff --git a/calc/ops.py b/calc/ops.py\n--- a/calc/ops.py\n+++ b/calc/ops.py\n"
    "@@ -6,2 +6,2 @@\n-    total = a - b\n+    total = fsum_exact(a, b)\n     return total\n"
)
RUBRIC = Rubric(
    task_id="calc-1",
    generator="scripted:t",
    prompt_hash="p",
    criteria=[
        Criterion(id="c1", question="Does `add` in calc/ops.py return `a + b`?", weight=5,
                  category="root_cause"),
        Criterion(id="c2", question="Does `summary` in calc/report.py keep working?", weight=2,
                  category="preservation", anchors=["summary"]),
    ],
)  # fmt: skip


def _task(base: str) -> Task:
    return Task(task_id="calc-1", description="add() subtracts", repo="calc/calc",
                base_commit=base)  # fmt: skip


async def test_the_prompt_carries_context_and_facts_within_budget(calc_repo, make_client, tmp_path):
    repos_dir, base, _ = calc_repo
    script = install_script("view-judge", diff_reading_judge)
    settings = JudgeSettings(max_context_tokens=400, view_cache_dir=str(tmp_path / "views"))
    judge = make_judge("scripted:view-judge", make_client(), settings, repos_dir=repos_dir)
    candidate = Candidate(task_id="calc-1", candidate_id="x", patch=UNDEFINED,
                          labels={"system": "nova-coder"})  # fmt: skip
    judgement = await judge.judge(_task(base), candidate, RUBRIC, 0)
    prompt = script.calls[0].messages[1].content
    context = prompt.split("<repository_context", 1)[1].split("</repository_context", 1)[0]
    assert '"""Add two numbers."""' in context and "total = a - b" in context
    assert "secret_fixed_sum" not in prompt  # the later commit is never read
    assert len(context) <= 400 * 4 + 100  # within judge.max_context_tokens
    assert "Undefined name `fsum_exact` (F821, new)" in prompt.split("<static_facts", 1)[1]
    assert judgement.facts[0]["kind"] == "lint" and judgement.facts[0]["line"] == 6
    assert judgement.view["available"] and judgement.view["context"][0]["name"] == "add"
    assert "c2 [preservation]:" in prompt


async def test_without_a_clone_the_judgement_says_facts_were_unavailable(
    calc_repo, make_client, tmp_path
):
    _, base, _ = calc_repo
    script = install_script("view-judge-2", diff_reading_judge)
    judge = make_judge("scripted:view-judge-2", make_client(), JudgeSettings(view_cache_dir=""),
                       repos_dir=tmp_path / "empty")  # fmt: skip
    candidate = Candidate(task_id="calc-1", candidate_id="x", patch=UNDEFINED)
    judgement = await judge.judge(_task(base), candidate, RUBRIC, 0)
    assert judgement.facts is None and not judgement.view["available"]
    assert "no clone of 'calc/calc'" in judgement.view["note"]
    assert "Static facts" not in script.calls[0].messages[1].content


def test_score_with_repos_dir_records_facts_and_show_prints_them(calc_repo, tmp_path, fast_config):
    repos_dir, base, _ = calc_repo
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(
        json.dumps(
            {
                "instance_id": "calc-1",
                "repo": "calc/calc",
                "base_commit": base,
                "problem_statement": "add() subtracts",
            }
        )
        + "\n"
    )
    candidates = tmp_path / "candidates.jsonl"
    candidates.write_text(json.dumps({"instance_id": "calc-1", "system": "nova",
                                      "model_patch": UNDEFINED}) + "\n")  # fmt: skip
    rubrics = tmp_path / "rubrics.jsonl"
    rubrics.write_text(RUBRIC.model_dump_json() + "\n")
    install_script("cli-view-judge", diff_reading_judge)
    out = tmp_path / "run"
    result = runner.invoke(app, ["score", str(tasks), str(candidates), "--rubrics", str(rubrics),
                                 "--judge", "scripted:cli-view-judge", "--out", str(out),
                                 "--repos-dir", str(repos_dir), "--config", str(fast_config)],
                           env={"COLUMNS": "200"})  # fmt: skip
    assert result.exit_code == 0, result.output
    judgement = json.loads((out / "judgements.jsonl").read_text().splitlines()[0])
    assert judgement["facts"][0]["message"].startswith("Undefined name `fsum_exact`")
    shown = runner.invoke(app, ["show", str(out), "--candidate", "calc-1@nova"],
                          env={"COLUMNS": "200"})  # fmt: skip
    assert shown.exit_code == 0, shown.output
    assert "fact: calc/ops.py:6: Undefined name `fsum_exact`" in shown.output
    assert "context: changed_body calc/ops.py:4-7 add" in shown.output
    assert "[preservation: only subtracts]" in shown.output
    site = runner.invoke(app, ["browse", str(out), "--out", str(tmp_path / "site")])
    assert site.exit_code == 0, site.output
    (page,) = (tmp_path / "site" / "tasks").glob("*.html")
    html = page.read_text()  # the patch came from the run's candidates file, via the store
    assert "fsum_exact(a, b)" in html and "Undefined name `fsum_exact`" in html
    assert '<span class="tag">pick</span>' in html


async def test_the_tie_break_sees_the_same_view_as_the_judge(calc_repo, make_client, tmp_path):
    from judge.repo.view import CodeViewer
    from judge.tiebreak import Pair, TieBreakInputs, compare

    repos_dir, base, _ = calc_repo
    clean = UNDEFINED.replace("fsum_exact(a, b)", "a + b")
    candidates = {
        "broken": Candidate(task_id="calc-1", candidate_id="broken", patch=UNDEFINED),
        "clean": Candidate(task_id="calc-1", candidate_id="clean", patch=clean),
    }
    script = install_script("view-compare", lambda call: {
        "reason": "r", "better": "B" if "Patch A: <static_facts" in call.prompt
        and "Undefined name" in call.prompt.split("Patch B:")[0].split("Patch A: ")[-1]
        else "A"})  # fmt: skip
    inputs = TieBreakInputs("scripted:view-compare", {"calc-1": _task(base)}, candidates,
                            {"calc-1": RUBRIC}, viewer=CodeViewer(repos_dir, 2000))  # fmt: skip
    verdicts = await compare(make_client(), inputs, [Pair("calc-1", "broken", "clean")],
                             JudgeSettings())  # fmt: skip
    prompt = script.calls[0].prompt
    assert "<repository_context" in prompt and "total = a - b" in prompt
    assert "Undefined name `fsum_exact`" in prompt and "- none found" in prompt
    assert verdicts == {Pair("calc-1", "broken", "clean"): "clean"}
