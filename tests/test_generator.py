"""Rubric generation on the scripted provider: what the generator sees, lint, one regeneration."""

from __future__ import annotations

import pytest

from judge.config import RubricSettings
from judge.llm.providers.scripted import ScriptedCall, install_script
from judge.llm.types import GenerationOptions
from judge.loaders import load_tasks
from rubric_gen.generator import RubricFailure, generate_rubric, generator_messages
from tests.scripted_llm import rubric_writer

VAGUE = {
    "criteria": [
        {
            "question": "Is the patch correct?",
            "weight": 3,
            "category": "behavior",
            "anchors": [],
            "rationale": "",
            "check": None,
        }
    ]
    * 5
}


@pytest.fixture
def task(mini):
    return load_tasks(mini / "tasks.jsonl").tasks["calc__calc-1"]


def test_generator_sees_task_and_reference_but_no_tests(task):
    text = "\n".join(m.content for m in generator_messages(task, RubricSettings()))
    assert task.description in text
    assert "return a + b" in text  # the reference patch
    assert "Probably a typo" in text  # hints
    assert "secret_marker_xyz" not in text and "FAIL_TO_PASS" not in text


async def test_good_rubric_is_frozen_with_provenance(task, make_client):
    install_script("gen-good", rubric_writer)
    model = make_client().model("scripted:gen-good")
    rubric = await generate_rubric(model, task, RubricSettings())
    assert [c.id for c in rubric.criteria] == ["c1", "c2", "c3", "c4", "c5"]
    assert rubric.generator == "scripted:gen-good"
    assert rubric.total_weight == 3 + 5 + 2 + 2 + 1
    assert len(rubric.prompt_hash) == 16 and rubric.created_at


async def test_lint_failure_is_regenerated_once_with_findings(task, make_client):
    script = install_script("gen-retry", [VAGUE, rubric_writer(_call_for(task))])
    rubric = await generate_rubric(
        make_client().model("scripted:gen-retry"), task, RubricSettings()
    )
    assert len(rubric.criteria) == 5
    assert len(script.calls) == 2
    assert "c1 is vague" in script.calls[1].prompt
    assert "was rejected" in script.calls[1].prompt


async def test_second_lint_failure_reports_the_task(task, make_client):
    install_script("gen-bad", [VAGUE, VAGUE])
    with pytest.raises(RubricFailure, match=r"calc__calc-1: rubric failed lint twice: .*vague"):
        await generate_rubric(make_client().model("scripted:gen-bad"), task, RubricSettings())


async def test_unparsed_generator_reply_reports_the_task(task, make_client):
    install_script("gen-garbage", ["no json", "still none"])
    with pytest.raises(RubricFailure, match="unparsed generator reply"):
        await generate_rubric(make_client().model("scripted:gen-garbage"), task, RubricSettings())


def _call_for(task):
    return ScriptedCall("x", generator_messages(task, RubricSettings()), None, GenerationOptions())
