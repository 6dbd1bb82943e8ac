"""A real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions and Anthropic
messages wire protocols, so tests drive the official SDKs end to end with no network.

Scripted `Step`s are served first, in order (errors, delays, broken bodies); after them every
request is answered by `responder(request_body) -> reply text`. Every request is recorded, so
tests assert exact counts. Used by the integration tests and by `benchmarks/llm_overhead.py`.
"""

from __future__ import annotations

import json
import math
import re
import socket
import struct
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Responder = Callable[[dict[str, Any]], str]


@dataclass
class Step:
    """One scripted answer: an HTTP status, optional headers, a delay, or a raw body."""

    status: int = 200
    text: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    raw_body: bytes | None = None
    message: str = "scripted error"
    reset: bool = False
    """Drop the connection without an answer (a TCP reset)."""


@dataclass
class Recorded:
    path: str
    body: dict[str, Any]
    headers: dict[str, str]


def default_responder(body: dict[str, Any]) -> str:
    return json.dumps({"reply": "pong"})


class ProtocolServer:
    def __init__(self, responder: Responder = default_responder, latency_s: float = 0.0) -> None:
        self.responder = responder
        self.latency_s = latency_s
        self.cached_tokens = 0
        self.batches: Any = None  # a tests.batch_emulator.BatchEmulator, when attached
        self.fault_plan: Callable[[int, dict], Step | None] | None = None
        """Called with the request number and body; a Step it returns is served instead."""
        self.steps: deque[Step] = deque()
        self.requests: list[Recorded] = []
        self._lock = threading.Lock()
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def openai_base_url(self) -> str:
        return f"{self.url}/v1"

    def count(self, path_suffix: str = "") -> int:
        return sum(1 for r in self.requests if r.path.endswith(path_suffix))

    def script(self, *steps: Step) -> None:
        self.steps.extend(steps)

    def start(self) -> ProtocolServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> ProtocolServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def next_step(self, recorded: Recorded) -> Step:
        with self._lock:
            self.requests.append(recorded)
            if self.steps:
                return self.steps.popleft()
            number = len(self.requests)
        if self.fault_plan is not None and (fault := self.fault_plan(number, recorded.body)):
            return fault
        return Step(delay_s=self.latency_s)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024
    owner: ProtocolServer


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as real APIs do
    server: _Server

    def log_message(self, *args: object) -> None:
        return

    def _batch_route(self, method: str, raw: bytes) -> bool:
        """Batch endpoints go to the emulator, when the test attached one."""
        emulator = self.server.owner.batches
        if emulator is None or not emulator.handles(self.path):
            return False
        headers = {k.lower(): v for k, v in self.headers.items()}
        status, data, content_type = emulator.handle(method, self.path, headers, raw)
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        return True

    def do_GET(self) -> None:
        if not self._batch_route("GET", b""):
            self._send(404, b'{"error": {"message": "not found"}}', {})

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length", 0))
        raw = self.rfile.read(length)
        if self._batch_route("POST", raw):
            return
        body = json.loads(raw or b"{}")
        owner = self.server.owner
        headers = {k.lower(): v for k, v in self.headers.items()}
        step = owner.next_step(Recorded(self.path, body, headers))
        if step.delay_s:
            time.sleep(step.delay_s)
        anthropic = self.path.endswith("/messages")
        if step.reset:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            self.connection.close()
            return
        try:
            self._answer(step, body, owner, anthropic)
        except (BrokenPipeError, ConnectionResetError):
            return  # the client gave up (timeout test): nothing to answer

    def _answer(self, step: Step, body: dict, owner: ProtocolServer, anthropic: bool) -> None:
        if step.raw_body is not None:
            return self._send(step.status, step.raw_body, step.headers)
        if step.status != 200:
            payload = _error_body(step, anthropic)
        else:
            text = step.text if step.text is not None else owner.responder(body)
            build = _anthropic_reply if anthropic else _openai_reply
            payload = build(body, text, owner.cached_tokens)
        return self._send(step.status, json.dumps(payload).encode(), step.headers)

    def _send(self, status: int, data: bytes, headers: dict[str, str]) -> None:
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)


