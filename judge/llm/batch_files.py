"""Offline batch files: write pending requests as OpenAI batch input JSONL, read an OpenAI batch
output file back into the reply cache.

This is how vLLM's `run_batch` (or any executor that speaks the OpenAI batch format) is used:
export, run the file elsewhere, import, re-run the stage, which then completes from the cache.
"""

from __future__ import annotations

import glob
import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from judge.llm.batching import BatchCollector, PendingRequest
from judge.llm.cache import ReplyCache
from judge.llm.client import LLMClient
from judge.llm.pricing import Ledger, PriceTable, cost_usd
from judge.llm.settings import LLMSettings
from judge.llm.types import Completion, Usage


def specs_path(requests: Path) -> Path:
    return requests.with_name(requests.name + ".specs.json")


MAX_FILE_REQUESTS = 50_000  # the OpenAI Batch API's limits per input file
MAX_FILE_BYTES = 190 * 1024 * 1024  # (200 MB), with room to spare


def part_path(path: Path, part: int) -> Path:
    """`requests.jsonl`, then `requests.part2.jsonl`, `requests.part3.jsonl`, …"""
    if part == 1:
        return path
    return path.with_name(f"{path.stem}.part{part}{path.suffix}")


def remove_parts(path: Path) -> None:
    """Delete the parts an earlier, larger export left at this path (and their sidecars), so
    what is on disk afterwards is exactly this export."""
    name = re.compile(rf"{re.escape(path.stem)}\.part\d+{re.escape(path.suffix)}")
    for part in path.parent.glob(f"{glob.escape(path.stem)}.part*"):
        if name.fullmatch(part.name):
            part.unlink()
            specs_path(part).unlink(missing_ok=True)


async def export_requests(
    stage: Callable[[LLMClient], Awaitable[object]], settings: LLMSettings, path: Path
) -> int:
    """Run a stage in defer mode and write what it asked for, in files the provider accepts
    (`part_path`: a new file every 50,000 requests or 190 MB); returns the number written.
    Each file has a sidecar `<file>.specs.json` with its requests' provider:model."""
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_parts(path)
    collector = StreamingCollector(path)
    try:
        async with LLMClient(settings, use_cache=True, defer=collector) as client:
            await stage(client)
    finally:
        collector.close()
    return collector.count


