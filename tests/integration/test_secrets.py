"""API keys never reach logs, manifests, cache rows, reports or error messages."""

from __future__ import annotations

import logging

import pytest

from judge.config import load_app_settings
from judge.score_run import ScoreJob, score
from rubric_gen.run import RubricJob, generate_rubrics
from tests.conftest import FAKE_KEY
from tests.integration.test_pipeline_over_http import protocol_responder
from tests.protocol_server import Step
from validation.validate import ValidateJob, validate

pytestmark = pytest.mark.integration


def _all_bytes(folder) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file())


async def test_the_key_appears_nowhere(mini, tmp_path, server, http_settings, caplog):
    server.responder = protocol_responder
    server.script(
        Step(status=401, message="invalid api key"), Step(status=429, headers={"Retry-After": "0"})
    )
    settings = load_app_settings().model_copy(update={"llm": http_settings})
    caplog.set_level(logging.DEBUG)
    rubrics = tmp_path / "out" / "rubrics.jsonl"
    made = await generate_rubrics(
        RubricJob(str(mini / "tasks.jsonl"), "openai:gpt-4.1", rubrics), settings
    )
    assert any("401" in e.reason for e in made.errors)  # one task failed on the 401...
    job = ScoreJob(
        str(mini / "tasks.jsonl"),
        str(mini / "candidates.jsonl"),
        rubrics,
        "anthropic:claude-haiku-4-5",
        tmp_path / "out" / "run",
    )
    await score(job, settings)
    await validate(
        ValidateJob(
            out=tmp_path / "out" / "validation",
            limit=2,
            runs=1,
            judge="openai:gpt-4.1-mini",
            n_boot=50,
        ),
        settings,
    )
    sent = [
        r.headers.get("authorization", "") + r.headers.get("x-api-key", "") for r in server.requests
    ]
    assert all(FAKE_KEY in header for header in sent)  # ...the key was really in use
    assert FAKE_KEY.encode() not in _all_bytes(tmp_path)  # outputs, manifests, reports, cache
    assert FAKE_KEY not in caplog.text
    for error in made.errors:
        assert FAKE_KEY not in error.reason
