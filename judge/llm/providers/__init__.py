"""Provider registry: short names to classes, imported only when a model of theirs is used.

Models are addressed as `provider:model` (`openai:gpt-4.1-mini`, `anthropic:claude-sonnet-4-5`,
`local:qwen2.5-coder`, `scripted:demo`). `local` is the OpenAI-compatible provider with its own
settings section, so a self-hosted server and the OpenAI API can be used side by side.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from judge.llm.settings import LLMSettings, ProviderSettings
from judge.llm.types import ConfigError, Provider

ProviderFactory = Callable[[str, str, ProviderSettings], Provider]

_BUILTIN: dict[str, str] = {
    "openai": "judge.llm.providers.openai_provider:OpenAIProvider",
    "local": "judge.llm.providers.openai_provider:OpenAIProvider",
    "anthropic": "judge.llm.providers.anthropic_provider:AnthropicProvider",
    "scripted": "judge.llm.providers.scripted:ScriptedProvider",
}
_registered: dict[str, ProviderFactory] = {}


def register_provider(name: str, factory: ProviderFactory) -> None:
    """Add or replace a provider; `factory(provider_name, model, settings)` builds it."""
    _registered[name] = factory


def provider_names() -> list[str]:
    return sorted({*_BUILTIN, *_registered})


def parse_model_spec(spec: str) -> tuple[str, str]:
    """`openai:gpt-4.1` -> ("openai", "gpt-4.1"); a bare `scripted` means `scripted:default`."""
    provider, sep, model = spec.partition(":")
    if not sep:
        if provider == "scripted":
            return "scripted", "default"
        raise ConfigError(f"model {spec!r} must be provider:model, e.g. openai:gpt-4.1-mini")
    if provider not in _BUILTIN and provider not in _registered:
        known = ", ".join(provider_names())
        raise ConfigError(f"unknown provider {provider!r} in {spec!r}; known: {known}")
    if not model:
        raise ConfigError(f"model {spec!r} names no model after the provider")
    return provider, model


def _factory(provider: str) -> ProviderFactory:
    if provider in _registered:
        return _registered[provider]
    module_name, _, class_name = _BUILTIN[provider].partition(":")
    return getattr(importlib.import_module(module_name), class_name)


def create_provider(spec: str, settings: LLMSettings) -> Provider:
    provider, model = parse_model_spec(spec)
    return _factory(provider)(provider, model, settings.provider(provider))


def confidence_source(spec: str) -> str:
    """How a provider can say how sure its model is: "logprobs", "verbal" or "none" (the
    class attribute `confidence`; a registered factory without one says "none")."""
    provider, _ = parse_model_spec(spec)
    return getattr(_factory(provider), "confidence", "none")
