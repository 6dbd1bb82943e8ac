"""Batch mode: offline batch files (the vLLM run_batch path) and the providers' batch APIs
through the real SDKs against a loopback emulator, including a kill while polling."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re

import pytest

from judge.config import load_app_settings
from judge.jsonl import read_jsonl
from judge.judgement import Judgement
from judge.llm.batch_runner import BatchOptions, load_state
from judge.llm.providers.scripted import ScriptedCall, install_script
from judge.llm.types import GenerationOptions, Message
from judge.score_run import ScoreJob, score
from rubric_gen.run import RubricJob, generate_rubrics
from tests.batch_emulator import BatchEmulator
from tests.scripted_llm import diff_reading_judge, messages_of
from validation.sample import SAMPLE_CANDIDATES, SAMPLE_TASKS

pytestmark = pytest.mark.integration


def _answer(body: dict) -> str:
    """What a model would reply to one exported request (test executor)."""
    messages = messages_of(body)
    return json.dumps(
        diff_reading_judge(ScriptedCall(body["model"], messages, None, GenerationOptions()))
    )


def _executor(requests_file, output_file, fail: int, invalid: int) -> list[str]:
    """A tiny batch executor: writes an OpenAI batch output file, with one failed line and
    one invalid reply; returns the custom ids it answered."""
    rows, ids = [], []
    for number, line in enumerate(requests_file.read_text().splitlines()):
        request = json.loads(line)
        ids.append(request["custom_id"])
        if number == fail:
            rows.append(
                {
                    "id": "x",
                    "custom_id": request["custom_id"],
                    "response": None,
                    "error": {"code": "server_error", "message": "executor crashed"},
                }
            )
            continue
        text = "Sorry, no JSON today." if number == invalid else _answer(request["body"])
        body = {
            "id": "c",
            "object": "chat.completion",
            "created": 0,
            "model": request["body"]["model"],
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
        }
        rows.append(
            {
                "id": "x",
                "custom_id": request["custom_id"],
                "error": None,
                "response": {"status_code": 200, "request_id": "r", "body": body},
            }
        )
    output_file.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return ids


@pytest.fixture
def app_settings(tmp_path):
    return load_app_settings(
        sets=[
            f"llm.cache_path={tmp_path / 'cache.sqlite'}",
            "llm.retry.initial_wait_s=0",
            "batch.poll_interval_s=0.01",
        ]
    )


async def test_offline_round_trip_on_the_shipped_sample(tmp_path, app_settings):
    from typer.testing import CliRunner

    from judge.cli import app

    rubrics = tmp_path / "rubrics.jsonl"
    await generate_rubrics(RubricJob(str(SAMPLE_TASKS), "reference", rubrics), app_settings)
    job = ScoreJob(
        str(SAMPLE_TASKS), str(SAMPLE_CANDIDATES), rubrics, "scripted:batch", tmp_path / "run"
    )
    exported = await score(job, app_settings, export=tmp_path / "requests.jsonl")
    assert exported.exported > 300 and exported.judged > 0  # empty patches need no request
    lines = [json.loads(x) for x in (tmp_path / "requests.jsonl").read_text().splitlines()]
    for line in lines:
        assert set(line) == {"custom_id", "method", "url", "body"}
        assert (line["method"], line["url"]) == ("POST", "/v1/chat/completions")
        assert re.fullmatch(r"[0-9a-f]{64}", line["custom_id"])
        assert line["body"]["model"] == "batch"
        assert all(set(m) == {"role", "content"} for m in line["body"]["messages"])
        assert line["body"]["response_format"]["json_schema"]["strict"] is True
    assert len({line["custom_id"] for line in lines}) == len(lines)

    _executor(tmp_path / "requests.jsonl", tmp_path / "output.jsonl", fail=3, invalid=5)
    config = tmp_path / "c.yaml"
    config.write_text(f"llm:\n  cache_path: {tmp_path / 'cache.sqlite'}\n")
    result = CliRunner().invoke(
        app,
        [
            "batch",
            "import",
            str(tmp_path / "output.jsonl"),
            "--requests",
            str(tmp_path / "requests.jsonl"),
            "--config",
            str(config),
        ],
        env={"COLUMNS": "250"},
    )
    assert result.exit_code == 0, result.output
    assert f"imported {len(lines) - 1}, failed 1, invalid 1" in result.output

    live = install_script("batch", diff_reading_judge)  # answers only what the batch did not
    summary = await score(job, app_settings)
    assert len(live.calls) == 2  # the failed line, and the invalid reply's one repair request
    judgements = read_jsonl(tmp_path / "run" / "judgements.jsonl", Judgement)
    keys = [j.key for j in judgements]
    assert summary.errors == []
    assert len(keys) == len(set(keys)) == exported.judged + exported.pending
    assert sum(1 for j in judgements if j.usage.cache_hits) == exported.pending - 1  # all but one


@pytest.fixture
def batch_server(server, http_settings, tmp_path):
    emulator = BatchEmulator(server)
    server.batches = emulator
    server.responder = lambda body: _answer(body) if "candidate_diff" in json.dumps(body) else "{}"
    settings = load_app_settings(sets=["batch.poll_interval_s=0.01"]).model_copy(
        update={"llm": http_settings}
    )
    return emulator, settings


async def _mini_rubrics(mini, tmp_path, settings):
    path = tmp_path / "rubrics.jsonl"
    await generate_rubrics(RubricJob(str(mini / "tasks.jsonl"), "reference", path), settings)
    return path


@pytest.mark.parametrize("spec", ["openai:gpt-4.1-mini", "anthropic:claude-haiku-4-5"])
async def test_provider_batch_then_live_retry(spec, mini, tmp_path, batch_server, server):
    emulator, settings = batch_server
    emulator.fail_positions = {0}
    rubrics = await _mini_rubrics(mini, tmp_path, settings)
    job = ScoreJob(
        str(mini / "tasks.jsonl"), str(mini / "candidates.jsonl"), rubrics, spec, tmp_path / "run"
    )
    summary = await score(
        job, settings, batch=BatchOptions(tmp_path / "run" / "batches.json", 0.01)
    )
    assert emulator.submissions == 1 and emulator.status_checks >= 2
    live = server.count("/chat/completions") + server.count("/messages")
    assert live == 1  # the one request the batch failed, retried interactively
    judgements = read_jsonl(tmp_path / "run" / "judgements.jsonl", Judgement)
    assert len({j.key for j in judgements}) == len(judgements) == 7
    assert summary.errors == []
    (record,) = load_state(tmp_path / "run" / "batches.json").batches
    assert record.imported and record.imported_ok == 5 and len(record.failed) == 1
    assert record.cost_usd > 0
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["usage"]["total"]["calls"] >= 6


async def test_killed_while_polling_resumes_without_resubmitting(mini, tmp_path, batch_server):
    emulator, settings = batch_server
    emulator.polls_until_done = 10_000
    rubrics = await _mini_rubrics(mini, tmp_path, settings)
    state = tmp_path / "run" / "batches.json"
    job = ScoreJob(
        str(mini / "tasks.jsonl"),
        str(mini / "candidates.jsonl"),
        rubrics,
        "openai:gpt-4.1-mini",
        tmp_path / "run",
    )
    running = asyncio.create_task(score(job, settings, batch=BatchOptions(state, 0.01)))
    for _ in range(500):
        await asyncio.sleep(0.01)
        if emulator.status_checks >= 3:
            break
    running.cancel()  # the process dies while polling
    with pytest.raises(asyncio.CancelledError):
        await running
    assert emulator.submissions == 1 and load_state(state).batches[0].imported is False
    emulator.polls_until_done = 0
    await score(job, settings, batch=BatchOptions(state, 0.01))
    assert emulator.submissions == 1  # resumed polling the saved batch
    assert len(read_jsonl(tmp_path / "run" / "judgements.jsonl", Judgement)) == 7


def test_batch_status_and_missing_state(tmp_path):
    from typer.testing import CliRunner

    from judge.cli import app
    from judge.llm.batch_runner import BatchRecord, BatchStateFile, save_state

    run = tmp_path / "run"
    state = BatchStateFile(
        batches=[
            BatchRecord(
                id="batch_7",
                provider="openai",
                specs={"k": "openai:m"},
                status="completed",
                counts={"completed": 1},
                imported=True,
                imported_ok=1,
            )
        ]
    )
    save_state(run / "batches.json", state)
    result = CliRunner().invoke(app, ["batch", "status", str(run)], env={"COLUMNS": "200"})
    assert result.exit_code == 0 and "batch_7" in result.output and "completed 1" in result.output
    missing = CliRunner().invoke(app, ["batch", "status", str(tmp_path / "nothing")])
    assert missing.exit_code == 2 and "no batch state" in missing.output


def test_requests_are_split_at_provider_limits():
    from judge.llm.batching import PendingRequest
    from judge.llm.providers.batches import OpenAIBatches, chunks
    from judge.llm.types import LLMRequest

    pending = [
        PendingRequest(
            f"{i:064x}", "openai:m", LLMRequest(messages=(Message(role="user", content="x" * 50),))
        )
        for i in range(5)
    ]

    class Tiny(OpenAIBatches):
        max_requests = 2

    assert [len(c) for c in chunks(pending, Tiny)] == [2, 2, 1]

    class Small(OpenAIBatches):
        max_bytes = len(OpenAIBatches.encode(pending[:3])) + 1

    assert [len(c) for c in chunks(pending, Small)] == [3, 2]


async def test_export_needs_no_api_key_and_batch_needs_the_cache(tmp_path, mini, monkeypatch):
    from judge.llm.batching import BatchCollector
    from judge.llm.client import LLMClient
    from judge.llm.types import ConfigError

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    settings = load_app_settings(sets=[f"llm.cache_path={tmp_path / 'c.sqlite'}"])
    async with LLMClient(settings.llm, defer=BatchCollector()) as client:
        assert client.model("openai:gpt-4.1-mini").spec == "openai:gpt-4.1-mini"
    with pytest.raises(ConfigError, match="needs the reply cache"):
        LLMClient(settings.llm, use_cache=False, defer=BatchCollector())


async def test_rubrics_through_a_batch_and_as_an_export(mini, tmp_path, batch_server, server):
    from tests.integration.test_pipeline_over_http import protocol_responder

    emulator, settings = batch_server
    server.responder = protocol_responder
    out = tmp_path / "rubrics.jsonl"
    job = RubricJob(str(mini / "tasks.jsonl"), "openai:gpt-4.1", out)
    summary = await generate_rubrics(job, settings, batch=BatchOptions(tmp_path / "b.json", 0.01))
    assert (summary.generated, summary.errors, emulator.submissions) == (3, [], 1)
    assert server.count("/chat/completions") == 0  # everything came from the batch
    assert not (tmp_path / "rubrics.jsonl.deferred-round").exists()
    again = await generate_rubrics(job, settings, export=tmp_path / "more.jsonl")
    assert again.exported == 0  # all frozen: nothing left to ask
    fresh = await generate_rubrics(
        RubricJob(str(mini / "tasks.jsonl"), "openai:gpt-4.1-mini", tmp_path / "other.jsonl"),
        settings,
        export=tmp_path / "req.jsonl",
    )
    assert fresh.exported == 3
    specs = json.loads((tmp_path / "req.jsonl.specs.json").read_text())
    assert set(specs.values()) == {"openai:gpt-4.1-mini"}


def test_imported_replies_are_charged_at_the_batch_price(tmp_path):
    from judge.llm.batch_files import CacheImporter
    from judge.llm.cache import ReplyCache
    from judge.llm.pricing import Ledger, load_prices
    from judge.llm.types import Completion

    ledger = Ledger()
    cache = ReplyCache(tmp_path / "c.sqlite")
    importer = CacheImporter(cache, load_prices(), ledger)
    cost = importer.store(
        "k" * 64, "openai:gpt-4.1-mini", Completion(text="{}", input_tokens=1000, output_tokens=500)
    )
    # gpt-4.1-mini: 0.40 input and 1.60 output per million, half price in a batch
    assert cost == pytest.approx((1000 * 0.40 + 500 * 1.60) / 1e6 * 0.5)
    assert ledger.total().cost_usd == pytest.approx(cost)
    assert cache.get("k" * 64).text == "{}"
    cache.close()


async def test_validate_batch_report_shows_what_the_run_spent(mini, tmp_path, batch_server):
    """The report's bill: batch imports at the batch price; on a resumed run the same replies
    are cache hits that spend nothing and save their live price."""
    from validation.validate import ValidateJob, validate

    emulator, settings = batch_server
    job = ValidateJob(
        out=tmp_path / "report",
        data=str(mini / "tasks.jsonl"),
        candidates=(str(mini / "candidates.jsonl"),),
        judge="openai:gpt-4.1-mini",
        runs=1,
        baseline=False,
    )
    metrics = await validate(job, settings, batch=BatchOptions(tmp_path / "b.json", 0.01))
    bill = metrics["bill"]
    requests = emulator.submissions and bill["batch_requests"]
    # 6 non-empty candidates and 3 gold patches; a gold patch equal to a candidate is the same
    # request, asked once
    assert requests == 8
    records = load_state(tmp_path / "b.json").batches
    assert bill["batch_usd"] > 0
    assert bill["batch_usd"] == pytest.approx(sum(r.cost_usd for r in records))
    assert bill["spent_usd"] == pytest.approx(bill["batch_usd"])
    assert bill["live_calls"] == 0 and bill["saved_usd"] == 0  # hits on our own purchases
    report = (job.out / "report.md").read_text()
    assert f"${bill['spent_usd']:.4f}: batch ${bill['batch_usd']:.4f} for 8 requests" in report
    assert "$0.0000: batch" not in report

    fresh = dataclasses.replace(job, out=tmp_path / "again")  # same cache, new report folder
    again = (await validate(fresh, settings))["bill"]
    assert again["spent_usd"] == 0 and again["cache_hits"] == 9 and again["live_calls"] == 0
    # every hit saves its live price (twice the batch price); the repeated request twice
    assert again["saved_usd"] >= 2 * bill["batch_usd"] - 1e-12
    assert again["saved_usd"] < 2 * bill["batch_usd"] * 9 / 8 * 1.5


def test_batch_status_line_is_one_readable_line(monkeypatch):
    from judge.cli import common
    from judge.llm.batch_runner import BatchRecord, BatchStateFile

    state = BatchStateFile(
        batches=[
            BatchRecord(
                id="b1",
                provider="openai",
                specs={},
                status="in_progress",
                counts={"completed": 3, "failed": 1, "total": 24},
            ),
            BatchRecord(
                id="b2",
                provider="openai",
                specs={},
                imported=True,
                counts={"completed": 5, "failed": 0, "total": 5},
            ),
        ]
    )
    line = common.BatchStatusLine(30).render(state)
    assert line.startswith("batches: 1 running, 1 imported · requests 3 done / 1 failed / 24")
    assert "s elapsed · next poll in 30 s" in line and "{" not in line
    printed = []
    monkeypatch.setattr(common.console, "print", lambda *a, **k: printed.append(a))
    common.BatchStatusLine(30)(state)  # not a terminal under pytest: quiet
    assert printed == []


def test_import_streams_lines_and_checks_only_the_required_keys(tmp_path):
    """A reply may hold U+2028 inside a JSON string: `splitlines` used to cut the line there.
    Only the schema's required keys are kept from the requests file, not whole bodies."""
    from judge.llm.batch_files import CacheImporter, import_openai_output, read_required_keys
    from judge.llm.cache import ReplyCache
    from judge.llm.pricing import Ledger, load_prices

    schema = {"type": "object", "required": ["a", "b"], "properties": {"a": {}, "b": {}}}
    with_schema = {"response_format": {"json_schema": {"schema": schema}}}
    requests = tmp_path / "req.jsonl"
    requests.write_text(
        "".join(
            json.dumps({"custom_id": cid, "body": body}) + "\n"
            for cid, body in (("k1", with_schema), ("k2", with_schema), ("k3", {}))
        )
    )
    required = read_required_keys(requests)
    assert required == {"k1": ("a", "b"), "k2": ("a", "b"), "k3": None}

    def line(cid: str, content: str) -> str:
        body = {"choices": [{"message": {"content": content}}], "model": "m", "usage": {}}
        row = {"custom_id": cid, "error": None, "response": {"status_code": 200, "body": body}}
        return json.dumps(row, ensure_ascii=False) + "\n"

    results = tmp_path / "out.jsonl"
    text = line("k1", json.dumps({"a": "x\u2028y", "b": 1}, ensure_ascii=False))
    text += line("k2", '{"a": 1}') + line("k3", "plain words") + line("k4", "{}")
    results.write_text(text, encoding="utf-8")
    cache = ReplyCache(tmp_path / "c.sqlite")
    summary = import_openai_output(
        results, CacheImporter(cache, load_prices(), Ledger()), {}, required
    )
    assert summary.imported == 4 and summary.failed == []
    assert summary.invalid == [{"custom_id": "k2", "reason": "missing b"}]
    assert "\u2028" in cache.get("k1").text
    cache.close()