class StreamingCollector(BatchCollector):
    """Writes each new request's line the moment it is deferred, opening the next file at the
    provider's limits; keeps only ids and provider:model, so exporting a run of any size holds
    no request in memory."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path, self.part, self.count = path, 0, 0
        self.seen: set[str] = set()
        self.handle = None
        self.specs: dict[str, str] = {}
        self.size = 0
        self._open_next()

    def _open_next(self) -> None:
        self.close()
        self.part += 1
        self.handle = part_path(self.path, self.part).open("w", encoding="utf-8")
        self.specs, self.size = {}, 0

    def close(self) -> None:
        if self.handle is not None and not self.handle.closed:
            self.handle.close()
            sidecar = specs_path(part_path(self.path, self.part))
            sidecar.write_text(json.dumps(self.specs, indent=1), encoding="utf-8")

    def add(self, pending: PendingRequest) -> None:
        if pending.custom_id in self.seen:
            return
        line = json.dumps(pending.openai_line(), ensure_ascii=False) + "\n"
        full = len(self.specs) >= MAX_FILE_REQUESTS or self.size + len(line) > MAX_FILE_BYTES
        if full and self.specs:
            self._open_next()
        self.seen.add(pending.custom_id)
        self.specs[pending.custom_id] = pending.spec
        self.handle.write(line)
        self.size += len(line.encode("utf-8"))
        self.count += 1

    def __len__(self) -> int:
        return self.count


def read_specs(requests: Path) -> dict[str, str]:
    sidecar = specs_path(requests)
    return json.loads(sidecar.read_text(encoding="utf-8")) if sidecar.exists() else {}


def read_required_keys(path: Path) -> dict[str, tuple[str, ...] | None]:
    """custom_id → the keys its exported schema requires (None: no schema), read line by line:
    all a reply check needs, so a gigabyte of requests is never held in memory."""
    required = {}
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                row = json.loads(line)
                schema = _schema_of(row["body"])
                required[row["custom_id"]] = tuple(schema.get("required", [])) if schema else None
    return required


@dataclass
class ImportSummary:
    imported: int = 0
    failed: list[dict] = field(default_factory=list)
    invalid: list[dict] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"imported": self.imported, "failed": self.failed, "invalid": self.invalid}


def schema_problem(text: str, required: tuple[str, ...] | None) -> str | None:
    """Why a reply cannot satisfy the exported schema (not JSON, or a required key missing);
    None when it looks right or there is no schema to check against."""
    if required is None:
        return None
    try:
        reply = json.loads(text)
    except json.JSONDecodeError as exc:
        return f"not JSON: {exc.msg}"
    present = reply if isinstance(reply, dict) else {}
    missing = [k for k in required if k not in present]
    return f"missing {', '.join(missing)}" if missing else None


def _schema_of(body: dict | None) -> dict | None:
    response_format = (body or {}).get("response_format") or {}
    return (response_format.get("json_schema") or {}).get("schema")


class CacheImporter:
    """Writes batch replies into the cache and charges them at the batch price."""

    def __init__(self, cache: ReplyCache, prices: PriceTable, ledger: Ledger) -> None:
        self.cache, self.prices, self.ledger = cache, prices, ledger

    def store(self, custom_id: str, spec: str, completion: Completion) -> float | None:
        """Cache the reply; returns its cost at the batch price (None when unknown)."""
        self.cache.put(custom_id, spec, completion)
        cost = cost_usd(
            self.prices,
            spec,
            completion.input_tokens,
            completion.cached_input_tokens,
            completion.output_tokens,
            batch=True,
        )
        self.ledger.add_batch(
            custom_id,
            Usage(
                model=spec,
                input_tokens=completion.input_tokens,
                cached_input_tokens=completion.cached_input_tokens,
                output_tokens=completion.output_tokens,
                cost_usd=cost,
            ),
        )
        return cost


def _line_error(row: dict) -> str | None:
    if row.get("error"):
        error = row["error"]
        return error.get("message") or str(error) if isinstance(error, dict) else str(error)
    response = row.get("response") or {}
    if response.get("status_code") != 200:
        return f"HTTP {response.get('status_code')}: {json.dumps(response.get('body'))[:200]}"
    return None


def import_openai_output(
    path: Path,
    importer: CacheImporter,
    specs: dict[str, str] | None = None,
    required: dict[str, tuple[str, ...] | None] | None = None,
) -> ImportSummary:
    """Failed lines are reported and not cached (the stage retries them); replies that miss
    their schema are cached and reported (the stage's one repair request retries them). The
    file is read a line at a time (not by `splitlines`, which breaks inside JSON strings that
    hold U+2028)."""
    summary = ImportSummary()
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                _import_line(json.loads(line), number, importer, specs or {}, required, summary)
    return summary


def _import_line(
    row: dict,
    number: int,
    importer: CacheImporter,
    specs: dict[str, str],
    required: dict[str, tuple[str, ...] | None] | None,
    summary: ImportSummary,
) -> None:
    from judge.llm.providers.openai_provider import completion_from_body  # the SDK, when used

    custom_id = row.get("custom_id", f"line {number}")
    if (error := _line_error(row)) is not None:
        summary.failed.append({"custom_id": custom_id, "reason": error})
        return
    body = row["response"]["body"]
    completion = completion_from_body(body)
    spec = specs.get(custom_id) or f"batch:{body.get('model', '')}"
    importer.store(custom_id, spec, completion)
    summary.imported += 1
    if required is None or custom_id not in required:
        return
    if (problem := schema_problem(completion.text, required[custom_id])) is not None:
        summary.invalid.append({"custom_id": custom_id, "reason": problem})
