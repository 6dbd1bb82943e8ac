"""The whole configuration (model layer, judge, rubrics, reference, batch), loaded from YAML
in `configs/` and overridable from the CLI.

Every model has `extra="forbid"` so a misspelt key in a YAML file is an error that names the key,
not a silently ignored setting.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from judge.llm.paths import config_path
from judge.llm.settings import BatchSettings, LLMSettings, read_yaml
from judge.llm.types import ConfigError


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
    confidence: Literal["auto", "logprobs", "verbal", "off"] = "auto"
    """Graded answers: P(yes) from token log-probabilities where the provider has them
    (OpenAI, vLLM), else a stated confidence (Anthropic); "off" keeps answers binary."""
    max_context_tokens: int = Field(default=6_000, ge=0)
    """With --repos-dir: budget for the code around the change, read at the base commit."""
    view_cache_dir: str = ".rubric-judge/views"
    """Code context and static facts per (repository, base commit, patch), computed once."""
    prompt_workers: int | None = Field(default=None, ge=0)
    """Processes that build judge prompts ahead of the main one (CPU work: blinding, diff
    budget, rendering). Unset: on the command line one less than the cores, at most 4, for
    runs of 2,000 or more candidates, and none from the library; 0: none. Judgements are the
    same either way."""


class RubricSettings(BaseModel):
    """Limits for rubric generation."""

    model_config = ConfigDict(extra="forbid")

    min_criteria: int = Field(default=5, ge=1)
    max_criteria: int = Field(default=12, ge=1)
    max_reference_tokens: int = Field(default=8_000, ge=100)
    max_context_tokens: int = Field(default=12_000, ge=0)
    """Budget for repository files read at the base commit (with --repos-dir)."""
    explore_max_steps: int = Field(default=8, ge=0)
    """`--context explore`: tool-calling turns before the generator must write the rubric."""
    explore_max_tool_chars: int = Field(default=60_000, ge=0)
    """`--context explore`: total characters of tool output shown; then tools are withdrawn."""


class ReferenceSettings(BaseModel):
    """The no-LLM reference rubric: which structural facts of the reference patch to check,
    and how much each kind weighs (localisation and the core change dominate)."""

    model_config = ConfigDict(extra="forbid")

    file_weight: int = Field(default=1, ge=1, le=5)
    symbol_weight: int = Field(default=1, ge=1, le=5)
    token_weight: int = Field(default=1, ge=1, le=5)
    max_symbols: int = Field(default=0, ge=0)
    """0: no symbol criteria (cross-validation preferred files and tokens alone)."""
    max_tokens: int = Field(default=4, ge=0)


class AppSettings(BaseModel):
    """The whole resolved configuration; saved beside every run."""

    model_config = ConfigDict(extra="forbid")

    llm: LLMSettings = Field(default_factory=lambda: LLMSettings())
    judge: JudgeSettings = Field(default_factory=JudgeSettings)
    rubrics: RubricSettings = Field(default_factory=RubricSettings)
    reference: ReferenceSettings = Field(default_factory=ReferenceSettings)
    batch: BatchSettings = Field(default_factory=BatchSettings)


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
