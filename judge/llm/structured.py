"""Validating structured replies, and the one repair prompt sent when validation fails."""

from __future__ import annotations

import re

from pydantic import BaseModel, ValidationError

from judge.llm.types import Message

_FENCE = re.compile(r"^\s*```(?:json)?\s*\n(.*)\n\s*```\s*$", re.DOTALL)
MAX_ERROR_CHARS = 2000


def strip_code_fence(text: str) -> str:
    """Local servers without constrained decoding often wrap JSON in a ```json fence."""
    match = _FENCE.match(text)
    return match.group(1) if match else text


def validate_reply(model: type[BaseModel], text: str) -> tuple[BaseModel | None, str | None]:
    """The parsed reply, or None and a short reason a model can act on."""
    if not text.strip():
        return None, "the reply was empty"
    try:
        return model.model_validate_json(strip_code_fence(text)), None
    except ValidationError as exc:
        return None, _short(str(exc))


def _short(reason: str) -> str:
    if len(reason) <= MAX_ERROR_CHARS:
        return reason
    return reason[:MAX_ERROR_CHARS] + " …[error truncated]"


def repair_messages(messages: tuple[Message, ...], reply: str, reason: str) -> tuple[Message, ...]:
    """The conversation so far, the bad reply, and what was wrong with it."""
    feedback = (
        "Your reply did not match the required JSON schema.\n"
        f"Problem: {reason}\n"
        "Reply again with only one JSON object that matches the schema exactly."
    )
    return (
        *messages,
        Message(role="assistant", content=reply),
        Message(role="user", content=feedback),
    )
