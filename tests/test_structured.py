"""Validation of structured replies and the repair conversation (scripted provider)."""

from __future__ import annotations

from typing import Literal

import pytest
from pydantic import BaseModel

from judge.llm.providers.scripted import install_script
from judge.llm.structured import repair_messages, strip_code_fence, validate_reply
from judge.llm.types import Message


class Answer(BaseModel):
    answer: Literal["yes", "no"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"answer": "yes"}', "yes"),
        ('```json\n{"answer": "no"}\n```', "no"),
        ('```\n{"answer": "yes"}\n```\n', "yes"),
    ],
)
def test_valid_replies(text, expected):
    parsed, reason = validate_reply(Answer, text)
    assert reason is None
    assert parsed.answer == expected


@pytest.mark.parametrize(
    ("text", "reason_part"),
    [("", "empty"), ("   ", "empty"), ('{"answer": "maybe"}', "answer"), ("yes", "JSON")],
)
def test_invalid_replies_say_why(text, reason_part):
    parsed, reason = validate_reply(Answer, text)
    assert parsed is None
    assert reason_part in reason


def test_long_errors_are_cut_with_a_marker():
    class Many(BaseModel):
        items: list[int]

    _, reason = validate_reply(Many, '{"items": [' + ",".join(['"x"'] * 500) + "]}")
    assert reason.endswith("[error truncated]")
    assert len(reason) < 2100


def test_fence_stripping_leaves_plain_text_alone():
    assert strip_code_fence('{"a": 1}') == '{"a": 1}'
    assert strip_code_fence("```json\n[1]\n```") == "[1]"


def test_repair_conversation_appends_reply_and_reason():
    original = (Message(role="user", content="q"),)
    repaired = repair_messages(original, "oops", "field required")
    assert repaired[0] == original[0]
    assert repaired[1] == Message(role="assistant", content="oops")
    assert "field required" in repaired[2].content
    assert repaired[2].role == "user"


async def test_unparsed_after_repair_keeps_raw_text(make_client):
    script = install_script("bad-twice", ["nope", '{"answer": "perhaps"}'])
    result = (
        await make_client()
        .model("scripted:bad-twice")
        .complete([Message(role="user", content="q")], Answer)
    )
    assert result.status == "unparsed"
    assert result.text == '{"answer": "perhaps"}'
    assert result.usage.calls == 2
    assert len(script.calls) == 2
    assert "nope" in script.calls[1].prompt


async def test_plain_text_requests_skip_validation(make_client):
    install_script("plain", ["just text"])
    result = (
        await make_client().model("scripted:plain").complete([Message(role="user", content="q")])
    )
    assert (result.status, result.text, result.parsed) == ("ok", "just text", None)
