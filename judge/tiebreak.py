"""The tie-break stage shared by `select` and `validate`: blind comparisons of tied candidates,
two at a time, in both orders, all running concurrently within the client's bounds.

Which pairs to compare is the caller's choice: the leaders within ε of a task's top score
(best-of-N), or tied resolved/unresolved pairs up to a budget (validation). Each comparison is
two requests (A-vs-B and B-vs-A, so position bias cancels); only a consistent answer counts,
and a disagreement between the orders stays a tie. Every request goes through the same client:
cache, retries, ledger and batch deferral.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from judge.config import JudgeSettings
from judge.llm.client import LLMClient
from judge.llm.runner import Outcome
from judge.pairwise import ask
from judge.records import Candidate, Task
from judge.repo.view import CodeViewer, JudgeView
from judge.rubric import Rubric


@dataclass(frozen=True)
class Pair:
    task_id: str
    a: str
    b: str


@dataclass
class TieBreakInputs:
    """What a comparison needs besides the judgements."""

    model: str
    tasks: dict[str, Task]
    candidates: dict[str, Candidate]
    rubrics: dict[str, Rubric]
    top_k: int = 3
    viewer: CodeViewer | None = None
    """With clones: each comparison also shows the code around the changes and the facts,
    the same view the judge gets."""

    views: dict[str, JudgeView] = field(default_factory=dict, repr=False)

    def view(self, candidate_id: str) -> JudgeView | None:
        """Each candidate's view once, however many comparisons and orders it appears in."""
        if self.viewer is None:
            return None
        if candidate_id not in self.views:
            candidate = self.candidates[candidate_id]
            self.views[candidate_id] = self.viewer.view(
                self.tasks[candidate.task_id], candidate.patch
            )
        return self.views[candidate_id]


def leader_pairs(task_id: str, leaders: list[str], top_k: int) -> list[Pair]:
    """Every pair among a task's first `top_k` tied leaders."""
    return [Pair(task_id, a, b) for a, b in itertools.combinations(leaders[:top_k], 2)]


async def compare(
    client: LLMClient, inputs: TieBreakInputs, pairs: Iterable[Pair], settings: JudgeSettings
) -> dict[Pair, str | None]:
    """The preferred candidate id of each pair (None: a tie or an order disagreement). Pairs
    whose task, rubric or candidates are missing are left out."""
    usable = [p for p in pairs if _usable(p, inputs)]
    model = client.model(inputs.model)
    asks = [(pair, order) for pair in usable for order in ("forward", "backward")]

    async def one(item: tuple[Pair, str]) -> str | None:
        pair, order = item
        first, second = (pair.a, pair.b) if order == "forward" else (pair.b, pair.a)
        views = await asyncio.to_thread(lambda: (inputs.view(first), inputs.view(second)))
        return await ask(
            model,
            inputs.tasks[pair.task_id],
            inputs.rubrics[pair.task_id],
            inputs.candidates[first],
            inputs.candidates[second],
            settings,
            views,
        )

    outcomes = await client.map(asks, one)
    return _verdicts(usable, outcomes)


def _usable(pair: Pair, inputs: TieBreakInputs) -> bool:
    return (
        pair.task_id in inputs.tasks
        and pair.task_id in inputs.rubrics
        and pair.a in inputs.candidates
        and pair.b in inputs.candidates
    )


def _verdicts(pairs: list[Pair], outcomes: list[Outcome]) -> dict[Pair, str | None]:
    """Outcomes come in input order: forward then backward for each pair."""
    verdicts = {}
    for index, pair in enumerate(pairs):
        forward, backward = outcomes[2 * index], outcomes[2 * index + 1]
        both = forward.ok and backward.ok and forward.value is not None
        verdicts[pair] = forward.value if both and forward.value == backward.value else None
    return verdicts


def round_robin_winner(
    leaders: list[str], verdicts: dict[Pair, str | None]
) -> tuple[str | None, dict]:
    """The unique leader with most consistent wins (None when the top is shared)."""
    wins: Counter[str] = Counter(dict.fromkeys(leaders, 0))
    ties = 0
    for winner in verdicts.values():
        if winner is None:
            ties += 1
        else:
            wins[winner] += 1
    ranked = wins.most_common()
    unique = len(ranked) == 1 or ranked[0][1] > ranked[1][1]
    details = {
        "wins": dict(wins),
        "order_disagreements_or_ties": ties,
        "comparisons": 2 * len(verdicts),
    }
    return (ranked[0][0] if unique else None), details
