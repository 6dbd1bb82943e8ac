"""The retry policy: what is retried, how long it waits, when it gives up."""

from __future__ import annotations

import email.utils
import time

import pytest
from tenacity import RetryCallState

from judge.llm.retry import call_with_retry, make_wait, parse_retry_after
from judge.llm.settings import RetrySettings
from judge.llm.types import PermanentError, TransientError

NO_WAIT = RetrySettings(max_attempts=3, initial_wait_s=0, max_wait_s=0)


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"Retry-After": "7"}, 7.0),
        ({"retry-after": "0.25"}, 0.25),
        ({"retry-after-ms": "1500", "retry-after": "9"}, 1.5),
        ({"retry-after": "soon"}, None),
        ({"retry-after": "-3"}, 0.0),
        ({}, None),
        (None, None),
    ],
)
def test_parse_retry_after(headers, expected):
    assert parse_retry_after(headers) == expected


def test_parse_retry_after_http_date():
    later = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 25 <= parse_retry_after({"Retry-After": later}) <= 31


def _state_with(exc: Exception, attempt: int = 1) -> RetryCallState:
    state = RetryCallState(retry_object=None, fn=None, args=(), kwargs={})
    state.attempt_number = attempt
    state.set_exception((type(exc), exc, None))
    return state


def test_wait_is_at_least_retry_after_and_capped():
    wait = make_wait(RetrySettings(initial_wait_s=0, max_wait_s=0, max_retry_after_s=10))
    assert wait(_state_with(TransientError("429", retry_after=4.0))) == 4.0
    assert wait(_state_with(TransientError("429", retry_after=400.0))) == 10.0
    assert wait(_state_with(TransientError("500"))) == 0.0


def test_backoff_grows_but_stays_under_the_cap():
    wait = make_wait(RetrySettings(initial_wait_s=1, max_wait_s=5))
    waits = [wait(_state_with(TransientError("500"), attempt=n)) for n in range(1, 8)]
    assert all(0 <= w <= 5 for w in waits)


async def test_transient_errors_are_retried_until_success():
    calls = []

    async def flaky():
        calls.append(1)
        if len(calls) < 3:
            raise TransientError("HTTP 503")
        return "done"

    assert await call_with_retry(NO_WAIT, flaky) == "done"
    assert len(calls) == 3


async def test_permanent_errors_are_never_retried():
    calls = []

    async def unauthorised():
        calls.append(1)
        raise PermanentError("HTTP 401: bad key")

    with pytest.raises(PermanentError, match="401"):
        await call_with_retry(NO_WAIT, unauthorised)
    assert len(calls) == 1


async def test_exhausted_attempts_reraise_the_provider_error():
    calls = []

    async def always_busy():
        calls.append(1)
        raise TransientError("HTTP 429: slow down")

    with pytest.raises(TransientError, match="slow down"):
        await call_with_retry(NO_WAIT, always_busy)
    assert len(calls) == NO_WAIT.max_attempts
