"""Translate the official SDKs' exceptions into retry decisions.

Both the `openai` and the `anthropic` SDK share one exception hierarchy (status errors with the
HTTP response, connection errors, timeouts), so one function serves both; each provider passes
its own SDK module.
"""

from __future__ import annotations

import json
from types import ModuleType

from judge.llm.retry import parse_retry_after
from judge.llm.types import LLMError, PermanentError, TransientError

RETRYABLE_STATUS = frozenset({408, 409, 429})


def translate_sdk_error(exc: Exception, sdk: ModuleType, where: str) -> LLMError | None:
    """Our error for an SDK exception, or None when it is not an SDK error at all."""
    if isinstance(exc, sdk.APITimeoutError):
        return TransientError(f"{where}: request timed out", kind="timeout")
    if isinstance(exc, sdk.APIConnectionError):
        return TransientError(f"{where}: connection error: {exc}", kind="connection")
    if isinstance(exc, sdk.APIStatusError):
        return _status_error(exc, where)
    if isinstance(exc, sdk.APIError | json.JSONDecodeError):
        return TransientError(f"{where}: malformed response: {exc}", kind="malformed")
    return None


KINDS = {401: "auth", 403: "auth", 408: "timeout", 409: "conflict", 429: "rate_limited"}


def _kind(status: int) -> str:
    return "server_error" if status >= 500 else KINDS.get(status, "bad_request")


def _status_error(exc, where: str) -> LLMError:
    status = exc.status_code
    message = f"{where}: HTTP {status}: {exc.message}"
    if status in RETRYABLE_STATUS or status >= 500:
        retry_after = parse_retry_after(exc.response.headers)
        return TransientError(message, retry_after=retry_after, kind=_kind(status))
    return PermanentError(message, kind=_kind(status))
