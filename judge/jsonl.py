"""Append-only JSONL: every record on disk the moment it exists, and a crash costs one line.

A record counts once its newline is written. On reading, a torn last line (a crash mid-write)
is cut off the file, so the next append starts on a clean line; a damaged line elsewhere is
skipped with a warning rather than stopping a resume.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

log = logging.getLogger(__name__)
TAIL_BLOCK = 65_536
M = TypeVar("M", bound=BaseModel)


def _last_newline(handle, size: int) -> int:
    """Offset just after the file's last newline, reading backwards in blocks."""
    position = size
    while position > 0:
        start = max(position - TAIL_BLOCK, 0)
        handle.seek(start)
        found = handle.read(position - start).rfind(b"\n")
        if found >= 0:
            return start + found + 1
        position = start
    return 0


def _drop_torn_tail(path: Path) -> None:
    """Cut a torn last line off the file; reads only its tail, whatever the file's size."""
    size = path.stat().st_size
    if not size:
        return
    with path.open("r+b") as handle:
        handle.seek(size - 1)
        if handle.read(1) == b"\n":
            return
        keep = _last_newline(handle, size)
        log.warning("%s: dropping a torn last line (%d bytes)", path, size - keep)
        handle.truncate(keep)


def iter_lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) of every non-blank line, streamed."""
    if not path.exists():
        return
    _drop_torn_tail(path)
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            line = raw.decode("utf-8", errors="replace")
            if line.strip():
                yield number, line


def iter_json_rows(path: Path) -> Iterator[dict]:
    """Each line as a plain dict (no model validation: for scans that need a few fields)."""
    for number, line in iter_lines(path):
        try:
            yield json.loads(line)
        except json.JSONDecodeError:
            log.warning("%s:%d: skipped, not JSON", path, number)


def iter_jsonl(path: Path, model: type[M]) -> Iterator[M]:
    for number, line in iter_lines(path):
        try:
            yield model.model_validate_json(line)
        except ValidationError as exc:
            log.warning("%s:%d: skipped, not a %s (%s)", path, number, model.__name__, exc)


def read_jsonl(path: Path, model: type[M]) -> list[M]:
    return list(iter_jsonl(path, model))


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
