"""Emulates the OpenAI Files + Batches endpoints and Anthropic Message Batches on the loopback
protocol server, so the real SDKs submit, poll, download and import against it.

A batch stays in progress for `polls_until_done` status checks, then ends; each request is
answered by the server's responder, except custom ids listed in `fail_ids`. Submissions are
counted, so tests can prove a resumed run did not submit twice.
"""

from __future__ import annotations

import email.parser
import email.policy
import itertools
import json
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from tests.protocol_server import ProtocolServer, _anthropic_reply, _openai_reply

_PATHS = re.compile(r"^/v1/(files|batches|messages/batches)(/|$|\?)")
_STAMP = "2026-11-29T00:00:00Z"


@dataclass
class _Batch:
    id: str
    kind: str  # "openai" or "anthropic"
    requests: list[dict]
    polls: int = 0
    output_file_id: str | None = None


@dataclass
class BatchEmulator:
    server: ProtocolServer
    polls_until_done: int = 2
    fail_ids: set[str] = field(default_factory=set)
    fail_positions: set[int] = field(default_factory=set)
    """Requests at these positions of each submitted batch fail (their ids are hashes)."""
    files: dict[str, bytes] = field(default_factory=dict)
    batches: dict[str, _Batch] = field(default_factory=dict)
    submissions: int = 0
    status_checks: int = 0
    _ids: itertools.count = field(default_factory=itertools.count)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def handles(self, path: str) -> bool:
        return _PATHS.match(path) is not None

    def handle(self, method: str, path: str, headers: dict, raw: bytes) -> tuple[int, bytes, str]:
        with self._lock:
            route = path.split("?")[0].rstrip("/").split("/")[2:]
            return self._dispatch(method, route, headers, raw)

    def _dispatch(self, method: str, route: list[str], headers: dict, raw: bytes):
        if route == ["files"] and method == "POST":
            return self._json(self._upload(headers, raw))
        if len(route) == 3 and route[0] == "files" and route[2] == "content":
            return 200, self.files[route[1]], "application/jsonl"
        if route == ["batches"] and method == "POST":
            return self._json(self._openai_create(json.loads(raw)))
        if len(route) == 2 and route[0] == "batches":
            return self._json(self._openai_state(self.batches[route[1]]))
        if route == ["messages", "batches"] and method == "POST":
            return self._json(self._anthropic_create(json.loads(raw)))
        if len(route) == 3 and route[:2] == ["messages", "batches"]:
            return self._json(self._anthropic_state(self.batches[route[2]]))
        if len(route) == 4 and route[3] == "results":
            return 200, self._anthropic_results(self.batches[route[2]]), "application/x-jsonl"
        return 404, b'{"error": {"message": "no such route"}}', "application/json"

    @staticmethod
    def _json(payload: dict) -> tuple[int, bytes, str]:
        return 200, json.dumps(payload).encode(), "application/json"

    def _next(self, prefix: str) -> str:
        return f"{prefix}_{next(self._ids)}"

    def _upload(self, headers: dict, raw: bytes) -> dict:
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            f"content-type: {headers['content-type']}\r\n\r\n".encode() + raw
        )
        content = next(
            p.get_payload(decode=True)
            for p in message.iter_parts()
            if p.get_param("name", header="content-disposition") == "file"
        )
        file_id = self._next("file")
        self.files[file_id] = content
        return {
            "id": file_id,
            "object": "file",
            "bytes": len(content),
            "created_at": int(time.time()),
            "filename": "requests.jsonl",
            "purpose": "batch",
            "status": "processed",
        }

    def _mark_failures(self, requests: list[dict]) -> None:
        self.fail_ids |= {
            r["custom_id"] for i, r in enumerate(requests) if i in self.fail_positions
        }

    def _openai_create(self, body: dict) -> dict:
        self.submissions += 1
        lines = [
            json.loads(x) for x in self.files[body["input_file_id"]].decode().splitlines() if x
        ]
        self._mark_failures(lines)
        batch = _Batch(self._next("batch"), "openai", lines)
        self.batches[batch.id] = batch
        return self._openai_state(batch, count=False)

    def _tick(self, batch: _Batch, count: bool) -> bool:
        if count:
            batch.polls += 1
            self.status_checks += 1
        return batch.polls >= self.polls_until_done

    def _openai_state(self, batch: _Batch, count: bool = True) -> dict:
        done = self._tick(batch, count)
        if done and batch.output_file_id is None:
            batch.output_file_id = self._next("file")
            self.files[batch.output_file_id] = self._openai_output(batch)
        failed = sum(1 for r in batch.requests if r["custom_id"] in self.fail_ids)
        return {
            "id": batch.id,
            "object": "batch",
            "endpoint": "/v1/chat/completions",
            "input_file_id": "file",
            "completion_window": "24h",
            "created_at": int(time.time()),
            "status": "completed" if done else "in_progress",
            "output_file_id": batch.output_file_id if done else None,
            "error_file_id": None,
            "request_counts": {
                "total": len(batch.requests),
                "completed": len(batch.requests) - failed,
                "failed": failed,
            },
        }

    def _openai_output(self, batch: _Batch) -> bytes:
        rows = []
        for request in batch.requests:
            cid = request["custom_id"]
            if cid in self.fail_ids:
                rows.append(
                    {
                        "id": "r",
                        "custom_id": cid,
                        "response": None,
                        "error": {"code": "server_error", "message": "emulated failure"},
                    }
                )
                continue
            body = _openai_reply(request["body"], self.server.responder(request["body"]), 0)
            rows.append(
                {
                    "id": "r",
                    "custom_id": cid,
                    "error": None,
                    "response": {"status_code": 200, "request_id": "q", "body": body},
                }
            )
        return "".join(json.dumps(r) + "\n" for r in rows).encode()

    def _anthropic_create(self, body: dict) -> dict:
        self.submissions += 1
        self._mark_failures(body["requests"])
        batch = _Batch(self._next("msgbatch"), "anthropic", body["requests"])
        self.batches[batch.id] = batch
        return self._anthropic_state(batch, count=False)

    def _anthropic_state(self, batch: _Batch, count: bool = True) -> dict:
        done = self._tick(batch, count)
        failed = sum(1 for r in batch.requests if r["custom_id"] in self.fail_ids)
        pending = 0 if done else len(batch.requests)
        return {
            "id": batch.id,
            "type": "message_batch",
            "created_at": _STAMP,
            "expires_at": _STAMP,
            "processing_status": "ended" if done else "in_progress",
            "ended_at": _STAMP if done else None,
            "archived_at": None,
            "cancel_initiated_at": None,
            "results_url": f"{self.server.url}/v1/messages/batches/{batch.id}/results"
            if done
            else None,
            "request_counts": {
                "processing": pending,
                "succeeded": 0 if pending else len(batch.requests) - failed,
                "errored": 0 if pending else failed,
                "canceled": 0,
                "expired": 0,
            },
        }

    def _anthropic_results(self, batch: _Batch) -> bytes:
        rows = []
        for request in batch.requests:
            cid, params = request["custom_id"], request["params"]
            if cid in self.fail_ids:
                result: dict[str, Any] = {"type": "expired"}
            else:
                reply = _anthropic_reply(params, self.server.responder(params), 0)
                result = {"type": "succeeded", "message": reply}
            rows.append({"custom_id": cid, "result": result})
        return "".join(json.dumps(r) + "\n" for r in rows).encode()
