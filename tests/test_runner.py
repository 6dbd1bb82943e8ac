"""Bounded concurrency: order kept, bound respected, results streamed, failures contained."""

from __future__ import annotations

import asyncio
import itertools
import time

from judge.llm.runner import RateLimiter, run_bounded


async def test_results_keep_input_order_and_bound_holds():
    in_flight = 0
    peak = 0

    async def work(n: int) -> int:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        await asyncio.sleep(0.001 * (n % 5))
        in_flight -= 1
        return n * n

    outcomes = await run_bounded(range(50), work, concurrency=4)
    assert [o.value for o in outcomes] == [n * n for n in range(50)]
    assert [o.index for o in outcomes] == list(range(50))
    assert peak == 4


async def test_each_result_is_streamed_when_it_finishes():
    seen: list[int] = []

    async def work(delay: float) -> float:
        await asyncio.sleep(delay)
        return delay

    async def record(outcome) -> None:
        seen.append(outcome.index)

    outcomes = await run_bounded([0.05, 0.0], work, concurrency=2, on_result=record)
    assert seen == [1, 0]  # the fast item was reported before the slow one finished
    assert [o.value for o in outcomes] == [0.05, 0.0]


async def test_one_failure_does_not_sink_the_batch():
    async def work(n: int) -> int:
        if n == 2:
            raise ValueError("record 2 is malformed")
        return n

    outcomes = await run_bounded(range(4), work, concurrency=2)
    assert [o.ok for o in outcomes] == [True, True, False, True]
    assert str(outcomes[2].error) == "record 2 is malformed"
    assert outcomes[3].value == 3


async def test_rate_limiter_spaces_request_starts():
    starts: list[float] = []

    async def work(_: int) -> None:
        starts.append(time.monotonic())

    await run_bounded(range(4), work, concurrency=4, requests_per_minute=600)  # one per 0.1 s
    gaps = [b - a for a, b in itertools.pairwise(starts)]
    assert len(starts) == 4
    assert all(gap >= 0.09 for gap in gaps)


async def test_rate_limiter_first_start_is_immediate():
    limiter = RateLimiter(per_minute=60)
    started = time.monotonic()
    await limiter.acquire()
    assert time.monotonic() - started < 0.05
    assert limiter.interval == 1.0
