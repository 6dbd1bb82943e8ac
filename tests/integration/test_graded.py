"""Graded answers: P(yes) from OpenAI-format log-probabilities served on loopback, and from a
stated confidence with the scripted provider; graded scores by hand arithmetic."""

from __future__ import annotations

import json

import pytest

from judge.config import JudgeSettings
from judge.judges import make_judge
from judge.llm.cache import request_key
from judge.llm.providers.scripted import install_script
from judge.llm.types import GenerationOptions, LLMRequest, Message
from judge.rubric import Criterion, Rubric
from tests.scripted_llm import diff_reading_judge, messages_of
from tests.test_blind_judge import CANDIDATE, TASK

pytestmark = pytest.mark.integration

# the scripted judge looks for each question's first `span` in the diff: c1 (weight 2, a short
# line) and c2 (5, a long line) are met, c3 (3) is not
RUBRIC = Rubric(
    task_id="t1", generator="scripted:test", prompt_hash="p",
    criteria=[
        Criterion(id="c1", question="Does `import math` reach geo.py?", weight=2,
                  category="localization"),
        Criterion(id="c2", question="Does `math.pi * r ** 2` compute the area?", weight=5,
                  category="root_cause"),
        Criterion(id="c3", question="Does `ValueError` reject a negative radius?", weight=3,
                  category="edge_cases"),
    ],
)  # fmt: skip


async def test_logprobs_from_the_openai_wire_format_grade_each_answer(
    server, http_settings, make_client
):
    server.responder = lambda body: json.dumps(diff_reading_judge_call(body))
    judge = make_judge("openai:gpt-4.1-mini", make_client(http_settings), JudgeSettings())
    judgement = await judge.judge(TASK, CANDIDATE, RUBRIC, 0)
    sent = server.requests[-1].body
    assert sent["logprobs"] is True and sent["top_logprobs"] == 5
    p = {r.criterion_id: r.p_yes for r in judgement.criteria}
    assert p == {"c1": pytest.approx(0.9), "c2": pytest.approx(0.9), "c3": pytest.approx(0.1)}
    assert judgement.score == pytest.approx((2 + 5) / 10)
    assert judgement.graded_score == pytest.approx((2 * 0.9 + 5 * 0.9 + 3 * 0.1) / 10)


def diff_reading_judge_call(body: dict) -> dict:
    from judge.llm.providers.scripted import ScriptedCall

    return diff_reading_judge(ScriptedCall(body["model"], messages_of(body), None,
                                           GenerationOptions()))  # fmt: skip


async def test_a_stated_confidence_grades_answers_where_there_are_no_logprobs(make_client):
    script = install_script("rated-judge", diff_reading_judge)
    judge = make_judge("scripted:rated-judge", make_client(), JudgeSettings(confidence="verbal"))
    judgement = await judge.judge(TASK, CANDIDATE, RUBRIC, 0)
    assert '"confidence" (1 to 5)' in script.calls[0].messages[0].content
    p = {r.criterion_id: r.p_yes for r in judgement.criteria}
    # c1 quotes a short line (confidence 4 → 0.75), c2 a long one (5 → 0.95), c3 is a no (1)
    assert p == {"c1": 0.75, "c2": 0.95, "c3": 0.05}
    assert judgement.graded_score == pytest.approx((2 * 0.75 + 5 * 0.95 + 3 * 0.05) / 10)


async def test_off_keeps_answers_binary(make_client):
    install_script("binary-judge", diff_reading_judge)
    judge = make_judge("scripted:binary-judge", make_client(), JudgeSettings(confidence="off"))
    judgement = await judge.judge(TASK, CANDIDATE, RUBRIC, 0)
    assert all(r.p_yes is None for r in judgement.criteria)
    assert judgement.graded_score == judgement.score == pytest.approx(7 / 10)


def test_the_cache_key_says_whether_logprobs_were_asked():
    messages = (Message(role="user", content="x"),)
    plain = request_key("openai:m", LLMRequest(messages, options=GenerationOptions()))
    graded = request_key("openai:m", LLMRequest(messages, options=GenerationOptions(logprobs=True)))
    assert plain != graded and len(plain) == len(graded) == 64


@pytest.mark.parametrize(
    ("spec", "setting", "mode"),
    [
        ("openai:gpt-4.1-mini", "auto", "logprobs"),
        ("openai:gpt-5-mini", "auto", "verbal"),  # reasoning models refuse logprobs
        ("openai:o4-mini", "auto", "verbal"),
        ("anthropic:claude-haiku-4-5", "auto", "verbal"),
        ("scripted:x", "auto", "none"),
        ("openai:gpt-5", "off", "off"),
    ],
)
def test_how_each_judge_grades_its_answers(spec, setting, mode, http_settings, make_client):
    install_script("x", [])
    judge = make_judge(spec, make_client(http_settings), JudgeSettings(confidence=setting))
    assert judge._confidence() == mode
