"""Judgements as one flat table: the input every check and plot is computed from."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from judge.judgement import Judgement

COLUMNS = [
    "task_id",
    "repo",
    "candidate_id",
    "run_index",
    "system",
    "condition",
    "resolved",
    "empty",
    "gold",
    "score",
    "graded",
    "coverage",
    "status",
    "unparsed",
    "truncated",
    "yes_answers",
    "unverified_yes",
    "calls",
    "cache_hits",
    "input_tokens",
    "output_tokens",
    "cost_usd",
]


def repo_of(task_id: str) -> str:
    """SWE-bench ids read `owner__name-123`; other ids have no repository part."""
    owner, sep, rest = task_id.partition("__")
    return f"{owner}/{rest.rsplit('-', 1)[0]}" if sep else "(none)"


def _row(judgement: Judgement, repos: dict[str, str]) -> dict:
    labels = judgement.labels
    yes = [c for c in judgement.criteria if c.answer == "yes"]
    return {
        "task_id": judgement.task_id,
        "repo": repos.get(judgement.task_id) or repo_of(judgement.task_id),
        "candidate_id": judgement.candidate_id,
        "run_index": judgement.run_index,
        "system": labels.get("system", ""),
        "condition": labels.get("condition", "standard"),
        "resolved": bool(labels.get("resolved", False)),
        "empty": bool(labels.get("empty", judgement.status == "empty")),
        "gold": bool(labels.get("gold", False)),
        "score": judgement.score,
        "graded": judgement.rank_score,
        "coverage": judgement.coverage,
        "status": judgement.status,
        "unparsed": judgement.status == "unparsed",
        "truncated": "truncated" in judgement.flags,
        "yes_answers": len(yes),
        "unverified_yes": sum(1 for c in yes if c.verified is False),
        "calls": judgement.usage.calls,
        "cache_hits": judgement.usage.cache_hits,
        "input_tokens": judgement.usage.input_tokens,
        "output_tokens": judgement.usage.output_tokens,
        "cost_usd": judgement.usage.cost_usd,
    }


def judgements_frame(
    judgements: Iterable[Judgement], repos: dict[str, str] | None = None
) -> pd.DataFrame:
    rows = [_row(j, repos or {}) for j in judgements]
    frame = pd.DataFrame(rows, columns=COLUMNS)
    frame["score"] = frame["score"].astype(float)
    frame["graded"] = frame["graded"].astype(float)
    return frame


def candidate_scores(frame: pd.DataFrame, column: str = "score") -> pd.DataFrame:
    """One row per candidate: its mean score over repeat runs (unscored runs left out)."""
    keys = ["task_id", "repo", "candidate_id", "system", "condition", "resolved", "empty", "gold"]
    return frame.groupby(keys, as_index=False, dropna=False)[column].mean()


def _row_of_dict(row: dict, repos: dict[str, str]) -> tuple:
    """The table row of one judgement line, read as a plain dict (no model objects)."""
    labels, usage = row.get("labels") or {}, row.get("usage") or {}
    yes = [c for c in row.get("criteria") or [] if c.get("answer") == "yes"]
    status, task = row["status"], row["task_id"]
    graded = row.get("graded_score")
    return (
        task, repos.get(task) or repo_of(task), row["candidate_id"], row.get("run_index", 0),
        labels.get("system", ""), labels.get("condition", "standard"),
        bool(labels.get("resolved", False)), bool(labels.get("empty", status == "empty")),
        bool(labels.get("gold", False)), row.get("score"),
        row.get("score") if graded is None else graded, row.get("coverage", 0.0), status,
        status == "unparsed", "truncated" in (row.get("flags") or []), len(yes),
        sum(1 for c in yes if c.get("verified") is False), usage.get("calls", 1),
        usage.get("cache_hits", 0), usage.get("input_tokens", 0), usage.get("output_tokens", 0),
        usage.get("cost_usd", 0.0),
    )  # fmt: skip


def frame_from_file(path, repos: dict[str, str] | None = None) -> pd.DataFrame:
    """The judgement table read straight from a judgements file, line by line into columns:
    a run of any size costs its table, never its judgement objects."""
    from judge.jsonl import iter_json_rows

    columns: list[list] = [[] for _ in COLUMNS]
    for row in iter_json_rows(Path(path)):
        for column, value in zip(columns, _row_of_dict(row, repos or {}), strict=True):
            column.append(value)
    frame = pd.DataFrame(dict(zip(COLUMNS, columns, strict=True)), columns=COLUMNS)
    frame["score"] = frame["score"].astype(float)
    frame["graded"] = frame["graded"].astype(float)
    return frame
