"""The real openai and anthropic SDKs against a loopback server speaking their wire protocols."""

from __future__ import annotations

import json
import time
from typing import Literal

import pytest
from pydantic import BaseModel

from judge.llm.settings import LLMSettings, ProviderSettings
from judge.llm.types import Message, PermanentError, TransientError
from tests.conftest import FAKE_KEY
from tests.protocol_server import ProtocolServer, Step

pytestmark = pytest.mark.integration

MODELS = ["openai:gpt-4.1-mini", "anthropic:claude-sonnet-4-6"]
MESSAGES = [
    Message(role="system", content="You are a careful reviewer."),
    Message(role="user", content="Is the sky blue? Answer in JSON."),
]


class Verdict(BaseModel):
    answer: Literal["yes", "no"]
    reason: str


GOOD = json.dumps({"answer": "yes", "reason": "Rayleigh scattering"})


def _path(spec: str) -> str:
    return "/chat/completions" if spec.startswith("openai") else "/messages"


@pytest.mark.parametrize("spec", MODELS)
async def test_structured_reply_is_parsed(spec, http_settings, server, make_client):
    server.script(Step(text=GOOD))
    result = await make_client(http_settings).model(spec).complete(MESSAGES, Verdict)
    assert result.status == "ok"
    assert result.parsed == Verdict(answer="yes", reason="Rayleigh scattering")
    assert result.usage.input_tokens > 0 and result.usage.output_tokens > 0
    assert server.count(_path(spec)) == 1
    sent = server.requests[0]
    assert FAKE_KEY in sent.headers.get("authorization", sent.headers.get("x-api-key", ""))


async def test_openai_request_asks_for_strict_json_schema(http_settings, server, make_client):
    server.script(Step(text=GOOD))
    await make_client(http_settings).model("openai:gpt-4.1-mini").complete(MESSAGES, Verdict)
    body = server.requests[0].body
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["strict"] is True
    assert body["response_format"]["json_schema"]["schema"]["required"] == ["answer", "reason"]
    assert body["temperature"] == 0.0
    assert body["messages"][0] == {"role": "system", "content": "You are a careful reviewer."}


async def test_anthropic_request_uses_native_output_format(http_settings, server, make_client):
    server.script(Step(text=GOOD))
    await (
        make_client(http_settings).model("anthropic:claude-sonnet-4-6").complete(MESSAGES, Verdict)
    )
    body = server.requests[0].body
    assert body["system"] == "You are a careful reviewer."
    assert [m["role"] for m in body["messages"]] == ["user"]
    assert body["output_config"]["format"]["type"] == "json_schema"
    assert body["output_config"]["format"]["schema"]["additionalProperties"] is False


async def test_anthropic_tool_mode_forces_the_reply_tool(
    http_settings: LLMSettings, server, make_client
):
    providers = dict(http_settings.providers)
    providers["anthropic"] = ProviderSettings(base_url=server.url, structured="tool")
    tool_settings = http_settings.model_copy(update={"providers": providers})
    server.script(Step(text=GOOD))
    result = (
        await make_client(tool_settings).model("anthropic:claude-x").complete(MESSAGES, Verdict)
    )
    body = server.requests[0].body
    assert body["tool_choice"] == {"type": "tool", "name": "reply"}
    assert body["tools"][0]["input_schema"]["required"] == ["answer", "reason"]
    assert result.parsed == Verdict(answer="yes", reason="Rayleigh scattering")


def _reply_schema(body: dict) -> dict:
    if "response_format" in body:
        return body["response_format"]["json_schema"]["schema"]
    if "output_config" in body:
        return body["output_config"]["format"]["schema"]
    return body["tools"][0]["input_schema"]


@pytest.mark.parametrize("structured", ["json_schema", "tool"])
@pytest.mark.parametrize("spec", MODELS)
async def test_the_reply_keys_reach_the_wire_in_the_asked_order(
    spec, structured, http_settings: LLMSettings, server, make_client
):
    """The judge shuffles criteria per candidate; the schema must list them in that order."""
    providers = dict(http_settings.providers)
    providers["anthropic"] = ProviderSettings(base_url=server.url, structured=structured)
    settings = http_settings.model_copy(update={"providers": providers})
    server.script(Step(text=GOOD), Step(text=GOOD))
    client = make_client(settings).model(spec)
    asked = await client.complete(MESSAGES, Verdict, response_order=("reason", "answer"))
    plain = await client.complete(MESSAGES, Verdict)
    shuffled, natural = (_reply_schema(r.body) for r in server.requests)
    assert list(shuffled["properties"]) == shuffled["required"] == ["reason", "answer"]
    assert list(natural["properties"]) == natural["required"] == ["answer", "reason"]
    assert shuffled["properties"]["answer"] == natural["properties"]["answer"]
    assert asked.parsed == plain.parsed == Verdict(answer="yes", reason="Rayleigh scattering")


@pytest.mark.parametrize("spec", MODELS)
async def test_429_with_retry_after_is_honoured(spec, http_settings, server, make_client):
    server.script(Step(status=429, headers={"Retry-After": "0.3"}), Step(text=GOOD))
    started = time.monotonic()
    result = await make_client(http_settings).model(spec).complete(MESSAGES, Verdict)
    assert result.status == "ok"
    assert server.count(_path(spec)) == 2
    assert time.monotonic() - started >= 0.3  # the server's wait was respected


