"""Small checks of the LLM layer for the CLI: key status per provider, and a one-call ping."""

from __future__ import annotations

import os

from pydantic import BaseModel

from judge.llm.client import LLMClient
from judge.llm.settings import LLMSettings
from judge.llm.types import LLMResult, Message

DEFAULT_KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}


class PingReply(BaseModel):
    reply: str


def provider_status(settings: LLMSettings) -> list[tuple[str, str, str, str]]:
    """One row per configured provider; says whether the key is set, never what it is."""
    rows = []
    for name, provider in sorted(settings.providers.items()):
        env = provider.api_key_env or DEFAULT_KEY_ENV.get(name, "")
        rows.append(
            (
                name,
                provider.base_url or "(provider default)",
                env or "-",
                _key_state(env, provider.require_api_key),
            )
        )
    return rows


def _key_state(env: str, required: bool) -> str:
    if env and os.environ.get(env):
        return "set"
    return "missing" if required else "not needed"


async def ping(settings: LLMSettings, spec: str, use_cache: bool = True) -> LLMResult:
    messages = [
        Message(role="system", content="You answer in JSON."),
        Message(role="user", content='Reply with {"reply": "pong"}.'),
    ]
    async with LLMClient(settings, use_cache=use_cache) as client:
        return await client.model(spec).complete(messages, response_model=PingReply)
