"""Anthropic through the official SDK's Messages API.

Structured output uses the API's native JSON-schema output format (`output_config.format`) by
default; `structured: tool` forces a single tool call whose input schema is the reply model, for
models or gateways that lack native structured output.

No sampling options are sent: API version 2026-10-21 (the default of SDK 2.x) rejects
`temperature`, `top_p` and `top_k` on every model, so repeat runs differ by the model's own
sampling, and the sample index keeps them apart in the cache.
"""

from __future__ import annotations

import dataclasses
import json
import time
from functools import lru_cache

import anthropic
from pydantic import BaseModel

from judge.llm.providers.errors import translate_sdk_error
from judge.llm.providers.keys import resolve_api_key
from judge.llm.schema import reordered
from judge.llm.settings import ProviderSettings
from judge.llm.types import Completion, GenerationOptions, Message, ToolCall, ToolSpec

REPLY_TOOL = "reply"


class AnthropicProvider:
    confidence = "verbal"  # no log-probabilities: the model states its confidence

    def __init__(self, name: str, model: str, settings: ProviderSettings) -> None:
        self.name = name
        self.model = model
        self.structured = settings.structured
        self._client = anthropic.AsyncAnthropic(
            api_key=resolve_api_key(name, settings, "ANTHROPIC_API_KEY"),
            base_url=settings.base_url,
            timeout=settings.timeout_s,
            max_retries=0,
        )

    async def aclose(self) -> None:
        await self._client.close()

    async def complete(
        self,
        messages: list[Message],
        response_model: type[BaseModel] | None,
        options: GenerationOptions,
        tools: tuple[ToolSpec, ...] = (),
        response_order: tuple[str, ...] = (),
    ) -> Completion:
        body = request_body(
            self.model, messages, response_model, options, self.structured, tools, response_order
        )
        started = time.perf_counter()
        try:
            response = await self._client.messages.create(**body)
        except (anthropic.AnthropicError, json.JSONDecodeError) as exc:
            raise translate_sdk_error(exc, anthropic, f"{self.name}:{self.model}") or exc from exc
        latency = time.perf_counter() - started
        completion = completion_from_message(response.model_dump())
        return dataclasses.replace(completion, latency_s=latency)


def request_body(
    model: str,
    messages: list[Message],
    response_model: type[BaseModel] | None,
    options: GenerationOptions,
    structured: str = "json_schema",
    tools: tuple[ToolSpec, ...] = (),
    response_order: tuple[str, ...] = (),
) -> dict:
    """The Messages API body: system text apart, the rest as alternating turns."""
    system = "\n\n".join(m.content for m in messages if m.role == "system")
    body: dict = {
        "model": model,
        "max_tokens": options.max_output_tokens,
        "messages": _turns([m for m in messages if m.role != "system"]),
    }
    if system:
        body["system"] = system
    if response_model is not None:
        body.update(_structured(_reply_schema(response_model, response_order), structured))
    if tools:
        offered = [{"name": t.name, "description": t.description,
                    "input_schema": json.loads(t.parameters)} for t in tools]  # fmt: skip
        body["tools"] = offered + body.get("tools", [])
        body.pop("tool_choice", None)  # the model chooses: explore, or give the reply
    return body


def _turns(messages: list[Message]) -> list[dict]:
    """Tool use on the Messages API: an assistant turn holds `tool_use` blocks, and the
    results of one turn's calls go back together as `tool_result` blocks of one user turn."""
    turns: list[dict] = []
    for message in messages:
        if message.role == "tool":
            block = {"type": "tool_result", "tool_use_id": message.tool_call_id,
                     "content": message.content}  # fmt: skip
            if turns and turns[-1]["role"] == "user" and isinstance(turns[-1]["content"], list):
                turns[-1]["content"].append(block)
            else:
                turns.append({"role": "user", "content": [block]})
        elif message.tool_calls:
            blocks = [{"type": "text", "text": message.content}] if message.content else []
            blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments}
                       for c in message.tool_calls]  # fmt: skip
            turns.append({"role": "assistant", "content": blocks})
        else:
            turns.append({"role": message.role, "content": message.content})
    return turns


def _tool_calls(blocks: list[dict]) -> tuple[ToolCall, ...]:
    return tuple(
        ToolCall(id=b.get("id", ""), name=b.get("name", ""), arguments=b.get("input") or {})
        for b in blocks
        if b.get("type") == "tool_use" and b.get("name") != REPLY_TOOL
    )


def _reply_schema(response_model: type[BaseModel], order: tuple[str, ...]) -> dict:
    return reordered(_transformed(response_model), order)


@lru_cache(maxsize=1024)
def _transformed(response_model: type[BaseModel]) -> dict:
    """Built once per reply type: the schema walk is the costly part of a request."""
    return anthropic.transform_schema(response_model)


def _structured(schema: dict, mode: str) -> dict:
    if mode == "tool":
        tool = {"name": REPLY_TOOL, "description": "Give your reply.", "input_schema": schema}
        return {"tools": [tool], "tool_choice": {"type": "tool", "name": REPLY_TOOL}}
    return {"output_config": {"format": {"type": "json_schema", "schema": schema}}}


def _reply_text(blocks: list[dict]) -> str:
    """The forced reply tool's input as JSON, else the text blocks joined."""
    for block in blocks:
        if block.get("type") == "tool_use" and block.get("name") == REPLY_TOOL:
            return json.dumps(block.get("input"))
    return "".join(b.get("text", "") for b in blocks if b.get("type") == "text")


def completion_from_message(message: dict) -> Completion:
    """A Messages API JSON body (from a batch result) as a `Completion`."""
    usage = message.get("usage") or {}
    cached = usage.get("cache_read_input_tokens") or 0
    written = usage.get("cache_creation_input_tokens") or 0
    return Completion(
        text=_reply_text(message.get("content") or []),
        input_tokens=usage.get("input_tokens", 0) + cached + written,
        cached_input_tokens=cached,
        output_tokens=usage.get("output_tokens", 0),
        tool_calls=_tool_calls(message.get("content") or []),
    )
