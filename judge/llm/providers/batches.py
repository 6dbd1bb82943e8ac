"""Provider batch APIs: the OpenAI Batch API and Anthropic Message Batches.

Each backend submits one chunk of requests, reports a batch's state, and yields its results as
(custom_id, completion or None, error). Batch ids are persisted by the caller before polling, so
a killed process resumes polling instead of submitting again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Protocol

from judge.llm.batching import PendingRequest
from judge.llm.providers.keys import resolve_api_key
from judge.llm.providers.scripted import ScriptedProvider
from judge.llm.settings import ProviderSettings
from judge.llm.types import Completion

OPENAI_TERMINAL = {"completed", "failed", "expired", "cancelled"}
ANTHROPIC_TERMINAL = {"ended"}


@dataclass(frozen=True)
class BatchState:
    status: str
    done: bool
    counts: dict


Result = tuple[str, Completion | None, str | None]


class BatchBackend(Protocol):
    max_requests: int
    max_bytes: int

    async def submit(self, requests: list[PendingRequest]) -> str: ...

    async def state(self, batch_id: str) -> BatchState: ...

    async def results(self, batch_id: str) -> list[Result]: ...

    async def aclose(self) -> None: ...


class OpenAIBatches:
    """Files + Batches endpoints; input and output are the OpenAI batch JSONL formats."""

    max_requests = 50_000
    max_bytes = 190 * 1024 * 1024  # the limit is 200 MB per input file

    def __init__(self, name: str, settings: ProviderSettings) -> None:
        import openai

        self._client = openai.AsyncOpenAI(
            api_key=resolve_api_key(name, settings, "OPENAI_API_KEY"),
            base_url=settings.base_url,
            timeout=settings.timeout_s,
        )

    @staticmethod
    def encode(requests: list[PendingRequest]) -> bytes:
        lines = (json.dumps(r.openai_line(), ensure_ascii=False) for r in requests)
        return ("\n".join(lines) + "\n").encode("utf-8")

    async def submit(self, requests: list[PendingRequest]) -> str:
        uploaded = await self._client.files.create(
            file=("requests.jsonl", self.encode(requests)), purpose="batch"
        )
        batch = await self._client.batches.create(
            input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h"
        )
        return batch.id

    async def state(self, batch_id: str) -> BatchState:
        batch = await self._client.batches.retrieve(batch_id)
        counts = batch.request_counts.model_dump() if batch.request_counts else {}
        return BatchState(batch.status, batch.status in OPENAI_TERMINAL, counts)

    async def _lines(self, file_id: str | None) -> list[dict]:
        if not file_id:
            return []
        content = await self._client.files.content(file_id)
        return [json.loads(line) for line in content.text.splitlines() if line.strip()]

    async def results(self, batch_id: str) -> list[Result]:
        from judge.llm.batch_files import _line_error
        from judge.llm.providers.openai_provider import completion_from_body

        batch = await self._client.batches.retrieve(batch_id)
        rows = await self._lines(batch.output_file_id) + await self._lines(batch.error_file_id)
        found: list[Result] = []
        for row in rows:
            error = _line_error(row)
            completion = None if error else completion_from_body(row["response"]["body"])
            found.append((row.get("custom_id", ""), completion, error))
        return found

    async def aclose(self) -> None:
        await self._client.close()


class AnthropicBatches:
    """Message Batches, translated from the same pending requests."""

    max_requests = 100_000
    max_bytes = 240 * 1024 * 1024  # the limit is 256 MB per batch

    def __init__(self, name: str, settings: ProviderSettings) -> None:
        import anthropic

        self._client = anthropic.AsyncAnthropic(
            api_key=resolve_api_key(name, settings, "ANTHROPIC_API_KEY"),
            base_url=settings.base_url,
            timeout=settings.timeout_s,
        )

    @staticmethod
    def encode(requests: list[PendingRequest]) -> bytes:
        return json.dumps([r.anthropic_request() for r in requests]).encode("utf-8")

    async def submit(self, requests: list[PendingRequest]) -> str:
        batch = await self._client.messages.batches.create(
            requests=[r.anthropic_request() for r in requests]
        )
        return batch.id

    async def state(self, batch_id: str) -> BatchState:
        batch = await self._client.messages.batches.retrieve(batch_id)
        counts = batch.request_counts.model_dump()
        return BatchState(
            batch.processing_status, batch.processing_status in ANTHROPIC_TERMINAL, counts
        )

    async def results(self, batch_id: str) -> list[Result]:
        from judge.llm.providers.anthropic_provider import completion_from_message

        found: list[Result] = []
        async for item in await self._client.messages.batches.results(batch_id):
            result = item.result
            if result.type == "succeeded":
                found.append(
                    (item.custom_id, completion_from_message(result.message.model_dump()), None)
                )
            else:
                reason = result.type if result.type != "errored" else f"errored: {result.error}"
                found.append((item.custom_id, None, reason))
        return found

    async def aclose(self) -> None:
        await self._client.close()


class ScriptedBatches:
    """The scripted provider's batch API (test double): a submitted batch is answered at once
    from the installed script, one `complete` call per request, and ends on the first poll.
    Its results are never a measurement."""

    max_requests = 50_000
    max_bytes = 190 * 1024 * 1024

    def __init__(self, name: str, settings: ProviderSettings) -> None:
        self.settings = settings
        self._batches: dict[str, list] = {}

    @staticmethod
    def encode(requests: list[PendingRequest]) -> bytes:
        return OpenAIBatches.encode(requests)

    async def submit(self, requests: list[PendingRequest]) -> str:
        results = []
        for pending in requests:
            provider = ScriptedProvider("scripted", pending.model, self.settings)
            try:
                completion = await provider.complete(
                    list(pending.request.messages),
                    pending.request.response_model,
                    pending.request.options,
                    tools=pending.request.tools,
                    response_order=pending.request.response_order,
                )
                results.append((pending.custom_id, completion, None))
            except Exception as exc:  # a scripted failure becomes a failed line, as in a batch
                results.append((pending.custom_id, None, str(exc)))
        batch_id = f"scripted-batch-{len(self._batches) + 1}"
        self._batches[batch_id] = results
        return batch_id

    async def state(self, batch_id: str) -> BatchState:
        results = self._batches.get(batch_id, [])
        failed = sum(1 for _, completion, _ in results if completion is None)
        counts = {"completed": len(results) - failed, "failed": failed, "total": len(results)}
        return BatchState("completed", True, counts)

    async def results(self, batch_id: str) -> list[Result]:
        return self._batches.get(batch_id, [])

    async def aclose(self) -> None:
        return None


BACKENDS = {
    "openai": OpenAIBatches,
    "local": OpenAIBatches,
    "anthropic": AnthropicBatches,
    "scripted": ScriptedBatches,
}


def chunks(requests: list[PendingRequest], backend: type) -> list[list[PendingRequest]]:
    """Split at the provider's request-count and size limits."""
    groups: list[list[PendingRequest]] = [[]]
    size = 0
    for request in requests:
        line = len(backend.encode([request]))
        if groups[-1] and (
            len(groups[-1]) >= backend.max_requests or size + line > backend.max_bytes
        ):
            groups.append([])
            size = 0
        groups[-1].append(request)
        size += line
    return [g for g in groups if g]
