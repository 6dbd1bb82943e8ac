"""Settings for the LLM layer, loaded from YAML in `configs/` and overridable from the CLI.

Every model has `extra="forbid"` so a misspelt key in a YAML file is an error that names the key,
not a silently ignored setting.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from judge.paths import config_path
from judge.types import ConfigError, GenerationOptions


class ProviderSettings(BaseModel):
    """How to reach one provider."""

    model_config = ConfigDict(extra="forbid")

    base_url: str | None = None
    """Server root; set it for vLLM, Ollama, llama.cpp, LM Studio or a gateway."""
    api_key_env: str | None = None
    """Name of the environment variable holding the key (the key itself never goes in a file)."""
    require_api_key: bool = True
    """Local servers often need no key; set false to send a placeholder instead of failing."""
    timeout_s: float = 120.0
    """Per-request timeout; a timeout is retried like a 5xx."""
    structured: Literal["json_schema", "tool"] = "json_schema"
    """Anthropic only: native JSON-schema output, or a forced tool call for models without it."""
    script: str | None = None
    """Scripted provider only: a JSONL file of replies, one JSON string or object per line."""


class RetrySettings(BaseModel):
    """One retry policy for every provider (see `judge.retry`)."""

    model_config = ConfigDict(extra="forbid")

    max_attempts: int = Field(default=6, ge=1)
    """Attempts per call, the first included."""
    initial_wait_s: float = Field(default=1.0, ge=0)
    """Base of the exponential backoff; tests set it to 0."""
    max_wait_s: float = Field(default=60.0, ge=0)
    """Cap of one backoff wait."""
    max_retry_after_s: float = Field(default=300.0, ge=0)
    """A server's Retry-After is honoured up to this many seconds."""


class LLMSettings(BaseModel):
    """Everything the LLM layer needs; the resolved copy is saved beside each run's results."""

    model_config = ConfigDict(extra="forbid")

    providers: dict[str, ProviderSettings] = Field(default_factory=dict)
    retry: RetrySettings = Field(default_factory=RetrySettings)
    generation: GenerationOptions = Field(default_factory=GenerationOptions)
    concurrency: int = Field(default=8, ge=1)
    """Requests in flight at once."""
    requests_per_minute: float | None = Field(default=None, gt=0)
    """Optional cap on request starts per minute (None: no cap)."""
    cache_enabled: bool = True
    cache_path: str = ".rubric-judge/cache.sqlite"
    prices_path: str | None = None
    """Price table; None means the bundled `configs/prices.yaml`."""

    def provider(self, name: str) -> ProviderSettings:
        return self.providers.get(name, ProviderSettings())


def read_yaml(path: Path) -> dict[str, Any]:
    """Read a YAML mapping, naming the file in any error."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"cannot read config {path}: {exc}") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"config {path} must be a mapping, got {type(data).__name__}")
    return data


def load_settings(path: Path | None = None, **overrides: Any) -> LLMSettings:
    """Bundled defaults, then the user's YAML (its `llm:` section), then CLI overrides."""
    data = read_yaml(config_path("default.yaml")).get("llm", {})
    if path is not None:
        data = _merge(data, read_yaml(path).get("llm", {}))
    data = _merge(data, {k: v for k, v in overrides.items() if v is not None})
    try:
        return LLMSettings.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"invalid settings ({path or 'defaults'}): {exc}") from exc


def _merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged
