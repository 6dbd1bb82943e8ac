"""Fault injection over the shipped sample: 429 bursts with Retry-After, 500/502/503,
connection resets, read timeouts, truncated and non-JSON bodies, and a 401 on one model. Every
candidate ends judged exactly once, or explicitly failed with the reason; nothing is lost or
duplicated; the manifest counts the faults."""

from __future__ import annotations

import json

import pytest

from judge.config import load_app_settings
from judge.jsonl import read_jsonl
from judge.judgement import Judgement
from judge.llm.settings import ProviderSettings, RetrySettings
from judge.loaders import load_candidates
from judge.score_run import ScoreJob, score
from rubric_gen.run import RubricJob, generate_rubrics
from tests.integration.test_batches import _answer
from tests.protocol_server import Step
from validation.sample import SAMPLE_CANDIDATES, SAMPLE_TASKS

pytestmark = [pytest.mark.integration, pytest.mark.faults]

TRUNCATED = b'{"id": "chatcmpl-1", "choices": [{"message": {"content": "{\\"c1'
NOT_JSON = b"<html><body>502 Bad Gateway</body></html>"


def fault_plan(number: int, body: dict) -> Step | None:
    """Deterministic faults by request number; the 'gpt-4.1-nano' model always gets a 401."""
    if body.get("model") == "gpt-4.1-nano":
        return Step(status=401, message="invalid api key")
    if 30 <= number < 34:  # a burst of 429s
        return Step(status=429, headers={"Retry-After": "0.01"})
    faults = {
        3: Step(status=500),
        5: Step(status=502),
        7: Step(status=503),
        11: Step(status=429, headers={"Retry-After": "0.01"}),
        13: Step(reset=True),
        17: Step(delay_s=3.0),
        19: Step(raw_body=TRUNCATED),
        23: Step(raw_body=NOT_JSON),
    }
    return faults.get(number % 29)


INJECTED = {"rate_limited", "server_error", "connection", "timeout", "malformed"}


@pytest.fixture
def faulty(server, http_settings, tmp_path):
    server.responder = _answer
    server.fault_plan = fault_plan
    providers = {"openai": ProviderSettings(base_url=server.openai_base_url, timeout_s=1.5)}
    llm = http_settings.model_copy(
        update={
            "providers": providers,
            "retry": RetrySettings(max_attempts=8, initial_wait_s=0, max_wait_s=0),
        }
    )
    return load_app_settings().model_copy(update={"llm": llm})


async def _rubrics(tmp_path, settings):
    path = tmp_path / "rubrics.jsonl"
    await generate_rubrics(RubricJob(str(SAMPLE_TASKS), "reference", path), settings)
    return path


def _subset(tmp_path, count: int):
    path = tmp_path / "subset.jsonl"
    rows = [json.loads(line) for line in __import__("gzip").open(SAMPLE_CANDIDATES, "rt")][:count]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.mark.slow
async def test_one_run_over_the_sample_loses_nothing(tmp_path, faulty, server):
    rubrics = await _rubrics(tmp_path, faulty)
    faulty.llm.concurrency = 32
    job = ScoreJob(
        str(SAMPLE_TASKS), str(SAMPLE_CANDIDATES), rubrics, "openai:gpt-4.1-mini", tmp_path / "run"
    )
    summary = await score(job, faulty)
    expected = {c.candidate_id for c in load_candidates(SAMPLE_CANDIDATES).candidates}
    judgements = read_jsonl(tmp_path / "run" / "judgements.jsonl", Judgement)
    assert summary.errors == [], summary.errors[:3]
    assert sorted(j.candidate_id for j in judgements) == sorted(expected)  # each exactly once
    assert all(j.status in ("scored", "empty") for j in judgements)
    faults = json.loads((tmp_path / "run" / "manifest.json").read_text())["counts"]["faults"]
    assert set(faults["retried"]) == INJECTED, faults
    assert faults["failed"] == {}, faults
    assert faults["retried"]["rate_limited"] >= 4  # the burst


async def test_a_401_model_fails_every_candidate_once_with_the_reason(tmp_path, faulty, server):
    rubrics = await _rubrics(tmp_path, faulty)
    job = ScoreJob(
        str(SAMPLE_TASKS),
        str(_subset(tmp_path, 12)),
        rubrics,
        "openai:gpt-4.1-nano",
        tmp_path / "run",
    )
    summary = await score(job, faulty)
    non_empty = [c for c in load_candidates(_subset(tmp_path, 12)).candidates if c.patch.strip()]
    assert len(summary.errors) == len(non_empty)
    assert all("HTTP 401" in e.reason and "gpt-4.1-nano" in e.reason for e in summary.errors)
    assert server.count("/chat/completions") == len(non_empty)  # never retried
    faults = json.loads((tmp_path / "run" / "manifest.json").read_text())["counts"]["faults"]
    assert faults["failed"] == {"auth": len(non_empty)}
    rerun = await score(job, faulty)  # failures are not 'done': a re-run tries them again
    assert len(rerun.errors) == len(non_empty)


@pytest.mark.slow
@pytest.mark.parametrize("concurrency", [1, 8, 32, 128])
async def test_concurrency_sweep_has_no_errors_beyond_the_injected(concurrency, tmp_path, faulty):
    rubrics = await _rubrics(tmp_path, faulty)
    faulty.llm.concurrency = concurrency
    subset = _subset(tmp_path, 60)
    job = ScoreJob(str(SAMPLE_TASKS), str(subset), rubrics, "openai:gpt-4.1-mini", tmp_path / "run")
    summary = await score(job, faulty)
    judgements = read_jsonl(tmp_path / "run" / "judgements.jsonl", Judgement)
    assert summary.errors == []
    assert len(judgements) == len({j.candidate_id for j in judgements}) == 60
    faults = json.loads((tmp_path / "run" / "manifest.json").read_text())["counts"]["faults"]
    assert set(faults["retried"]) <= INJECTED
