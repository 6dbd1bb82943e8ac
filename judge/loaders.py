"""Read tasks and candidates from JSONL, JSON, Parquet, a saved dataset or a Hugging Face id.

Every bad record becomes a `RecordError` naming its file and line (or row) and the reason; the
good records still load, so one broken line never stops a run.
"""

from __future__ import annotations

import gzip
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from judge.records import Candidate, Loaded, RecordError, candidate_from_row, task_from_row

Row = tuple[str, dict[str, Any] | RecordError]


def _plain(value: Any) -> Any:
    """numpy scalars and arrays (from Parquet or `datasets`) to plain JSON-able values."""
    return value.tolist() if hasattr(value, "tolist") else value


def _jsonl_rows(path: Path) -> Iterator[Row]:
    """Bytes that are not UTF-8 (patches in other encodings) become U+FFFD, not a crash."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            source = f"{path}:{number}"
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                yield source, RecordError(source, f"not valid JSON ({exc.msg})")
                continue
            yield source, row if isinstance(row, dict) else RecordError(source, "not an object")


def _table_rows(name: str, rows: Any) -> Iterator[Row]:
    for number, row in enumerate(rows, start=1):
        source = f"{name}[{number}]"
        if not isinstance(row, dict):
            yield source, RecordError(source, "not an object")
            continue
        yield source, {k: _plain(v) for k, v in row.items()}


def _json_rows(path: Path) -> Iterator[Row]:
    data = json.loads(path.read_text(encoding="utf-8"))
    yield from _table_rows(str(path), data if isinstance(data, list) else [data])


def _parquet_rows(path: Path) -> Iterator[Row]:
    import pandas as pd

    yield from _table_rows(str(path), pd.read_parquet(path).to_dict("records"))


def _dataset_rows(name: str, split: str) -> Iterator[Row]:
    """A folder saved with `save_to_disk`, or a hub id (needs the network, or the HF cache)."""
    import datasets

    path = Path(name)
    loaded = datasets.load_from_disk(str(path)) if path.is_dir() else datasets.load_dataset(name)
    if isinstance(loaded, datasets.DatasetDict):
        loaded = loaded[split]
    yield from _table_rows(f"{name}:{split}", loaded)


FILE_READERS = {
    ".jsonl": _jsonl_rows,
    ".jsonl.gz": _jsonl_rows,
    ".json": _json_rows,
    ".parquet": _parquet_rows,
}


def read_rows(location: str | Path, split: str = "test") -> Iterator[Row]:
    """Rows of a file (by its ending), a saved dataset folder, or a hub id (`owner/name`)."""
    path = Path(location)
    ending = ".jsonl.gz" if path.name.endswith(".jsonl.gz") else path.suffix
    if path.is_file() and ending in FILE_READERS:
        return FILE_READERS[ending](path)
    if path.is_dir() or (not path.exists() and str(location).count("/") == 1):
        return _dataset_rows(str(location), split)
    raise RecordError(str(location), "not a .jsonl, .jsonl.gz, .json or .parquet file")


def load_tasks(location: str | Path, split: str = "test") -> Loaded:
    loaded = Loaded()
    for source, row in read_rows(location, split):
        try:
            if isinstance(row, RecordError):
                raise row
            task, withheld = task_from_row(row, source)
            if task.task_id in loaded.tasks:
                raise RecordError(source, f"duplicate task id {task.task_id}")
        except RecordError as exc:
            loaded.errors.append(exc)
            continue
        loaded.tasks[task.task_id] = task
        loaded.withheld[task.task_id] = withheld
    return loaded


def iter_candidates(
    location: str | Path, defaults: dict[str, Any] | None = None
) -> Iterator[Candidate | RecordError]:
    """Candidates one at a time, in file order (a run of any size streams); a derived id that
    repeats gets `~2`, `~3`… in order of appearance, a repeated explicit id is an error.
    `defaults` fill labels a row lacks (e.g. the run name of a file whose rows do not name their
    system)."""
    seen: Counter[str] = Counter()
    for source, row in read_rows(location):
        try:
            if isinstance(row, RecordError):
                raise row
            candidate = candidate_from_row({**(defaults or {}), **row}, source)
            yield _unique(candidate, seen, explicit="candidate_id" in row, source=source)
        except RecordError as exc:
            yield exc


def load_candidates(location: str | Path, defaults: dict[str, Any] | None = None) -> Loaded:
    """Every candidate in memory (small inputs; `iter_candidates` streams)."""
    loaded = Loaded()
    for item in iter_candidates(location, defaults):
        if isinstance(item, RecordError):
            loaded.errors.append(item)
        else:
            loaded.candidates.append(item)
    return loaded


def _unique(candidate: Candidate, seen: Counter[str], explicit: bool, source: str) -> Candidate:
    seen[candidate.candidate_id] += 1
    count = seen[candidate.candidate_id]
    if count == 1:
        return candidate
    if explicit:
        raise RecordError(source, f"duplicate candidate id {candidate.candidate_id}")
    return candidate.model_copy(update={"candidate_id": f"{candidate.candidate_id}~{count}"})


def count_rows(location: str | Path) -> int:
    """How many rows a candidates source holds (for progress); lines of a plain JSONL file are
    counted without parsing them."""
    path = Path(location)
    if path.is_file() and path.suffix == ".jsonl":
        with path.open("rb") as handle:
            return sum(1 for line in handle if line.strip())
    return sum(1 for _ in read_rows(location))
