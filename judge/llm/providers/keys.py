"""API keys come from the environment only, and their absence is reported before any work."""

from __future__ import annotations

import os

from judge.llm.settings import ProviderSettings
from judge.llm.types import ConfigError

PLACEHOLDER_KEY = "not-needed"


def resolve_api_key(provider: str, settings: ProviderSettings, default_env: str) -> str:
    env_name = settings.api_key_env or default_env
    key = os.environ.get(env_name, "").strip()
    if key:
        return key
    if not settings.require_api_key:
        return PLACEHOLDER_KEY
    raise ConfigError(
        f"provider {provider!r} needs an API key: set the environment variable {env_name} "
        f"(or name another one with providers.{provider}.api_key_env in your config)"
    )
