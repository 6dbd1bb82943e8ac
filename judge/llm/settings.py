"""Settings of the model layer: how to reach providers, retry, cache, price and batch calls.

They live beside the code that reads them so that `judge.llm` depends on nothing else of ours;
`judge.config` composes them with the judge's own sections into the whole configuration.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from judge.llm.types import ConfigError, GenerationOptions


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
    """One retry policy for every provider (see `judge.llm.retry`)."""

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


class BatchSettings(BaseModel):
    """Provider batch APIs (`--batch`)."""

    model_config = ConfigDict(extra="forbid")

    poll_interval_s: float = Field(default=30.0, ge=0)
    """Seconds between status checks of running batches."""
    max_rounds: int = Field(default=4, ge=1)
    """Defer-submit-import rounds before the live run (each round may unlock the next stage)."""


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
