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
from judge.select import Pick, pick_all
from judge.tiebreak import TieBreakInputs, compare, leader_pairs, round_robin_winner


@dataclass
class SelectSummary:
    picks: list[Pick] = field(default_factory=list)
    decided_by: Counter[str] = field(default_factory=Counter)
    cost_usd: float | None = 0.0


def only_candidates(judgements: list[Judgement], keep: set[str] | None) -> list[Judgement]:
    return judgements if keep is None else [j for j in judgements if j.candidate_id in keep]


async def _break_ties(
    picks: list[Pick], inputs: TieBreakInputs, settings: AppSettings, use_cache: bool
) -> float | None:
    """Every task's tied leaders compared at once (both orders, bounded concurrency)."""
    plan = {
        index: [pick.candidate_id, *pick.tied_with][: inputs.top_k]
        for index, pick in enumerate(picks)
        if pick.tied_with
    }
    pairs = [
        p for i, ids in plan.items() for p in leader_pairs(picks[i].task_id, ids, inputs.top_k)
    ]
    async with LLMClient(settings.llm, use_cache=use_cache) as client:
        verdicts = await compare(client, inputs, pairs, settings.judge)
        for index, leaders in plan.items():
            mine = {p: v for p, v in verdicts.items() if p.task_id == picks[index].task_id}
            if mine:
                winner, details = round_robin_winner(leaders, mine)
                picks[index] = _apply(picks[index], winner, details)
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
    pairwise: TieBreakInputs | None = None,
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
