"""The scripted test double, selectable like any provider as `scripted:NAME`.

It answers from a queue of replies or from a callable, records every request it was sent, and
raises a clear error when its script runs out. Tests install a script under a name with
`install_script`; a JSONL script file can also be named in the config (`providers.scripted.script`).
Its replies are whatever the script says: they are never a measurement of any model.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

from judge.llm.settings import ProviderSettings
from judge.llm.types import (
    Completion,
    ConfigError,
    GenerationOptions,
    Message,
    PermanentError,
    ToolCall,
    ToolSpec,
)


@dataclass(frozen=True)
class ScriptedCall:
    """One request as the scripted provider saw it."""

    model: str
    messages: list[Message]
    response_model: type[BaseModel] | None
    options: GenerationOptions
    tools: tuple[ToolSpec, ...] = ()
    response_order: tuple[str, ...] = ()

    @property
    def prompt(self) -> str:
        return "\n".join(m.content for m in self.messages)


Reply = str | dict | list | BaseModel | Exception
Responder = Callable[[ScriptedCall], Reply]


class ScriptExhaustedError(PermanentError):
    """The script has no reply left; a test asked for more calls than it planned."""


class Script:
    """Replies in order, or computed by a callable, plus the record of every call."""

    def __init__(self, replies: Iterable[Reply] | Responder) -> None:
        self._responder = replies if callable(replies) else None
        self._queue: deque[Reply] = deque() if callable(replies) else deque(replies)
        self.delay_s = 0.0
        self.in_flight = 0
        self.most_in_flight = 0
        self.calls: list[ScriptedCall] = []

    def next_reply(self, call: ScriptedCall) -> Reply:
        self.calls.append(call)
        if self._responder is not None:
            return self._responder(call)
        if not self._queue:
            raise ScriptExhaustedError(
                f"scripted:{call.model}: script ran out after {len(self.calls) - 1} replies"
            )
        return self._queue.popleft()


_scripts: dict[str, Script] = {}


def install_script(name: str, replies: Iterable[Reply] | Responder, delay_s: float = 0.0) -> Script:
    """Make `scripted:NAME` answer with this script; returns it so a test can read `.calls`
    (and `.most_in_flight`, the most calls it was answering at once, with a `delay_s`)."""
    script = Script(replies)
    script.delay_s = delay_s
    _scripts[name] = script
    return script


def load_script_file(path: Path) -> Script:
    """One reply per line: a JSON string is sent as raw text, anything else as its JSON."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
        replies = [json.loads(line) for line in lines if line.strip()]
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError(f"cannot read scripted replies from {path}: {exc}") from exc
    return Script(replies)


def _tool_calls(reply: Reply, turn: int) -> tuple[ToolCall, ...]:
    """A reply `{"tool_calls": [{"name": …, "arguments": {…}}, …]}` asks to run tools; ids are
    made from the turn so a transcript replays to the same cache keys."""
    if not (isinstance(reply, dict) and set(reply) == {"tool_calls"}):
        return ()
    return tuple(
        ToolCall(id=f"call_{turn}_{n}", name=c["name"], arguments=c.get("arguments") or {})
        for n, c in enumerate(reply["tool_calls"])
    )


def _render(reply: Reply) -> str:
    if isinstance(reply, Exception):
        raise reply
    if isinstance(reply, BaseModel):
        return reply.model_dump_json()
    return reply if isinstance(reply, str) else json.dumps(reply)


def _estimate_tokens(text: str) -> int:
    """About four characters a token; enough for cost arithmetic in tests."""
    return (len(text) + 3) // 4


class ScriptedProvider:
    confidence = "none"  # replies are whatever the script says; set judge.confidence to test

    def __init__(self, name: str, model: str, settings: ProviderSettings) -> None:
        self.name = name
        self.model = model
        self.script = self._find_script(model, settings)

    @staticmethod
    def _find_script(model: str, settings: ProviderSettings) -> Script:
        if model in _scripts:
            return _scripts[model]
        if settings.script:
            return load_script_file(Path(settings.script))
        raise ConfigError(
            f"no script installed for scripted:{model}; the scripted provider is a test double "
            "(install one with judge.llm.providers.scripted.install_script, or set "
            "providers.scripted.script)"
        )

    async def complete(
        self,
        messages: list[Message],
        response_model: type[BaseModel] | None,
        options: GenerationOptions,
        tools: tuple[ToolSpec, ...] = (),
        response_order: tuple[str, ...] = (),
    ) -> Completion:
        call = ScriptedCall(
            self.model, list(messages), response_model, options, tools, response_order
        )
        script = self.script
        script.in_flight += 1
        script.most_in_flight = max(script.most_in_flight, script.in_flight)
        try:
            if script.delay_s:
                await asyncio.sleep(script.delay_s)
            reply = script.next_reply(call)
            calls = _tool_calls(reply, len(messages))
            text = "" if calls else _render(reply)
        finally:
            script.in_flight -= 1
        return Completion(
            text=text,
            input_tokens=_estimate_tokens(call.prompt),
            output_tokens=_estimate_tokens(text),
            tool_calls=calls,
        )
