"""The scripted test double: queues, callables, records, exhaustion, script files."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel

from judge.llm.providers import create_provider
from judge.llm.providers.scripted import ScriptExhaustedError, install_script, load_script_file
from judge.llm.settings import LLMSettings, ProviderSettings
from judge.llm.types import ConfigError, GenerationOptions, Message, TransientError

Q = [Message(role="user", content="question?")]
OPTS = GenerationOptions()


class Reply(BaseModel):
    reply: str


async def test_queue_replies_in_order_and_records_calls():
    script = install_script("queue", ["a", {"reply": "b"}, Reply(reply="c")])
    provider = create_provider("scripted:queue", LLMSettings())
    texts = [(await provider.complete(Q, None, OPTS)).text for _ in range(3)]
    assert texts == ["a", '{"reply": "b"}', '{"reply":"c"}']
    assert len(script.calls) == 3
    assert script.calls[0].prompt == "question?"
    with pytest.raises(ScriptExhaustedError, match="ran out after 3 replies"):
        await provider.complete(Q, None, OPTS)


async def test_callable_sees_the_request_and_errors_are_raised():
    def respond(call):
        if "fail" in call.prompt:
            return TransientError("HTTP 503")
        return call.prompt.upper()

    install_script("callable", respond)
    provider = create_provider("scripted:callable", LLMSettings())
    reply = await provider.complete(Q, Reply, OPTS)
    assert reply.text == "QUESTION?"
    assert reply.input_tokens == (len("question?") + 3) // 4
    with pytest.raises(TransientError):
        await provider.complete([Message(role="user", content="fail")], None, OPTS)


async def test_script_file_from_config(tmp_path):
    path = tmp_path / "script.jsonl"
    path.write_text(json.dumps("raw text") + "\n\n" + json.dumps({"reply": "x"}) + "\n")
    settings = LLMSettings(providers={"scripted": ProviderSettings(script=str(path))})
    provider = create_provider("scripted:from-file", settings)
    assert (await provider.complete(Q, None, OPTS)).text == "raw text"
    assert (await provider.complete(Q, None, OPTS)).text == '{"reply": "x"}'


def test_unknown_script_and_bad_file_are_clear_errors(tmp_path):
    with pytest.raises(ConfigError, match="no script installed for scripted:ghost"):
        create_provider("scripted:ghost", LLMSettings())
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n")
    with pytest.raises(ConfigError, match=r"bad\.jsonl"):
        load_script_file(bad)
