"""Rubric generation and judging through the real openai and anthropic SDKs (loopback server)."""

from __future__ import annotations

import json

import pytest

from judge.config import load_app_settings
from judge.jsonl import read_jsonl
from judge.judgement import Judgement
from judge.llm.providers.scripted import ScriptedCall
from judge.llm.types import GenerationOptions
from judge.rubric import Rubric
from judge.score_run import ScoreJob, score
from rubric_gen.run import RubricJob, generate_rubrics
from tests.scripted_llm import diff_reading_judge, messages_of, rubric_writer

pytestmark = pytest.mark.integration


def protocol_responder(body: dict) -> str:
    """Answer like a model would, from what the wire request carries."""
    messages = messages_of(body)
    call = ScriptedCall(body["model"], messages, None, GenerationOptions())
    is_rubric = messages[-1].content.rstrip().endswith("Write the rubric.")
    return json.dumps(rubric_writer(call) if is_rubric else diff_reading_judge(call))


@pytest.mark.parametrize("spec", ["openai:gpt-4.1-mini", "anthropic:claude-haiku-4-5"])
async def test_rubrics_and_judgements_round_trip(spec, mini, tmp_path, server, http_settings):
    server.responder = protocol_responder
    settings = load_app_settings().model_copy(update={"llm": http_settings})
    rubrics = tmp_path / "rubrics.jsonl"
    made = await generate_rubrics(RubricJob(str(mini / "tasks.jsonl"), spec, rubrics), settings)
    assert (made.generated, made.errors) == (3, [])
    job = ScoreJob(
        str(mini / "tasks.jsonl"), str(mini / "candidates.jsonl"), rubrics, spec, tmp_path / "run"
    )
    summary = await score(job, settings)
    assert (summary.judged, summary.errors) == (7, [])
    assert server.count() == 3 + 6  # three rubrics, six non-empty candidates
    judgements = {
        j.candidate_id: j for j in read_jsonl(tmp_path / "run" / "judgements.jsonl", Judgement)
    }
    assert judgements["net__net-3@acme-coder-7b"].score == pytest.approx(14 / 15)
    assert judgements["net__net-3@acme-coder-7b"].judge_model == spec
    assert judgements["net__net-3@acme-coder-7b"].usage.cost_usd > 0
    assert all(r.generator == spec for r in read_jsonl(rubrics, Rubric))
    judge_body = server.requests[-1].body
    schema = (
        judge_body.get("response_format", {}).get("json_schema", {}).get("schema")
        or judge_body["output_config"]["format"]["schema"]
    )
    assert set(schema["required"]) == {"c1", "c2", "c3", "c4", "c5"}
    prompt = json.dumps(judge_body)  # the criteria as shown: the schema lists them in turn
    positions = [prompt.index(f"\\n{cid}: ") for cid in schema["properties"]]
    assert positions == sorted(positions) and list(schema["properties"]) == schema["required"]
