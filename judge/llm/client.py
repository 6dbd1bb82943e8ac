"""The LLM client every stage uses: cache, retries, validation with one repair, cost ledger.

Stages never talk to a provider directly. `LLMClient.model("openai:gpt-4.1-mini")` returns a
handle whose `complete()` does the whole dance for one logical request and always returns an
`LLMResult` (ok or unparsed), raising only `LLMError` for calls that failed for good.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Sequence
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel

from judge.llm.batching import BatchCollector, DeferredRequest, PendingRequest
from judge.llm.cache import ReplyCache, request_key
from judge.llm.pricing import Ledger, PriceTable, cost_usd, load_prices
from judge.llm.providers import confidence_source, create_provider, parse_model_spec
from judge.llm.retry import call_with_retry
from judge.llm.runner import Outcome, run_bounded
from judge.llm.settings import LLMSettings
from judge.llm.structured import repair_messages, validate_reply
from judge.llm.types import (
    Completion,
    ConfigError,
    GenerationOptions,
    LLMError,
    LLMRequest,
    LLMResult,
    Message,
    ToolSpec,
    Usage,
)

ItemT = TypeVar("ItemT")
T = TypeVar("T")


class LLMClient:
    """Shared state of one run: settings, providers, the cache, prices and the ledger."""

    def __init__(
        self,
        settings: LLMSettings,
        use_cache: bool | None = None,
        on_request: Callable[[str, Sequence[Message]], None] | None = None,
        defer: BatchCollector | None = None,
        ledger: Ledger | None = None,
    ) -> None:
        """`on_request(model, messages)` sees every prompt before it is sent or looked up in
        the cache (the leak audit uses it). With `defer`, cache misses are collected for a
        batch instead of being sent. `ledger` lets several phases of one run share totals."""
        self.settings = settings
        self.on_request = on_request
        self.defer = defer
        enabled = settings.cache_enabled if use_cache is None else use_cache
        self.cache = ReplyCache(settings.cache_path) if enabled else None
        prices_path = Path(settings.prices_path) if settings.prices_path else None
        self.prices: PriceTable = load_prices(prices_path)
        self.ledger = ledger or Ledger()
        self.faults: dict[str, Counter[str]] = {"retried": Counter(), "failed": Counter()}
        if defer is not None and self.cache is None:
            raise ConfigError("batch mode needs the reply cache: drop --no-cache")
        self._models: dict[str, ModelClient] = {}

    def model(self, spec: str) -> ModelClient:
        """A handle for `provider:model`; fails at once on a missing key or unknown provider."""
        if spec not in self._models:
            self._models[spec] = ModelClient(self, spec)
        return self._models[spec]

    async def map(
        self,
        items: Iterable[ItemT],
        fn: Callable[[ItemT], Awaitable[T]],
        on_result: Callable[[Outcome[T]], object] | None = None,
        keep: bool = True,
    ) -> list[Outcome[T]]:
        """Run `fn` over items with the configured concurrency and request rate."""
        return await run_bounded(
            items,
            fn,
            concurrency=self.settings.concurrency,
            requests_per_minute=self.settings.requests_per_minute,
            on_result=on_result,
            keep=keep,
        )

    async def aclose(self) -> None:
        """Close SDK connection pools inside the event loop that opened them, then the cache."""
        for handle in self._models.values():
            closer = getattr(handle.provider, "aclose", None)
            if closer is not None:
                await closer()
        self._models.clear()
        if self.cache is not None:
            self.cache.close()

    async def __aenter__(self) -> LLMClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class ModelClient:
    def __init__(self, client: LLMClient, spec: str) -> None:
        """The provider is built at once (a missing key fails before any work), except in
        defer mode, which never calls it: exporting a batch file needs no key."""
        self._client = client
        name, model = parse_model_spec(spec)
        self.spec = f"{name}:{model}"
        self.structured = client.settings.provider(name).structured
        self.provider = None if client.defer is not None else create_provider(spec, client.settings)
        self.confidence = confidence_source(spec)

    def options(self, **changes) -> GenerationOptions:
        """The configured generation options with some changed (e.g. logprobs=True)."""
        return self._client.settings.generation.model_copy(update=changes)

    async def complete(
        self,
        messages: Sequence[Message],
        response_model: type[BaseModel] | None = None,
        options: GenerationOptions | None = None,
        sample_index: int = 0,
        tools: tuple[ToolSpec, ...] = (),
        response_order: tuple[str, ...] = (),
    ) -> LLMResult:
        """One reply; with `tools`, the model may instead ask to run some (`tool_calls`).
        `response_order` lists the reply's keys in the order its schema should show them."""
        request = LLMRequest(
            messages=tuple(messages),
            response_model=response_model,
            options=options or self._client.settings.generation,
            sample_index=sample_index,
            tools=tuple(tools),
            response_order=tuple(response_order),
        )
        completion, usage = await self._call(request)
        if completion.tool_calls:
            return LLMResult(
                status="ok", text=completion.text, usage=usage, tool_calls=completion.tool_calls
            )
        if response_model is None:
            return LLMResult(status="ok", text=completion.text, usage=usage)
        return await self._validated(request, completion, usage)

    async def _validated(
        self, request: LLMRequest, completion: Completion, usage: Usage
    ) -> LLMResult:
        """Validate; on failure send exactly one repair request, then give up as unparsed."""
        model = request.response_model
        parsed, reason = validate_reply(model, completion.text)
        if parsed is not None:
            return LLMResult(
                status="ok",
                text=completion.text,
                parsed=parsed,
                usage=usage,
                logprobs=completion.logprobs,
            )
        repair = LLMRequest(
            messages=repair_messages(request.messages, completion.text, reason),
            response_model=model,
            options=request.options,
            sample_index=request.sample_index,
            response_order=request.response_order,
        )
        second, more = await self._call(repair)
        parsed, second_reason = validate_reply(model, second.text)
        usage = usage + more
        if parsed is not None:
            return LLMResult(
                status="ok",
                text=second.text,
                parsed=parsed,
                repaired=True,
                usage=usage,
                logprobs=second.logprobs,
            )
        return LLMResult(
            status="unparsed",
            text=second.text,
            reason=f"invalid reply after one repair: {second_reason}",
            repaired=True,
            usage=usage,
        )

    async def _call(self, request: LLMRequest) -> tuple[Completion, Usage]:
        if self._client.on_request is not None:
            self._client.on_request(self.spec, request.messages)
        cache = self._client.cache
        key = request_key(self.spec, request) if cache is not None else ""
        cached = cache.get(key) if cache is not None else None
        if cached is not None:
            usage = self._usage(cached, cost=0.0, cache_hit=True)
            self._client.ledger.add_saving(key, self._cost(cached))
        elif self._client.defer is not None:
            self._client.defer.add(PendingRequest(key, self.spec, request, self.structured))
            raise DeferredRequest(f"{self.spec}: deferred to a batch ({key[:12]})")
        else:

            async def attempt() -> Completion:
                return await self.provider.complete(
                    list(request.messages),
                    request.response_model,
                    request.options,
                    **_extras(request),
                )

            cached = await self._with_retry(attempt)
            if cache is not None:
                cache.put(key, self.spec, cached)
            usage = self._usage(cached, cost=self._cost(cached), cache_hit=False)
        self._client.ledger.add(usage)
        return cached, usage

    async def _with_retry(self, attempt) -> Completion:
        """Count every retried fault and every final failure by kind, for the manifest."""
        faults = self._client.faults

        def retried(exc: BaseException) -> None:
            faults["retried"][getattr(exc, "kind", type(exc).__name__)] += 1

        try:
            return await call_with_retry(self._client.settings.retry, attempt, retried)
        except LLMError as exc:
            faults["failed"][exc.kind] += 1
            raise

    def _cost(self, completion: Completion) -> float | None:
        return cost_usd(
            self._client.prices,
            self.spec,
            completion.input_tokens,
            completion.cached_input_tokens,
            completion.output_tokens,
        )

    def _usage(self, completion: Completion, cost: float | None, cache_hit: bool) -> Usage:
        return Usage(
            model=self.spec,
            input_tokens=completion.input_tokens,
            cached_input_tokens=completion.cached_input_tokens,
            output_tokens=completion.output_tokens,
            cost_usd=cost,
            latency_s=0.0 if cache_hit else completion.latency_s,
            cache_hits=int(cache_hit),
        )


def _extras(request: LLMRequest) -> dict:
    """Provider arguments beyond the basic three, passed only when set (a provider written
    before them still works for requests that need neither)."""
    extras: dict = {}
    if request.tools:
        extras["tools"] = request.tools
    if request.response_order:
        extras["response_order"] = request.response_order
    return extras
