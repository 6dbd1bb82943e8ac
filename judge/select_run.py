"""The `select` job: picks from a run folder's judgements, optionally with pairwise tie-breaks,
written to a JSONL file (atomically: a crash leaves the old file or the new one)."""

from __future__ import annotations

import os
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from judge.config import AppSettings
from judge.jsonl import read_jsonl
from judge.judgement import Judgement
from judge.llm.client import LLMClient
from judge.pairwise import round_robin
from judge.records import Candidate, Task
from judge.rubric import Rubric
from judge.select import Pick, pick_all


@dataclass
class PairwiseInputs:
    """What a pairwise tie-break needs besides the judgements."""

    model: str
    tasks: dict[str, Task]
    candidates: dict[str, Candidate]
    rubrics: dict[str, Rubric]
    top_k: int = 3


@dataclass
class SelectSummary:
    picks: list[Pick] = field(default_factory=list)
    decided_by: Counter[str] = field(default_factory=Counter)
    cost_usd: float | None = 0.0


def only_candidates(judgements: list[Judgement], keep: set[str] | None) -> list[Judgement]:
    return judgements if keep is None else [j for j in judgements if j.candidate_id in keep]


async def _break_ties(
    picks: list[Pick], inputs: PairwiseInputs, settings: AppSettings, use_cache: bool
) -> float | None:
    async with LLMClient(settings.llm, use_cache=use_cache) as client:
        model = client.model(inputs.model)
        for index, current in enumerate(picks):
            if not current.tied_with:
                continue
            ids = [current.candidate_id, *current.tied_with][: inputs.top_k]
            leaders = [inputs.candidates[i] for i in ids if i in inputs.candidates]
            task, rubric = inputs.tasks.get(current.task_id), inputs.rubrics.get(current.task_id)
            if len(leaders) < 2 or task is None or rubric is None:
                continue
            winner, details = await round_robin(model, task, rubric, leaders, settings.judge)
            picks[index] = _apply(current, winner, details)
        return client.ledger.total().cost_usd


def _apply(current: Pick, winner: str | None, details: dict) -> Pick:
    if winner is None:
        return current.model_copy(update={"pairwise": {**details, "result": "tie"}})
    update: dict = {
        "pairwise": {**details, "result": winner},
        "decided_by": "pairwise",
        "margin": 0.0,
    }
    if winner != current.candidate_id:
        others = [c for c in [current.candidate_id, *current.tied_with] if c != winner]
        update |= {"candidate_id": winner, "runner_up": current.candidate_id, "tied_with": others}
    return current.model_copy(update=update)


def write_picks(path: Path, picks: list[Pick]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, suffix=".tmp") as handle:
        handle.writelines(p.model_dump_json() + "\n" for p in picks)
    os.replace(handle.name, path)


async def select(
    run_dir: Path,
    out: Path,
    settings: AppSettings,
    epsilon: float = 0.0,
    pairwise: PairwiseInputs | None = None,
    keep: set[str] | None = None,
    use_cache: bool = True,
) -> SelectSummary:
    """`keep` restricts the pool (validation leaves out gold patches and other conditions)."""
    judgements = only_candidates(read_jsonl(run_dir / "judgements.jsonl", Judgement), keep)
    picks = pick_all(judgements, epsilon)
    cost: float | None = 0.0
    if pairwise is not None:
        cost = await _break_ties(picks, pairwise, settings, use_cache)
    write_picks(out, picks)
    return SelectSummary(picks, Counter(p.decided_by for p in picks), cost)
