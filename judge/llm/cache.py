"""Content-addressed reply cache in SQLite (WAL), safe for many coroutines and processes.

The key hashes everything that determines a reply, including the *sample index*: repeat runs
1..K of one request are distinct entries, each reproducible. Each entry is one row written in one
transaction, so a crash leaves either the whole row or nothing.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from pathlib import Path

from judge.llm.schema import json_schema
from judge.llm.types import Completion, LLMRequest, ToolCall

KEY_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS replies (
    key TEXT PRIMARY KEY,
    provider_model TEXT NOT NULL,
    text TEXT NOT NULL,
    input_tokens INTEGER NOT NULL,
    cached_input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    latency_s REAL NOT NULL,
    created_at REAL NOT NULL,
    logprobs TEXT,
    tool_calls TEXT
)
"""
# caches made before a column existed get it
_MIGRATIONS = {
    "logprobs": "ALTER TABLE replies ADD COLUMN logprobs TEXT",
    "tool_calls": "ALTER TABLE replies ADD COLUMN tool_calls TEXT",
}


def request_key(spec: str, request: LLMRequest) -> str:
    """Stable hash of provider:model, messages, schema, options and sample index."""
    payload = {
        "v": KEY_VERSION,
        "model": spec,
        "messages": [_message_key(m) for m in request.messages],
        "schema": (
            json_schema(request.response_model, request.response_order)
            if request.response_model
            else None
        ),
        "options": request.options.model_dump(),
        "sample": request.sample_index,
    }
    if request.tools:  # absent otherwise, so keys of requests without tools never change
        payload["tools"] = [[t.name, t.description, t.parameters] for t in request.tools]
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _message_key(message) -> list:
    """[role, content], plus the tool-call fields when a message has them (the transcript of
    an exploration so far is part of the key)."""
    key = [message.role, message.content]
    if message.tool_calls:
        key.append([[c.id, c.name, c.arguments] for c in message.tool_calls])
    if message.tool_call_id:
        key.append(message.tool_call_id)
    return key


class ReplyCache:
    """Synchronous SQLite calls from the event loop: each is a sub-millisecond local write,
    cheaper than a thread hop, and keeping one connection on one thread avoids locking."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(_SCHEMA)
        self._migrate()
        self.hits = 0
        self.misses = 0

    def _migrate(self) -> None:
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(replies)")}
        for column, statement in _MIGRATIONS.items():
            if column not in columns:
                self._db.execute(statement)

    def get(self, key: str) -> Completion | None:
        row = self._db.execute(
            "SELECT text, input_tokens, cached_input_tokens, output_tokens, latency_s, logprobs, "
            "tool_calls FROM replies WHERE key = ?",
            (key,),
        ).fetchone()
        if row is None:
            self.misses += 1
            return None
        self.hits += 1
        logprobs = tuple(tuple(item) for item in json.loads(row[5])) if row[5] else None
        calls = tuple(ToolCall(**c) for c in json.loads(row[6])) if row[6] else ()
        return Completion(*row[:5], logprobs=logprobs, tool_calls=calls)

    def put(self, key: str, spec: str, completion: Completion) -> None:
        """First writer wins: two identical in-flight requests store one row."""
        self._db.execute(
            "INSERT OR IGNORE INTO replies (key, provider_model, text, input_tokens, "
            "cached_input_tokens, output_tokens, latency_s, created_at, logprobs, tool_calls) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                key,
                spec,
                completion.text,
                completion.input_tokens,
                completion.cached_input_tokens,
                completion.output_tokens,
                completion.latency_s,
                time.time(),
                json.dumps(completion.logprobs) if completion.logprobs else None,
                json.dumps([c.model_dump() for c in completion.tool_calls])
                if completion.tool_calls
                else None,
            ),
        )

    def __len__(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM replies").fetchone()[0]

    def close(self) -> None:
        self._db.close()
