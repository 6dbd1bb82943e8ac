"""Append-only JSONL: every record on disk the moment it exists, and a crash costs one line.

A record counts once its newline is written. On reading, a torn last line (a crash mid-write)
is cut off the file, so the next append starts on a clean line; a damaged line elsewhere is
skipped with a warning rather than stopping a resume.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

log = logging.getLogger(__name__)
M = TypeVar("M", bound=BaseModel)


def _drop_torn_tail(path: Path) -> bytes:
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        keep = data.rfind(b"\n") + 1
        log.warning("%s: dropping a torn last line (%d bytes)", path, len(data) - keep)
        with path.open("r+b") as handle:
            handle.truncate(keep)
        data = data[:keep]
    return data


def read_jsonl(path: Path, model: type[M]) -> list[M]:
    if not path.exists():
        return []
    records: list[M] = []
    lines = _drop_torn_tail(path).decode("utf-8", errors="replace").splitlines()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            records.append(model.model_validate_json(line))
        except ValidationError as exc:
            log.warning("%s:%d: skipped, not a %s (%s)", path, number, model.__name__, exc)
    return records


class JsonlAppender:
    """One line per record, flushed at once; fsync on close."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            _drop_torn_tail(path)
        self.path = path
        self._handle = path.open("a", encoding="utf-8")

    def write(self, record: BaseModel) -> None:
        self._handle.write(record.model_dump_json() + "\n")
        self._handle.flush()

    def close(self) -> None:
        self._handle.flush()
        os.fsync(self._handle.fileno())
        self._handle.close()

    def __enter__(self) -> JsonlAppender:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
