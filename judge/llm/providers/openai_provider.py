"""OpenAI and every OpenAI-compatible server, through the official SDK's Chat Completions API.

Chat Completions is the endpoint vLLM, Ollama, llama.cpp, LM Studio and hosted gateways all
implement, so one class covers them; `base_url` picks the server.
"""

from __future__ import annotations

import dataclasses
import json
import time
from functools import lru_cache

import openai
from openai.lib._parsing import type_to_response_format_param
from pydantic import BaseModel

from judge.llm.providers.errors import translate_sdk_error
from judge.llm.providers.keys import resolve_api_key
from judge.llm.schema import reordered
from judge.llm.settings import ProviderSettings
from judge.llm.types import (
    Completion,
    GenerationOptions,
    Message,
    TokenLogprobs,
    ToolCall,
    ToolSpec,
)

TOP_LOGPROBS = 5


class OpenAIProvider:
    confidence = "logprobs"  # Chat Completions (and vLLM) return token log-probabilities

    def __init__(self, name: str, model: str, settings: ProviderSettings) -> None:
        self.name = name
        self.model = model
        self._client = openai.AsyncOpenAI(
            api_key=resolve_api_key(name, settings, "OPENAI_API_KEY"),
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
        started = time.perf_counter()
        body = request_body(self.model, messages, response_model, options, tools, response_order)
        try:
            response = await self._client.chat.completions.create(**body)
        except (openai.OpenAIError, json.JSONDecodeError) as exc:
            raise translate_sdk_error(exc, openai, f"{self.name}:{self.model}") or exc from exc
        latency = time.perf_counter() - started
        completion = completion_from_body(response.model_dump())
        return dataclasses.replace(completion, latency_s=latency)


def request_body(
    model: str,
    messages: list[Message],
    response_model: type[BaseModel] | None,
    options: GenerationOptions,
    tools: tuple[ToolSpec, ...] = (),
    response_order: tuple[str, ...] = (),
) -> dict:
    """The Chat Completions body; also the `body` of an OpenAI batch line."""
    body: dict = {
        "model": model,
        "messages": [_wire_message(m) for m in messages],
        "max_completion_tokens": options.max_output_tokens,
    }
    if tools:
        body["tools"] = [_wire_tool(t) for t in tools]
    if options.temperature is not None:
        body["temperature"] = options.temperature
    if options.seed is not None:
        body["seed"] = options.seed
    if response_model is not None:
        body["response_format"] = _response_format(response_model, response_order)
    if options.logprobs:
        body["logprobs"] = True
        body["top_logprobs"] = TOP_LOGPROBS
    return body


def _wire_message(message: Message) -> dict:
    """Function calling on Chat Completions: an assistant turn carries `tool_calls`, each
    result is a `tool` message naming its call."""
    if message.role == "tool":
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content}
    wire: dict = {"role": message.role, "content": message.content}
    if message.tool_calls:
        wire["tool_calls"] = [
            {"id": c.id, "type": "function",
             "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
            for c in message.tool_calls
        ]  # fmt: skip
    return wire


def _wire_tool(tool: ToolSpec) -> dict:
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": json.loads(tool.parameters),
        },
    }


def _tool_calls(message: dict) -> tuple[ToolCall, ...]:
    calls = []
    for call in message.get("tool_calls") or []:
        function = call.get("function") or {}
        try:
            arguments = json.loads(function.get("arguments") or "{}")
        except json.JSONDecodeError:
            arguments = {"_unparsed": function.get("arguments")}
        if not isinstance(arguments, dict):
            arguments = {}
        calls.append(ToolCall(id=call.get("id", ""), name=function.get("name", ""),
                              arguments=arguments))  # fmt: skip
    return tuple(calls)


def _response_format(response_model: type[BaseModel], order: tuple[str, ...]) -> dict:
    """The strict `json_schema` response format, its keys in `order`."""
    plain = _plain_response_format(response_model)
    spec = plain["json_schema"]
    return {**plain, "json_schema": {**spec, "schema": reordered(spec["schema"], order)}}


@lru_cache(maxsize=1024)
def _plain_response_format(response_model: type[BaseModel]) -> dict:
    """Building a strict schema walks the whole model: do it once per reply type."""
    return type_to_response_format_param(response_model)


def completion_from_body(body: dict) -> Completion:
    """A chat-completion JSON body (from a batch output line) as a `Completion`."""
    usage = body.get("usage") or {}
    details = usage.get("prompt_tokens_details") or {}
    choices = body.get("choices") or [{}]
    message = choices[0].get("message") or {}
    return Completion(
        text=message.get("content") or "",
        input_tokens=usage.get("prompt_tokens", 0),
        cached_input_tokens=details.get("cached_tokens") or 0,
        output_tokens=usage.get("completion_tokens", 0),
        logprobs=token_logprobs(choices[0].get("logprobs")),
        tool_calls=_tool_calls(message),
    )


def token_logprobs(block: dict | None) -> TokenLogprobs | None:
    """`choices[0].logprobs.content` (OpenAI and vLLM) as (token, logprob, alternatives)."""
    content = (block or {}).get("content")
    if not content:
        return None
    return tuple(
        (
            item.get("token", ""),
            float(item.get("logprob", 0.0)),
            {alt.get("token", ""): float(alt.get("logprob", 0.0))
             for alt in item.get("top_logprobs") or []},
        )
        for item in content
    )  # fmt: skip
