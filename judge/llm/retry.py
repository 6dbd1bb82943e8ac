"""The one retry policy: exponential backoff with jitter, honouring Retry-After.

Providers translate their SDK's exceptions into `TransientError` (retry) or `PermanentError`
(fail fast); this module only decides *when* to try again. SDK clients are built with
`max_retries=0` so the two mechanisms never stack.
"""

from __future__ import annotations

import email.utils
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import TypeVar

from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception_type,
    stop_after_attempt,
    wait_random_exponential,
)

from judge.llm.settings import RetrySettings
from judge.llm.types import TransientError

log = logging.getLogger(__name__)
T = TypeVar("T")


def parse_retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds a server asked us to wait: `retry-after-ms`, `retry-after` seconds or HTTP date."""
    if not headers:
        return None
    lowered = {k.lower(): v for k, v in headers.items()}
    if (ms := _as_float(lowered.get("retry-after-ms"))) is not None:
        return ms / 1000
    raw = lowered.get("retry-after")
    if raw is None:
        return None
    if (seconds := _as_float(raw)) is not None:
        return seconds
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - time.time(), 0.0)


def _as_float(raw: str | None) -> float | None:
    try:
        return None if raw is None else max(float(raw), 0.0)
    except ValueError:
        return None


def make_wait(settings: RetrySettings) -> Callable[[RetryCallState], float]:
    """Backoff with full jitter, but never shorter than the server's Retry-After."""
    backoff = wait_random_exponential(multiplier=settings.initial_wait_s, max=settings.max_wait_s)

    def wait(state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        asked = getattr(exc, "retry_after", None) or 0.0
        return max(backoff(state), min(asked, settings.max_retry_after_s))

    return wait


def _log_retry(state: RetryCallState) -> None:
    exc = state.outcome.exception() if state.outcome else None
    log.info("retrying after attempt %d: %s", state.attempt_number, exc)


def _both(on_retry: Callable[[BaseException], None]) -> Callable[[RetryCallState], None]:
    def before_sleep(state: RetryCallState) -> None:
        _log_retry(state)
        if state.outcome is not None and (exc := state.outcome.exception()) is not None:
            on_retry(exc)

    return before_sleep


async def call_with_retry(
    settings: RetrySettings,
    fn: Callable[[], Awaitable[T]],
    on_retry: Callable[[BaseException], None] | None = None,
) -> T:
    """Run `fn` until it succeeds, raises a non-transient error, or attempts run out.

    When attempts run out the last `TransientError` is re-raised, so the caller sees the
    provider's own message rather than tenacity's wrapper.
    """
    retrying = AsyncRetrying(
        stop=stop_after_attempt(settings.max_attempts),
        wait=make_wait(settings),
        retry=retry_if_exception_type(TransientError),
        before_sleep=_log_retry if on_retry is None else _both(on_retry),
        reraise=True,
    )
    return await retrying(fn)
