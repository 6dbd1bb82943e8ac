"""The reply cache: content-addressed, sample-indexed, concurrent-safe, crash-safe."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
import time
from typing import Literal

import pytest
from pydantic import BaseModel

from judge.llm.cache import ReplyCache, request_key
from judge.llm.providers.scripted import install_script
from judge.llm.types import Completion, GenerationOptions, LLMRequest, Message

HELLO = (Message(role="user", content="hello"),)


class Answer(BaseModel):
    answer: Literal["yes", "no"]


def test_key_changes_with_everything_that_changes_the_reply():
    base = LLMRequest(messages=HELLO)
    variants = [
        LLMRequest(messages=(Message(role="user", content="hello!"),)),
        LLMRequest(messages=HELLO, response_model=Answer),
        LLMRequest(messages=HELLO, options=GenerationOptions(temperature=0.7)),
        LLMRequest(messages=HELLO, sample_index=1),
    ]
    keys = {request_key("openai:m", base)} | {request_key("openai:m", v) for v in variants}
    assert len(keys) == 1 + len(variants)
    assert request_key("openai:m", base) != request_key("anthropic:m", base)
    assert request_key("openai:m", base) == request_key("openai:m", LLMRequest(messages=HELLO))


def test_put_then_get_round_trips(tmp_path):
    cache = ReplyCache(tmp_path / "c.sqlite")
    reply = Completion(text="{}", input_tokens=3, cached_input_tokens=1, output_tokens=2)
    assert cache.get("k") is None
    cache.put("k", "openai:m", reply)
    cache.put("k", "openai:m", Completion(text="later"))  # first writer wins
    assert cache.get("k") == reply
    assert (cache.hits, cache.misses, len(cache)) == (1, 1, 1)
    cache.close()


async def test_second_identical_call_is_a_hit_and_makes_no_call(make_client):
    script = install_script("cache-hit", ['{"answer": "yes"}'])
    client = make_client()
    first = await client.model("scripted:cache-hit").complete(HELLO, Answer)
    second = await client.model("scripted:cache-hit").complete(HELLO, Answer)
    assert len(script.calls) == 1
    assert second.parsed == first.parsed == Answer(answer="yes")
    assert second.usage.cache_hits == 1
    assert client.ledger.total().cache_hits == 1


async def test_sample_indices_are_distinct_entries(make_client):
    script = install_script("samples", ['{"answer": "yes"}', '{"answer": "no"}'])
    model = make_client().model("scripted:samples")
    zero = await model.complete(HELLO, Answer, sample_index=0)
    one = await model.complete(HELLO, Answer, sample_index=1)
    again = await model.complete(HELLO, Answer, sample_index=1)
    assert (zero.parsed.answer, one.parsed.answer, again.parsed.answer) == ("yes", "no", "no")
    assert len(script.calls) == 2


async def test_no_cache_bypasses_the_cache(make_client):
    script = install_script("nocache", ['{"answer": "yes"}'] * 2)
    model = make_client(use_cache=False).model("scripted:nocache")
    await model.complete(HELLO, Answer)
    await model.complete(HELLO, Answer)
    assert len(script.calls) == 2


async def test_200_concurrent_cached_calls(make_client):
    install_script("concurrent", lambda call: '{"answer": "yes"}')
    client = make_client()
    model = client.model("scripted:concurrent")
    prompts = [(Message(role="user", content=f"q{i % 100}"),) for i in range(200)]
    await asyncio.gather(*(model.complete(p, Answer) for p in prompts))  # fill (with races)
    results = await asyncio.gather(*(model.complete(p, Answer) for p in prompts))
    assert all(r.status == "ok" and r.usage.cache_hits == 1 for r in results)
    assert len(client.cache) == 100


_WRITER = """
import sys
from judge.llm.cache import ReplyCache
from judge.llm.types import Completion
cache = ReplyCache(sys.argv[1])
print("ready", flush=True)
i = 0
while True:
    cache.put(f"key-{i}", "scripted:x", Completion(text="x" * 5000 + str(i), output_tokens=i))
    i += 1
"""


@pytest.mark.slow
def test_killed_writer_leaves_a_consistent_cache(tmp_path):
    path = tmp_path / "crash.sqlite"
    writer = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(path)], stdout=subprocess.PIPE, text=True
    )
    assert writer.stdout.readline().strip() == "ready"
    time.sleep(0.3)
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    rows = db.execute("SELECT key, text, output_tokens FROM replies").fetchall()
    db.close()
    assert len(rows) > 10
    assert all(text == "x" * 5000 + str(n) and key == f"key-{n}" for key, text, n in rows)
    reopened = ReplyCache(path)
    assert reopened.get("key-0").text == "x" * 5000 + "0"
    reopened.close()
