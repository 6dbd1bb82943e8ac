"""The `rubrics` job: one frozen rubric per task, appended to the rubrics file as it is made.

A task that already has a rubric is skipped unless `force`; a task whose rubric cannot be made
is reported with the reason and the run goes on.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from judge.config import AppSettings
from judge.jsonl import JsonlAppender
from judge.llm.batch_files import export_requests
from judge.llm.batch_runner import BatchOptions, run_batched
from judge.llm.client import LLMClient
from judge.llm.pricing import Ledger
from judge.llm.runner import Outcome
from judge.llm.types import ConfigError
from judge.loaders import load_tasks
from judge.records import ErrorRecord, Task
from judge.rubric import Rubric
from judge.rubric_store import load_rubrics
from rubric_gen.explore import explore_rubric
from rubric_gen.generator import generate_rubric
from rubric_gen.reference import GENERATOR as REFERENCE
from rubric_gen.reference import reference_rubric
from rubric_gen.repo_context import read_sources, repository_context
from rubric_gen.retrieval import retrieve

Progress = Callable[[int, int, Ledger], None]


@dataclass(frozen=True)
class RubricJob:
    tasks: str
    generator: str
    out: Path
    repos_dir: Path | None = None
    force: bool = False
    split: str = "test"
    source: str = "auto"
    """task | reference | auto (task for an LLM generator, reference for `reference`)."""
    context: str = "retrieve"
    """retrieve (ranked definitions, one call) | explore (the generator uses read-only tools)."""


@dataclass
class RubricSummary:
    generated: int = 0
    exported: int = 0
    skipped_existing: int = 0
    errors: list[ErrorRecord] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    ledger: Ledger = field(default_factory=Ledger)


def rubric_source(generator: str, source: str) -> str:
    """What a rubric may be built from. The reference generator is built from the merged fix,
    so it cannot write task-mode rubrics; an LLM generator defaults to the task alone."""
    if generator == REFERENCE:
        if source == "task":
            raise ConfigError(
                "--generator reference builds rubrics from the merged fix: it has no task mode "
                "(use an LLM generator with --rubric-source task)"
            )
        return "reference"
    return "task" if source == "auto" else source


async def _llm_rubric(
    model, task: Task, source: str, repos_dir, settings, summary, context: str = "retrieve"
) -> Rubric:
    """In task mode the generator sees the task, and code retrieved for it (or explored by it)
    at the base commit; nothing of the merged fix."""
    shown_task = task.model_copy(update={"reference_patch": None}) if source == "task" else task
    if context == "explore" and repos_dir is not None:
        rubric = await explore_rubric(model, shown_task, repos_dir, settings.rubrics)
        return rubric.model_copy(update={"source": source})
    files: list[str] = []
    context: list[dict] = []
    if repos_dir is not None and source == "task":
        found = retrieve(task, repos_dir, settings.rubrics.max_context_tokens)
        summary.notes += found.notes
        files, context = found.blocks(), [c.provenance() for c in found.shown]
    elif repos_dir is not None:
        repo = repository_context(task, repos_dir, settings.rubrics.max_context_tokens)
        summary.notes += repo.notes
        files = repo.files
    rubric = await generate_rubric(model, shown_task, settings.rubrics, files)
    return rubric.model_copy(update={"source": source, "context": context})


def _reference(
    task: Task, repos_dir: Path | None, settings: AppSettings, summary: RubricSummary
) -> Rubric:
    sources: dict[str, str] = {}
    if repos_dir is not None:
        sources, notes = read_sources(task, repos_dir)
        summary.notes += notes
    return reference_rubric(task, settings.reference, sources)


async def rubrics_for_tasks(
    client: LLMClient,
    generator: str,
    tasks: list[Task],
    out: Path,
    settings: AppSettings,
    summary: RubricSummary,
    repos_dir: Path | None = None,
    progress: Progress | None = None,
    force: bool = False,
    source: str = "auto",
    context: str = "retrieve",
) -> dict[str, Rubric]:
    """Freeze a rubric for each task that has none in `out` yet (every task with `force`: the
    newest rubric wins on reading); returns the rubric of every task that has one."""
    existing = {} if force else load_rubrics(out)
    todo = [t for t in tasks if t.task_id not in existing]
    summary.skipped_existing += len(tasks) - len(todo)
    model = None if generator == REFERENCE else client.model(generator)
    summary.ledger = client.ledger
    mode = rubric_source(generator, source)

    async def make(task: Task) -> Rubric:
        if model is None:
            rubric = _reference(task, repos_dir, settings, summary)
            return rubric.model_copy(update={"source": mode})
        return await _llm_rubric(model, task, mode, repos_dir, settings, summary, context)

    with JsonlAppender(out) as sink:

        def record(outcome: Outcome[Rubric]) -> None:
            if outcome.ok:
                sink.write(outcome.value)
                existing[outcome.value.task_id] = outcome.value
                summary.generated += 1
            else:
                summary.errors.append(
                    ErrorRecord(record=outcome.item.task_id, reason=str(outcome.error))
                )
            if progress is not None:
                progress(summary.generated, len(todo), client.ledger)

        await client.map(todo, make, on_result=record)
    return existing


def _deferred(job: RubricJob, tasks: list[Task], settings: AppSettings, scratch: Path):
    """The stage run in defer mode: every task without a frozen rubric, written to a scratch
    file (the real file gets only the final, live run's rubrics)."""
    frozen = {} if job.force else load_rubrics(job.out)
    missing = [t for t in tasks if t.task_id not in frozen]

    async def stage(client: LLMClient) -> None:
        await rubrics_for_tasks(
            client,
            job.generator,
            missing,
            scratch,
            settings,
            RubricSummary(),
            job.repos_dir,
            None,
            True,
            job.source,
            job.context,
        )

    return stage


async def generate_rubrics(
    job: RubricJob,
    settings: AppSettings,
    use_cache: bool = True,
    progress: Progress | None = None,
    batch: BatchOptions | None = None,
    export: Path | None = None,
) -> RubricSummary:
    """The file-to-file job behind `rubric-judge rubrics` (with `batch`: provider batches
    first, then a live run for the rest)."""
    summary = RubricSummary()
    loaded = load_tasks(job.tasks, job.split)
    summary.errors += [ErrorRecord.from_record_error(e) for e in loaded.errors]
    tasks = list(loaded.tasks.values())
    scratch = job.out.with_name(job.out.name + ".deferred-round")
    if export is not None:
        summary.exported = await export_requests(
            _deferred(job, tasks, settings, scratch), settings.llm, export
        )
        scratch.unlink(missing_ok=True)
        return summary
    ledger = Ledger()
    if batch is not None:
        if job.context == "explore":  # one batch round per exploration turn
            rounds = settings.rubrics.explore_max_steps + 3
            batch = dataclasses.replace(batch, max_rounds=max(batch.max_rounds, rounds))
        await run_batched(_deferred(job, tasks, settings, scratch), settings.llm, batch, ledger)
        scratch.unlink(missing_ok=True)
    async with LLMClient(settings.llm, use_cache=use_cache, ledger=ledger) as client:
        await rubrics_for_tasks(
            client,
            job.generator,
            tasks,
            job.out,
            settings,
            summary,
            job.repos_dir,
            progress,
            job.force,
            job.source,
            job.context,
        )
    return summary
