"""Blind pairwise comparison: two diffs against the rubric, one request (see `judge.tiebreak`
for the stage that asks both orders of many pairs at once).

Position bias is controlled by asking A-vs-B and B-vs-A; only a consistent answer counts, and a
disagreement between the two orders is a tie (left to the ordinary tie rules).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from judge.blinding import blind_patch, label_strings, redact
from judge.config import JudgeSettings
from judge.diff_budget import budget_diff
from judge.fencing import fence, truncate
from judge.llm.client import ModelClient
from judge.llm.types import Message
from judge.prompts import load_prompt
from judge.records import Candidate, Task
from judge.repo.view import JudgeView
from judge.rubric import Rubric

PROMPT_NAME = "pairwise"


class PairwiseReply(BaseModel):
    model_config = ConfigDict(extra="forbid")

    reason: str
    better: Literal["A", "B"]


def _facts(view: JudgeView | None, secrets: list[str]) -> str | None:
    if view is None or not view.available:
        return None
    return fence(redact(view.facts_text(), secrets), "static_facts")


def pairwise_messages(
    task: Task,
    rubric: Rubric,
    first: Candidate,
    second: Candidate,
    settings: JudgeSettings,
    views: tuple[JudgeView | None, JudgeView | None] = (None, None),
) -> list[Message]:
    """Both diffs as the judge would see them; with views, the code around both changes (the
    first's context, the base code being shared) and each patch's static facts."""
    secrets = label_strings(first.labels) + label_strings(second.labels)
    context = views[0].context_text if views[0] is not None and views[0].available else ""

    def shown(candidate: Candidate) -> str:
        text, _ = budget_diff(
            blind_patch(candidate.patch, candidate.labels), settings.max_diff_tokens
        )
        return fence(redact(text, secrets), "candidate_diff")

    description, _ = truncate(task.description, settings.max_description_tokens)
    return load_prompt(PROMPT_NAME).render(
        task_description=fence(redact(description, secrets), "task_description"),
        criteria=[c.question for c in rubric.criteria],
        patch_a=shown(first),
        patch_b=shown(second),
        code_context=fence(redact(context, secrets), "repository_context") if context else None,
        facts_a=_facts(views[0], secrets),
        facts_b=_facts(views[1], secrets),
    )


async def ask(
    model: ModelClient,
    task: Task,
    rubric: Rubric,
    first: Candidate,
    second: Candidate,
    settings: JudgeSettings,
    views: tuple[JudgeView | None, JudgeView | None] = (None, None),
) -> str | None:
    """The id of the candidate the model prefers, or None for an unparsed reply."""
    messages = pairwise_messages(task, rubric, first, second, settings, views)
    result = await model.complete(messages, PairwiseReply)
    if result.status != "ok":
        return None
    return first.candidate_id if result.parsed.better == "A" else second.candidate_id
