"""Batch mode for a whole stage: defer, submit, poll, import, repeat, then finish live.

Round after round the stage runs in defer mode; whatever it could not answer from the cache is
submitted to the providers' batch APIs (split at their limits), and the batch ids are saved in
the run folder *before* polling, so a killed process resumes polling instead of resubmitting.
Results are imported into the cache at the batch price as each batch ends. Rounds repeat while
new requests appear (a rubric stage unlocks a judging stage; an invalid reply asks for a
repair). The caller then runs the stage once more, live: anything a batch failed or let expire
is retried interactively.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from judge.llm.batch_files import CacheImporter
from judge.llm.batching import BatchCollector, PendingRequest
from judge.llm.cache import ReplyCache
from judge.llm.client import LLMClient
from judge.llm.files import write_json_atomic
from judge.llm.pricing import Ledger, add_costs, load_prices
from judge.llm.providers.batches import BACKENDS, BatchBackend, chunks
from judge.llm.settings import LLMSettings
from judge.llm.types import ConfigError

STATE_FILE = "batches.json"


class BatchRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    provider: str
    specs: dict[str, str]
    """custom_id → provider:model of each request in the batch."""
    status: str = "submitted"
    counts: dict = Field(default_factory=dict)
    imported: bool = False
    imported_ok: int = 0
    cost_usd: float | None = 0.0
    """What the imported replies cost at the batch price (None when a price is unknown)."""
    failed: list[dict] = Field(default_factory=list)
    submitted_at: str = Field(default_factory=lambda: datetime.now(UTC).isoformat())
    finished_at: str | None = None


class BatchStateFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    batches: list[BatchRecord] = Field(default_factory=list)


def load_state(path: Path) -> BatchStateFile:
    if not path.exists():
        return BatchStateFile()
    return BatchStateFile.model_validate_json(path.read_text(encoding="utf-8"))


def save_state(path: Path, state: BatchStateFile) -> None:
    write_json_atomic(path, state.model_dump(mode="json"))


@dataclass(frozen=True)
class BatchOptions:
    state_path: Path
    poll_interval_s: float = 30.0
    max_rounds: int = 4
    progress: Callable[[BatchStateFile], None] | None = None
    """Told the state after every poll (the CLI prints a status line)."""


@dataclass
class BatchSession:
    """Backends by provider, created on first use and closed at the end."""

    settings: LLMSettings
    backends: dict[str, BatchBackend] = field(default_factory=dict)

    def backend(self, provider: str) -> BatchBackend:
        if provider not in BACKENDS:
            raise ConfigError(f"provider {provider!r} has no batch API; run without --batch")
        if provider not in self.backends:
            self.backends[provider] = BACKENDS[provider](provider, self.settings.provider(provider))
        return self.backends[provider]

    async def aclose(self) -> None:
        for backend in self.backends.values():
            await backend.aclose()


def _not_yet_submitted(
    pending: list[PendingRequest], state: BatchStateFile
) -> list[PendingRequest]:
    """Leave out what an unfinished batch holds, and what a batch already failed (the live run
    retries those)."""
    waiting = {cid for b in state.batches if not b.imported for cid in b.specs}
    failed = {f["custom_id"] for b in state.batches for f in b.failed}
    return [p for p in pending if p.custom_id not in waiting | failed]


async def submit(
    pending: list[PendingRequest], state: BatchStateFile, path: Path, session: BatchSession
) -> int:
    """Submit what no unfinished batch already holds; save each batch id at once."""
    fresh = _not_yet_submitted(pending, state)
    submitted = 0
    for provider in sorted({p.provider for p in fresh}):
        backend = session.backend(provider)
        for chunk in chunks([p for p in fresh if p.provider == provider], type(backend)):
            batch_id = await backend.submit(chunk)
            state.batches.append(
                BatchRecord(
                    id=batch_id, provider=provider, specs={p.custom_id: p.spec for p in chunk}
                )
            )
            save_state(path, state)
            submitted += 1
    return submitted


async def _collect(record: BatchRecord, backend: BatchBackend, importer: CacheImporter) -> None:
    for custom_id, completion, error in await backend.results(record.id):
        if completion is None:
            record.failed.append({"custom_id": custom_id, "reason": error or "no result"})
        else:
            spec = record.specs.get(custom_id, record.provider)
            cost = importer.store(custom_id, spec, completion)
            record.cost_usd = add_costs(record.cost_usd, cost)
            record.imported_ok += 1
    record.imported = True
    record.finished_at = datetime.now(UTC).isoformat()


async def poll(
    state: BatchStateFile,
    path: Path,
    session: BatchSession,
    importer: CacheImporter,
    interval: float,
    progress: Callable[[BatchStateFile], None] | None = None,
) -> None:
    """Until every batch has ended and been imported."""
    while waiting := [b for b in state.batches if not b.imported]:
        for record in waiting:
            backend = session.backend(record.provider)
            current = await backend.state(record.id)
            record.status, record.counts = current.status, current.counts
            if current.done:
                await _collect(record, backend, importer)
            save_state(path, state)
        if progress is not None:
            progress(state)
        if any(not b.imported for b in state.batches):
            await asyncio.sleep(interval)


async def run_batched(
    stage: Callable[[LLMClient], Awaitable[object]],
    settings: LLMSettings,
    options: BatchOptions,
    ledger: Ledger,
    on_request: Callable | None = None,
) -> BatchStateFile:
    """Defer-submit-poll-import rounds until the stage asks for nothing new."""
    progress = options.progress
    state = load_state(options.state_path)
    session = BatchSession(settings)
    cache = ReplyCache(settings.cache_path)
    prices = load_prices(Path(settings.prices_path) if settings.prices_path else None)
    importer = CacheImporter(cache, prices, ledger)
    try:
        await poll(state, options.state_path, session, importer, options.poll_interval_s, progress)
        for _ in range(options.max_rounds):
            collector = BatchCollector()
            async with LLMClient(
                settings, use_cache=True, on_request=on_request, defer=collector, ledger=Ledger()
            ) as client:
                await stage(client)
            if not collector:
                break
            if not await submit(
                list(collector.pending.values()), state, options.state_path, session
            ):
                break  # only requests that already failed in a batch: the live run retries them
            await poll(
                state, options.state_path, session, importer, options.poll_interval_s, progress
            )
    finally:
        cache.close()
        await session.aclose()
    return state
