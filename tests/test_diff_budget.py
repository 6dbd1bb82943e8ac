"""The diff budget keeps code in view: files are ranked, never cut by position."""

from __future__ import annotations

import gzip
import json

import pytest

from judge.blind_judge import build_judge_prompt
from judge.config import JudgeSettings
from judge.diff import parse_diff
from judge.diff_budget import OTHER, SOURCE, TESTS, budget_diff, split_files
from judge.loaders import load_tasks
from judge.records import Candidate
from judge.rubric import Criterion, Rubric
from validation.sample import SAMPLE_CANDIDATES, SAMPLE_TASKS


def _file(path: str, added: list[str], start: int = 1) -> str:
    body = "".join(f"+{line}\n" for line in added)
    return (
        f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"
        f"@@ -{start},0 +{start},{len(added)} @@\n{body}"
    )


LOCK = _file("package-lock.json", [f'"dep-{i}": "1.0.{i}",' for i in range(3000)])
CODE = _file("src/app/core.py", ["def fixed():", "    return 42"], 10)
TEST = _file("tests/test_core.py", [f"assert fixed() == {i}" for i in range(40)])
FLOOD = _file("src/app/blank.py", ["   "] * 2000)


@pytest.mark.parametrize(
    ("path", "text", "rank"),
    [
        ("src/app/core.py", CODE, SOURCE),
        ("tests/test_core.py", TEST, TESTS),
        ("package-lock.json", LOCK, OTHER),
        ("src/app/blank.py", FLOOD, OTHER),  # a whitespace flood is no code
        ("app/migrations/0042_auto.py", _file("app/migrations/0042_auto.py", ["x = 1"]), OTHER),
    ],
)
def test_files_are_ranked(path, text, rank):
    (chunk,) = split_files(text)
    assert (chunk.path, chunk.rank) == (path, rank)
    assert chunk.text == text


def test_code_behind_a_huge_lock_file_stays_in_view():
    shown, truncated = budget_diff(LOCK + FLOOD + TEST + CODE, max_tokens=600)
    assert truncated
    assert "+def fixed():\n+    return 42" in shown  # the code, whole
    assert "assert fixed() == 39" in shown  # tests fit after it
    assert '"dep-0"' not in shown and "package-lock.json (+3000/-0 lines)" in shown
    assert "src/app/blank.py (+2000/-0 lines)" in shown
    assert shown.index("tests/test_core.py") < shown.index("src/app/core.py")  # original order
    assert len(shown) <= 600 * 4


def test_a_diff_within_budget_is_untouched_and_one_huge_file_keeps_whole_hunks():
    assert budget_diff(CODE, 600) == (CODE, False)
    two_hunks = _file("src/a.py", ["x = 1"] * 10, 1) + "".join(
        _file("src/a.py", [f"y{i} = 2" for i in range(400)], 100).split("\n", 3)[3:]
    )
    shown, truncated = budget_diff(two_hunks, 200)
    assert truncated and "x = 1" in shown and "y0 = 2" not in shown
    assert "[... 1 more hunks of src/a.py not shown ...]" in shown


def _sample_resolved_patch() -> tuple[str, str]:
    with gzip.open(SAMPLE_CANDIDATES, "rt") as handle:
        rows = [json.loads(line) for line in handle]
    multi = [r for r in rows if r.get("resolved") and r["model_patch"].count("\n@@ ") >= 3]
    row = min(multi, key=lambda r: (len(r["model_patch"]), r["instance_id"]))
    return row["instance_id"], row["model_patch"]


def test_a_correct_sample_patch_behind_a_generated_file_keeps_every_code_hunk():
    task_id, patch = _sample_resolved_patch()
    task = load_tasks(SAMPLE_TASKS).tasks[task_id]
    candidate = Candidate(task_id=task_id, candidate_id="c", patch=LOCK + patch)
    rubric = Rubric(
        task_id=task_id,
        generator="scripted:t",
        prompt_hash="p",
        criteria=[
            Criterion(
                id=f"c{i}", question=f"Does the patch change `x{i}`?", weight=1, category="behavior"
            )
            for i in range(5)
        ],
    )
    prompt = build_judge_prompt(task, candidate, rubric, JudgeSettings(max_diff_tokens=3000), 0)
    text = "\n".join(m.content for m in prompt.messages)
    assert prompt.truncated and '"dep-10"' not in text
    code_files = parse_diff(patch).files
    assert code_files
    for file in code_files:
        for hunk in file.hunks:
            for line in hunk.added:
                assert f"+{line}" in text
