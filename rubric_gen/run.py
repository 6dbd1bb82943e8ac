"""The `rubrics` job: one frozen rubric per task, appended to the rubrics file as it is made.

A task that already has a rubric is skipped unless `force`; a task whose rubric cannot be made
is reported with the reason and the run goes on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from judge.config import AppSettings
from judge.jsonl import JsonlAppender
from judge.llm import LLMClient
from judge.loaders import load_tasks
from judge.pricing import Ledger
from judge.records import ErrorRecord, Task
from judge.rubric import Rubric
from judge.rubric_store import load_rubrics
from judge.runner import Outcome
from rubric_gen.generator import generate_rubric
from rubric_gen.repo_context import repository_context

Progress = Callable[[int, int, Ledger], None]


@dataclass(frozen=True)
class RubricJob:
    tasks: str
    generator: str
    out: Path
    repos_dir: Path | None = None
    force: bool = False
    split: str = "test"


@dataclass
class RubricSummary:
    generated: int = 0
    skipped_existing: int = 0
    errors: list[ErrorRecord] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    ledger: Ledger = field(default_factory=Ledger)


def _todo(job: RubricJob, summary: RubricSummary) -> list[Task]:
    loaded = load_tasks(job.tasks, job.split)
    summary.errors += [ErrorRecord.from_record_error(e) for e in loaded.errors]
    existing = {} if job.force else load_rubrics(job.out)
    summary.skipped_existing = sum(1 for t in loaded.tasks if t in existing)
    return [t for t in loaded.tasks.values() if t.task_id not in existing]


async def generate_rubrics(
    job: RubricJob, settings: AppSettings, use_cache: bool = True, progress: Progress | None = None
) -> RubricSummary:
    summary = RubricSummary()
    todo = _todo(job, summary)
    async with LLMClient(settings.llm, use_cache=use_cache) as client:
        model = client.model(job.generator)
        summary.ledger = client.ledger

        async def make(task: Task) -> Rubric:
            files: list[str] = []
            if job.repos_dir is not None:
                context = repository_context(
                    task, job.repos_dir, settings.rubrics.max_context_tokens
                )
                summary.notes += context.notes
                files = context.files
            return await generate_rubric(model, task, settings.rubrics, files)

        with JsonlAppender(job.out) as sink:

            def record(outcome: Outcome[Rubric]) -> None:
                if outcome.ok:
                    sink.write(outcome.value)
                    summary.generated += 1
                else:
                    summary.errors.append(
                        ErrorRecord(record=outcome.item.task_id, reason=str(outcome.error))
                    )
                if progress is not None:
                    progress(summary.generated, len(todo), client.ledger)

            await client.map(todo, make, on_result=record)
    return summary
