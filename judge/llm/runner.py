"""Bounded-concurrency execution that streams each result as it finishes.

A fixed pool of workers pulls from the item iterator, so memory stays flat for any number of
items; results come back in input order, and `on_result` sees each one the moment it exists so
callers can write it to disk before anything else can go wrong.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

ItemT = TypeVar("ItemT")
T = TypeVar("T")


@dataclass(frozen=True)
class Outcome(Generic[T]):
    """One item's result or the exception it raised; one failure never sinks the batch."""

    index: int
    item: Any
    value: T | None = None
    error: Exception | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


class RateLimiter:
    """Spaces request starts evenly: at most `per_minute` starts in any minute."""

    def __init__(self, per_minute: float) -> None:
        self.interval = 60.0 / per_minute
        self._next_start = 0.0
        self._lock = asyncio.Lock()

    async def acquire(self) -> None:
        loop = asyncio.get_running_loop()
        async with self._lock:
            now = loop.time()
            delay = self._next_start - now
            self._next_start = max(now, self._next_start) + self.interval
        if delay > 0:
            await asyncio.sleep(delay)


async def run_bounded(
    items: Iterable[ItemT],
    fn: Callable[[ItemT], Awaitable[T]],
    concurrency: int = 8,
    requests_per_minute: float | None = None,
    on_result: Callable[[Outcome[T]], object] | None = None,
    keep: bool = True,
) -> list[Outcome[T]]:
    """Run `fn` over `items` with at most `concurrency` in flight; results in input order.
    With `keep=False` nothing is kept (the caller handles each result in `on_result`), so a
    stream of any length runs in bounded memory; items are drawn from the iterable lazily."""
    pending = enumerate(items)
    results: dict[int, Outcome[T]] = {}
    limiter = RateLimiter(requests_per_minute) if requests_per_minute else None

    async def worker() -> None:
        for index, item in pending:
            if limiter is not None:
                await limiter.acquire()
            outcome = await _attempt(index, item, fn)
            if keep:
                results[index] = outcome
            if on_result is not None:
                reported = on_result(outcome)
                if inspect.isawaitable(reported):
                    await reported

    async with asyncio.TaskGroup() as group:
        for _ in range(max(concurrency, 1)):
            group.create_task(worker())
    return [results[i] for i in sorted(results)]


async def _attempt(index: int, item: ItemT, fn: Callable[[ItemT], Awaitable[T]]) -> Outcome[T]:
    try:
        return Outcome(index, item, value=await fn(item))
    except Exception as exc:
        return Outcome(index, item, error=exc)
