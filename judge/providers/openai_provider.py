"""OpenAI and every OpenAI-compatible server, through the official SDK's Chat Completions API.

Chat Completions is the endpoint vLLM, Ollama, llama.cpp, LM Studio and hosted gateways all
implement, so one class covers them; `base_url` picks the server.
"""

from __future__ import annotations

import json
import time
from functools import lru_cache

import openai
from openai.lib._parsing import type_to_response_format_param
from pydantic import BaseModel

from judge.config import ProviderSettings
from judge.providers.errors import translate_sdk_error
from judge.providers.keys import resolve_api_key
from judge.types import Completion, GenerationOptions, Message


class OpenAIProvider:
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
        return _completion(response, time.perf_counter() - started)


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
    return body


@lru_cache(maxsize=64)
def _response_format(response_model: type[BaseModel]) -> dict:
    """Building a strict schema walks the whole model: do it once per reply type."""
    return type_to_response_format_param(response_model)


def _completion(response, latency_s: float) -> Completion:
    usage = response.usage
    details = getattr(usage, "prompt_tokens_details", None) if usage else None
    text = response.choices[0].message.content if response.choices else None
    return Completion(
        text=text or "",
        input_tokens=usage.prompt_tokens if usage else 0,
        cached_input_tokens=(details.cached_tokens or 0) if details else 0,
        output_tokens=usage.completion_tokens if usage else 0,
        latency_s=latency_s,
    )
