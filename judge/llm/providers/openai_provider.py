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
from judge.llm.settings import ProviderSettings
from judge.llm.types import Completion, GenerationOptions, Message, TokenLogprobs

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
    ) -> Completion:
        started = time.perf_counter()
        try:
            response = await self._client.chat.completions.create(
                **request_body(self.model, messages, response_model, options)
            )
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
) -> dict:
    """The Chat Completions body; also the `body` of an OpenAI batch line."""
    body: dict = {
        "model": model,
        "messages": [m.model_dump() for m in messages],
        "max_completion_tokens": options.max_output_tokens,
    }
    if options.temperature is not None:
        body["temperature"] = options.temperature
    if options.seed is not None:
        body["seed"] = options.seed
    if response_model is not None:
        body["response_format"] = _response_format(response_model)
    if options.logprobs:
        body["logprobs"] = True
        body["top_logprobs"] = TOP_LOGPROBS
    return body


@lru_cache(maxsize=8192)
def _response_format(response_model: type[BaseModel]) -> dict:
    """Building a strict schema walks the whole model: do it once per reply type."""
    return type_to_response_format_param(response_model)


def completion_from_body(body: dict) -> Completion:
    """A chat-completion JSON body (from a batch output line) as a `Completion`."""
    usage = body.get("usage") or {}
    details = usage.get("prompt_tokens_details") or {}
    choices = body.get("choices") or [{}]
    return Completion(
        text=(choices[0].get("message") or {}).get("content") or "",
        input_tokens=usage.get("prompt_tokens", 0),
        cached_input_tokens=details.get("cached_tokens") or 0,
        output_tokens=usage.get("completion_tokens", 0),
        logprobs=token_logprobs(choices[0].get("logprobs")),
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
