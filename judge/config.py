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


class JudgeSettings(BaseModel):
    """How the blind judge shows a patch and counts its answers."""

    model_config = ConfigDict(extra="forbid")

    strict_evidence: bool = True
    """A `yes` whose evidence quote is not in the diff counts as `no` (it is always reported)."""
    max_diff_tokens: int = Field(default=12_000, ge=100)
    """Longer diffs are cut with a visible marker and the judgement is flagged `truncated`."""
    max_description_tokens: int = Field(default=6_000, ge=100)
    shuffle_seed: int = 0
    """Seeds the per-candidate criterion order (position-bias control); the order is recorded."""


class RubricSettings(BaseModel):
    """Limits for rubric generation."""

    model_config = ConfigDict(extra="forbid")

    min_criteria: int = Field(default=5, ge=1)
    max_criteria: int = Field(default=12, ge=1)
    max_reference_tokens: int = Field(default=8_000, ge=100)
    max_context_tokens: int = Field(default=12_000, ge=0)
    """Budget for repository files read at the base commit (with --repos-dir)."""


class ReferenceSettings(BaseModel):
    """The no-LLM reference rubric: which structural facts of the reference patch to check,
    and how much each kind weighs (localisation and the core change dominate)."""

    model_config = ConfigDict(extra="forbid")

    file_weight: int = Field(default=2, ge=1, le=5)
    symbol_weight: int = Field(default=3, ge=1, le=5)
    token_weight: int = Field(default=1, ge=1, le=5)
    max_symbols: int = Field(default=6, ge=0)
    max_tokens: int = Field(default=8, ge=0)


class BatchSettings(BaseModel):
    """Provider batch APIs (`--batch`)."""

    model_config = ConfigDict(extra="forbid")

    poll_interval_s: float = Field(default=30.0, ge=0)
    """Seconds between status checks of running batches."""
    max_rounds: int = Field(default=4, ge=1)
    """Defer-submit-import rounds before the live run (each round may unlock the next stage)."""


class AppSettings(BaseModel):
    """The whole resolved configuration; saved beside every run."""

    model_config = ConfigDict(extra="forbid")

    llm: LLMSettings = Field(default_factory=lambda: LLMSettings())
    judge: JudgeSettings = Field(default_factory=JudgeSettings)
    rubrics: RubricSettings = Field(default_factory=RubricSettings)
    reference: ReferenceSettings = Field(default_factory=ReferenceSettings)
    batch: BatchSettings = Field(default_factory=BatchSettings)


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


def parse_set(assignment: str) -> dict[str, Any]:
    """`llm.providers.openai.base_url=http://x` → the nested mapping it stands for; the value
    is read as YAML, so numbers, booleans and null keep their type."""
    key, sep, raw = assignment.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"--set {assignment!r}: write KEY.PATH=VALUE")
    try:
        value: Any = yaml.safe_load(raw) if raw.strip() else ""
    except yaml.YAMLError as exc:
        raise ConfigError(f"--set {assignment!r}: {exc}") from exc
    for part in reversed(key.strip().split(".")):
        value = {part: value}
    return value


def load_app_settings(
    path: Path | None = None, sets: list[str] | None = None, **llm_overrides: Any
) -> AppSettings:
    """Bundled defaults, then the user's YAML, then `--set` assignments, then CLI options of
    the `llm` section."""
    data = read_yaml(config_path("default.yaml"))
    if path is not None:
        data = _merge(data, read_yaml(path))
    for assignment in sets or []:
        data = _merge(data, parse_set(assignment))
    overrides = {k: v for k, v in llm_overrides.items() if v is not None}
    data = _merge(data, {"llm": overrides})
    try:
        return AppSettings.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"invalid settings ({path or 'defaults'}): {exc}") from exc


def load_settings(path: Path | None = None, **overrides: Any) -> LLMSettings:
    """Just the LLM layer's settings."""
    return load_app_settings(path, **overrides).llm


def _merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged
