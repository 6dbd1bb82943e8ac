"""LLM rubric generation: task (+ reference patch, + repository files) in, linted rubric out.

The generator sees the task description, hints, the reference patch when there is one, and
repository files; never tests, candidates or labels (`Task` cannot even hold them). A rubric
that fails lint is regenerated once with the findings in the prompt; a second failure is
reported for that task and the run goes on.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict

from judge.config import RubricSettings
from judge.fencing import fence, truncate
from judge.llm.client import ModelClient
from judge.llm.types import Message
from judge.prompts import load_prompt
from judge.records import Task
from judge.rubric import Category, Check, CheckKind, Criterion, Rubric
from rubric_gen.lint import lint_rubric
from rubric_gen.vocabulary import vocabulary

PROMPT_NAME = "rubric"


class CheckDraft(BaseModel):
    """A structural criterion's machine check, as the model writes it (fields it does not need
    are null)."""

    model_config = ConfigDict(extra="forbid")

    kind: CheckKind
    path: str | None
    symbol: str | None
    token: str | None


class CriterionDraft(BaseModel):
    """One criterion as the model writes it; ids are ours, weights are checked by lint."""

    model_config = ConfigDict(extra="forbid")

    question: str
    weight: int
    category: Category
    anchors: list[str]
    rationale: str
    check: CheckDraft | None


class RubricDraft(BaseModel):
    model_config = ConfigDict(extra="forbid")

    criteria: list[CriterionDraft]


@dataclass(frozen=True)
class NumberedDraft:
    id: str
    question: str
    weight: int
    category: str
    anchors: list[str] = field(default_factory=list)
    rationale: str = ""
    check: dict | None = None


class RubricFailure(Exception):
    """No acceptable rubric for a task; the message says why."""


def generator_messages(
    task: Task,
    settings: RubricSettings,
    repository_files: list[str] | None = None,
    lint_findings: list[str] | None = None,
) -> list[Message]:
    reference = None
    if task.reference_patch:
        shown, _ = truncate(task.reference_patch, settings.max_reference_tokens)
        reference = fence(shown, "reference_patch")
    return load_prompt(PROMPT_NAME).render(
        min_criteria=settings.min_criteria,
        max_criteria=settings.max_criteria,
        task_id=task.task_id,
        repo=task.repo,
        description=fence(task.description, "task_description"),
        hints=fence(task.hints, "hints") if task.hints else None,
        reference_patch=reference,
        repository_files=repository_files or [],
        lint_findings=lint_findings or [],
    )


def is_generator_prompt(messages) -> bool:
    """A rubric-generation request, an exploration's later turns included (the leak audit
    checks these for the merged fix)."""
    first_user = next((m for m in messages if m.role == "user"), None)
    return first_user is not None and first_user.content.rstrip().endswith("Write the rubric.")


def numbered(draft: RubricDraft) -> list[NumberedDraft]:
    return [
        NumberedDraft(id=f"c{i}", **criterion.model_dump())
        for i, criterion in enumerate(draft.criteria, start=1)
    ]


def freeze(task: Task, items: list[NumberedDraft], generator: str) -> Rubric:
    criteria = [
        Criterion(
            id=item.id,
            question=item.question,
            weight=item.weight,
            category=item.category,
            anchors=item.anchors,
            rationale=item.rationale,
            check=Check.model_validate(item.check) if item.check else None,
        )
        for item in items
    ]
    return Rubric(
        task_id=task.task_id,
        criteria=criteria,
        generator=generator,
        prompt_hash=load_prompt(PROMPT_NAME).hash,
    )


def task_vocabulary(task: Task):
    """The repository's own words: its name, and what the task text and hints say."""
    return vocabulary(task.repo, [task.description, task.hints])


async def generate_rubric(
    model: ModelClient,
    task: Task,
    settings: RubricSettings,
    repository_files: list[str] | None = None,
) -> Rubric:
    findings: list[str] = []
    for _attempt in range(2):
        messages = generator_messages(task, settings, repository_files, findings)
        result = await model.complete(messages, RubricDraft)
        if result.status != "ok":
            raise RubricFailure(f"{task.task_id}: unparsed generator reply: {result.reason}")
        items = numbered(result.parsed)
        findings = lint_rubric(items, settings, task_vocabulary(task))
        if not findings:
            return freeze(task, items, model.spec)
    raise RubricFailure(f"{task.task_id}: rubric failed lint twice: {'; '.join(findings)}")
