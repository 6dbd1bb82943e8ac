"""Judgements as one flat table: the input every check and plot is computed from."""

from __future__ import annotations

from collections.abc import Iterable

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