@pytest.mark.parametrize("spec", MODELS)
async def test_two_500s_then_success(spec, http_settings, server, make_client):
    server.script(Step(status=500), Step(status=500), Step(text=GOOD))
    result = await make_client(http_settings).model(spec).complete(MESSAGES, Verdict)
    assert result.status == "ok"
    assert result.parsed.answer == "yes"
    assert server.count(_path(spec)) == 3


@pytest.mark.parametrize("spec", MODELS)
async def test_401_fails_at_once(spec, http_settings, server, make_client):
    server.script(Step(status=401, message="invalid x-api-key"))
    with pytest.raises(PermanentError) as caught:
        await make_client(http_settings).model(spec).complete(MESSAGES, Verdict)
    assert "401" in str(caught.value)
    assert spec in str(caught.value)
    assert server.count() == 1


@pytest.mark.parametrize("spec", MODELS)
async def test_400_context_too_long_fails_fast(spec, http_settings, server, make_client):
    server.script(Step(status=400, message="prompt is too long: 250000 tokens > 200000"))
    with pytest.raises(PermanentError, match="prompt is too long"):
        await make_client(http_settings).model(spec).complete(MESSAGES, Verdict)
    assert server.count() == 1


@pytest.mark.parametrize("spec", MODELS)
async def test_invalid_json_gets_one_repair_then_unparsed(spec, http_settings, server, make_client):
    server.script(Step(text="Sure! The answer is yes."), Step(text='{"answer": "maybe"}'))
    result = await make_client(http_settings).model(spec).complete(MESSAGES, Verdict)
    assert result.status == "unparsed"
    assert result.parsed is None
    assert result.text == '{"answer": "maybe"}'
    assert "invalid reply after one repair" in result.reason
    assert server.count() == 2
    repair = server.requests[1].body["messages"]
    assert repair[-2] == {"role": "assistant", "content": "Sure! The answer is yes."}
    assert "did not match the required JSON schema" in repair[-1]["content"]


@pytest.mark.parametrize("spec", MODELS)
async def test_repair_that_succeeds_is_ok(spec, http_settings, server, make_client):
    server.script(Step(text="not json"), Step(text=GOOD))
    result = await make_client(http_settings).model(spec).complete(MESSAGES, Verdict)
    assert (result.status, result.repaired) == ("ok", True)
    assert result.usage.calls == 2
    assert server.count() == 2


@pytest.mark.parametrize("spec", MODELS)
async def test_timeout_is_retried(spec, http_settings: LLMSettings, server, make_client):
    providers = {
        name: p.model_copy(update={"timeout_s": 0.3}) for name, p in http_settings.providers.items()
    }
    fast = http_settings.model_copy(update={"providers": providers})
    server.script(Step(delay_s=1.0), Step(text=GOOD))
    result = await make_client(fast).model(spec).complete(MESSAGES, Verdict)
    assert result.status == "ok"
    assert server.count() == 2


@pytest.mark.parametrize("spec", MODELS)
async def test_non_json_body_is_retried(spec, http_settings, server, make_client):
    server.script(Step(raw_body=b'{"id": "chatcmpl-trunc'), Step(status=502), Step(text=GOOD))
    result = await make_client(http_settings).model(spec).complete(MESSAGES, Verdict)
    assert result.status == "ok"
    assert server.count() == 3


async def test_retries_exhausted_raise_the_last_error(http_settings, server, make_client):
    server.script(*[Step(status=503, message="overloaded")] * 4)
    with pytest.raises(TransientError, match="HTTP 503"):
        await make_client(http_settings).model("openai:gpt-4.1-mini").complete(MESSAGES)
    assert server.count() == 4  # max_attempts in the test settings


async def test_cached_reply_makes_no_second_request(http_settings, server, make_client):
    server.script(Step(text=GOOD))
    client = make_client(http_settings)
    first = await client.model("openai:gpt-4.1-mini").complete(MESSAGES, Verdict)
    second = await client.model("openai:gpt-4.1-mini").complete(MESSAGES, Verdict)
    assert server.count() == 1
    assert second.parsed == first.parsed
    assert (first.usage.cache_hits, second.usage.cache_hits) == (0, 1)
    assert second.usage.cost_usd == 0.0
    assert first.usage.cost_usd > 0


async def test_cached_input_tokens_are_reported(http_settings, server, make_client):
    server.cached_tokens = 7
    result = await make_client(http_settings).model("openai:gpt-4.1-mini").complete(MESSAGES)
    assert result.usage.cached_input_tokens == 7
    anthropic = (
        await make_client(http_settings).model("anthropic:claude-haiku-4-5").complete(MESSAGES)
    )
    assert anthropic.usage.cached_input_tokens == 7
    assert anthropic.usage.input_tokens > 7  # fresh plus cached prompt tokens


def test_protocol_server_counts_by_path():
    with ProtocolServer() as srv:
        assert srv.count() == 0
        assert srv.url.startswith("http://127.0.0.1:")
