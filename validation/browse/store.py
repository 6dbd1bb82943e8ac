"""Candidates of a run, looked up by id from a temporary SQLite file: a `score` run of any size
is streamed into it once, so writing its pages never holds every patch in memory."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from judge.loaders import iter_candidates
from judge.records import Candidate, RecordError


class CandidateStore:
    def __init__(self, folder: Path) -> None:
        self._db = sqlite3.connect(folder / "candidates.sqlite")
        self._db.execute("CREATE TABLE candidates (id TEXT PRIMARY KEY, row TEXT NOT NULL)")

    @classmethod
    def from_file(cls, location: str, folder: Path) -> CandidateStore:
        store = cls(folder)
        rows = (
            (c.candidate_id, c.model_dump_json())
            for c in iter_candidates(location)
            if not isinstance(c, RecordError)
        )
        with store._db:
            store._db.executemany("INSERT OR IGNORE INTO candidates VALUES (?, ?)", rows)
        return store

    def get(self, candidate_id: str) -> Candidate | None:
        row = self._db.execute(
            "SELECT row FROM candidates WHERE id = ?", (candidate_id,)
        ).fetchone()
        return Candidate.model_validate(json.loads(row[0])) if row else None

    def close(self) -> None:
        self._db.close()