def _tokens(value: Any) -> int:
    return max(len(json.dumps(value)) // 4, 1)


ANSWER_PROBABILITY = 0.9  # what the loopback "model" puts on the answer it gives
_WIRE_TOKEN = re.compile(r"\w+|\W+")


def _logprobs(text: str, top: int) -> dict:
    """OpenAI's `choices[0].logprobs`: word/non-word tokens; a yes/no token carries the other
    answer as its alternative (P = 0.9 for the one given)."""
    content = []
    for token in _WIRE_TOKEN.findall(text):
        other = {"yes": "no", "no": "yes"}.get(token)
        chosen = math.log(ANSWER_PROBABILITY) if other else 0.0
        alternatives = [{"token": token, "logprob": chosen, "bytes": None}]
        if other:
            alternatives.append(
                {"token": other, "logprob": math.log(1 - ANSWER_PROBABILITY), "bytes": None}
            )
        content.append({"token": token, "logprob": chosen, "bytes": None,
                        "top_logprobs": alternatives[:top]})  # fmt: skip
    return {"content": content, "refusal": None}


def tool_calls_of(text: str) -> list[dict] | None:
    """A responder asks for tools by answering `{"tool_calls": [{"name", "arguments"}, …]}`."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return None
    return data["tool_calls"] if isinstance(data, dict) and set(data) == {"tool_calls"} else None


def _openai_tool_reply(body: dict, calls: list[dict], cached: int) -> dict:
    reply = _openai_body(body, "", _tokens(body.get("messages")), 10, cached)
    choice = reply["choices"][0]
    choice["finish_reason"] = "tool_calls"
    choice["message"] = {"role": "assistant", "content": None, "tool_calls": [
        {"id": f"call_{n}", "type": "function",
         "function": {"name": c["name"], "arguments": json.dumps(c.get("arguments", {}))}}
        for n, c in enumerate(calls)
    ]}  # fmt: skip
    return reply


def _openai_reply(body: dict, text: str, cached: int) -> dict:
    calls = tool_calls_of(text)
    if calls is not None:
        return _openai_tool_reply(body, calls, cached)
    prompt = _tokens(body.get("messages"))
    completion = _tokens(text)
    reply = _openai_body(body, text, prompt, completion, cached)
    if body.get("logprobs"):
        reply["choices"][0]["logprobs"] = _logprobs(text, body.get("top_logprobs") or 0)
    return reply


def _openai_body(body: dict, text: str, prompt: int, completion: int, cached: int) -> dict:
    return {
        "id": "chatcmpl-loopback",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", ""),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": cached},
        },
    }


def _anthropic_reply(body: dict, text: str, cached: int) -> dict:
    forced = body.get("tool_choice", {}).get("name")
    calls = tool_calls_of(text)
    if calls is not None:
        forced = "tool_use"  # the stop reason below
        content = [{"type": "tool_use", "id": f"toolu_{n}", "name": c["name"],
                    "input": c.get("arguments", {})} for n, c in enumerate(calls)]  # fmt: skip
    elif forced:
        content = [{"type": "tool_use", "id": "toolu_1", "name": forced, "input": json.loads(text)}]
    else:
        content = [{"type": "text", "text": text}]
    return {
        "id": "msg_loopback",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", ""),
        "content": content,
        "stop_reason": "tool_use" if forced else "end_turn",
        "stop_sequence": None,
        "usage": {
            "input_tokens": _tokens(body.get("messages")),
            "output_tokens": _tokens(text),
            "cache_read_input_tokens": cached,
            "cache_creation_input_tokens": 0,
        },
    }


def _error_body(step: Step, anthropic: bool) -> dict:
    kind = {401: "authentication_error", 429: "rate_limit_error"}.get(step.status, "api_error")
    if anthropic:
        return {"type": "error", "error": {"type": kind, "message": step.message}}
    return {"error": {"message": step.message, "type": kind, "code": None}}
