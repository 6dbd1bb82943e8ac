"""The core types of the LLM layer and the provider protocol: one screen, no project imports.

Everything that talks to a model depends on this module; it depends on nothing of ours, so a
reader can see the whole contract between the pipeline and a provider here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

Role = Literal["system", "user", "assistant", "tool"]


class ToolCall(BaseModel):
    """A model's request to run one tool (the provider's own tool calling)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    name: str
    arguments: dict


class Message(BaseModel):
    """One chat message; providers translate the list into their wire format. An assistant
    message may carry tool calls; a `tool` message answers one call by its id."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: Role
    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None


class GenerationOptions(BaseModel):
    """Sampling options that change the reply, so they are part of the cache key."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    temperature: float | None = Field(
        default=0.0, description="None leaves it to the server (reasoning models reject it)."
    )
    max_output_tokens: int = 4096
    seed: int | None = None
    logprobs: bool = False
    """Ask for token log-probabilities (where the provider has them): part of the cache key."""


class Usage(BaseModel):
    """Tokens and money for one provider call (or the sum of several).

    `input_tokens` counts every prompt token, cached ones included; `cached_input_tokens` is the
    part billed at the cached rate. `cost_usd` is None when the price is unknown: an unknown
    price must never look like a free call.
    """

    model_config = ConfigDict(extra="forbid")

    model: str = ""
    input_tokens: int = 0
    cached_input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = 0.0
    latency_s: float = 0.0
    calls: int = 1
    cache_hits: int = 0

    def __add__(self, other: Usage) -> Usage:
        cost = (
            None
            if self.cost_usd is None or other.cost_usd is None
            else (self.cost_usd + other.cost_usd)
        )
        return Usage(
            model=self.model or other.model,
            input_tokens=self.input_tokens + other.input_tokens,
            cached_input_tokens=self.cached_input_tokens + other.cached_input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cost_usd=cost,
            latency_s=self.latency_s + other.latency_s,
            calls=self.calls + other.calls,
            cache_hits=self.cache_hits + other.cache_hits,
        )


@dataclass(frozen=True)
class Completion:
    """What a provider returns for one call: the raw reply text and its token counts."""

    text: str
    input_tokens: int = 0
    cached_input_tokens: int = 0
    output_tokens: int = 0
    latency_s: float = 0.0
    logprobs: TokenLogprobs | None = None
    """Per output token: (token, log-probability, {alternative: log-probability}), when asked."""
    tool_calls: tuple[ToolCall, ...] = ()
    """Tools the model asked to run instead of replying (only when tools were offered)."""


TokenLogprobs = tuple[tuple[str, float, dict[str, float]], ...]


@dataclass(frozen=True)
class ToolSpec:
    """A tool offered to the model: what the provider's tool-calling API needs."""

    name: str
    description: str
    parameters: str  # the JSON schema, as canonical JSON text (hashable, cache-key stable)


@dataclass(frozen=True)
class LLMRequest:
    """Everything that determines a reply; its hash is the cache key and the batch custom_id."""

    messages: tuple[Message, ...]
    response_model: type[BaseModel] | None = None
    options: GenerationOptions = field(default_factory=GenerationOptions)
    sample_index: int = 0
    tools: tuple[ToolSpec, ...] = ()
    """Tools the model may call (name, description, JSON-schema parameters)."""
    response_order: tuple[str, ...] = ()
    """The order the reply's keys are listed in its schema (the model writes them in that
    order); empty keeps the model's own field order."""


class LLMResult(BaseModel):
    """The outcome of one logical request (first attempt plus at most one repair).

    `status == "unparsed"` means the model answered but never produced a valid reply: the raw
    text and the reason are kept so a caller can record the item as unscored, never as a score.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    status: Literal["ok", "unparsed"]
    text: str
    parsed: BaseModel | None = None
    reason: str | None = None
    repaired: bool = False
    usage: Usage
    logprobs: TokenLogprobs | None = None
    tool_calls: tuple[ToolCall, ...] = ()


@runtime_checkable
class Provider(Protocol):
    """A backend: one async call from chat messages to reply text.

    `response_model` asks for schema-constrained JSON; the provider passes its JSON schema to the
    SDK's structured-output feature, but validation is the caller's job so that every provider
    gets the same repair and unparsed handling.
    """

    name: str
    model: str

    async def complete(
        self,
        messages: list[Message],
        response_model: type[BaseModel] | None,
        options: GenerationOptions,
        tools: tuple[ToolSpec, ...] = (),
        response_order: tuple[str, ...] = (),
    ) -> Completion: ...


class LLMError(Exception):
    """A call that failed for good; the message names the provider, model and reason.

    `kind` is a short category for counting (rate_limited, server_error, timeout, connection,
    malformed, auth, bad_request, …), reported in every run's manifest."""

    def __init__(self, message: str, kind: str = "other") -> None:
        super().__init__(message)
        self.kind = kind


class TransientError(LLMError):
    """A failure worth retrying (429, 5xx, timeout, connection error)."""

    def __init__(self, message: str, retry_after: float | None = None, kind: str = "other") -> None:
        super().__init__(message, kind)
        self.retry_after = retry_after


class PermanentError(LLMError):
    """A failure that retrying cannot fix (auth, bad request, context too long)."""


class ConfigError(ValueError):
    """A configuration problem found before any work starts."""
