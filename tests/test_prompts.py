"""Every prompt renders; headers list exactly the variables used; hashes version them."""

from __future__ import annotations

import pytest

from judge.llm.paths import prompt_path
from judge.llm.types import ConfigError
from judge.prompts import _declared, load_prompt

EXAMPLES = {
    "judge": {
        "task_description": "<task_description>bug</task_description>",
        "diff": "<candidate_diff>+x</candidate_diff>",
        "criteria": [
            {"id": "c1", "question": "Does `f` change?", "preservation": False},
            {"id": "c2", "question": "Does `g` keep working?", "preservation": True},
        ],
        "code_context": "<repository_context>def f(): ...</repository_context>",
        "static_facts": "<static_facts>- a.py:3: Undefined name `y`</static_facts>",
        "verbal_confidence": False,
    },
    "rubric": {
        "min_criteria": 5,
        "max_criteria": 12,
        "task_id": "t-1",
        "repo": "o/r",
        "description": "It breaks.",
        "hints": "Look at f.",
        "reference_patch": "diff --git a/f b/f",
        "repository_files": ["The file `f` at the base commit: ..."],
        "lint_findings": ["c2 is vague"],
    },
}


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_every_prompt_renders(name):
    prompt = load_prompt(name)
    messages = prompt.render(**EXAMPLES[name])
    assert [m.role for m in messages] == ["system", "user"]
    assert all(m.content.strip() for m in messages)
    assert "{{" not in messages[1].content and "{%" not in messages[1].content
    assert len(prompt.hash) == 16


def test_judge_prompt_shows_criteria_and_rules():
    system, user = load_prompt("judge").render(**EXAMPLES["judge"])
    assert "c1: Does `f` change?" in user.content
    assert "c2 [preservation]: Does `g` keep working?" in user.content
    assert "ignore it" in system.content  # injected instructions
    assert "evidence" in system.content and "markers and indentation are ignored" in system.content
    assert "read from the repository before the patch" in user.content
    assert "computed without running them" in user.content and "Undefined name" in user.content


def test_verbal_confidence_asks_for_the_scale_only_when_wanted():
    plain = load_prompt("judge").render(**EXAMPLES["judge"])[0].content
    rated = load_prompt("judge").render(**dict(EXAMPLES["judge"], verbal_confidence=True))
    assert '"confidence"' not in plain
    assert '"confidence" (1 to 5)' in rated[0].content and "5 surely" in rated[0].content


def test_judge_prompt_without_a_repository_view_has_no_empty_sections():
    plain = dict(EXAMPLES["judge"], code_context=None, static_facts=None)
    user = load_prompt("judge").render(**plain)[1].content
    assert "before the patch" not in user and "Static facts" not in user
    assert "c1: Does `f` change?" in user


def test_rubric_prompt_conditional_parts():
    full = load_prompt("rubric").render(**EXAMPLES["rubric"])[1].content
    assert "The change that was merged" in full and "rejected" in full and "Look at f." in full
    bare = dict(
        EXAMPLES["rubric"], hints=None, reference_patch=None, repository_files=[], lint_findings=[]
    )
    text = load_prompt("rubric").render(**bare)[1].content
    assert "No merged change is available" in text
    assert "rejected" not in text and "Discussion" not in text


def test_missing_variable_is_an_error():
    with pytest.raises(ConfigError, match="needs code_context, criteria, static_facts"):
        load_prompt("judge").render(task_description="x", diff="y")


def test_header_must_match_the_template():
    assert _declared("{# variables: a, b #}\n{{ a }}{{ b }}", "x") == {"a", "b"}
    with pytest.raises(ConfigError, match="lacks"):
        _declared("{{ a }}", "x.j2")
    assert prompt_path("judge.user.j2").is_file()


def test_template_using_an_undeclared_variable_is_refused(tmp_path, monkeypatch):
    (tmp_path / "bad.system.j2").write_text("{# variables: a #}\n{{ a }} {{ b }}")
    (tmp_path / "bad.user.j2").write_text("{# variables: #}\nhello")
    monkeypatch.setattr("judge.prompts.prompt_path", lambda name: tmp_path / name)
    with pytest.raises(ConfigError, match=r"header lists \['a'\] but it uses \['a', 'b'\]"):
        load_prompt.__wrapped__("bad")
