"""The `score` job: every candidate, every run, into judgements.jsonl; resumable, loss-free.

Each judgement is appended the moment it exists; a re-run reads what is done and judges only
the rest, so an interrupted run loses at most the calls in flight. Bad records are reported in
`errors.jsonl` (naming each record) and never stop the others.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sized
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path

from judge.config import AppSettings
from judge.diff import changed_line_count
from judge.jsonl import JsonlAppender, iter_json_rows
from judge.judgement import Judgement
from judge.judges import CandidateJudge, LLMJudge, make_judge
from judge.llm.batch_files import export_requests
from judge.llm.batch_runner import BatchOptions, run_batched
from judge.llm.batching import DeferredRequest
from judge.llm.client import LLMClient
from judge.llm.files import write_json_atomic
from judge.llm.pricing import Ledger
from judge.llm.runner import Outcome
from judge.loaders import count_rows, iter_candidates, load_tasks
from judge.manifest import build_manifest
from judge.prompt_pool import PromptPool, auto_workers
from judge.records import Candidate, ErrorRecord, RecordError, Task
from judge.rubric import Rubric
from judge.rubric_store import load_rubrics

JUDGEMENTS = "judgements.jsonl"
ERRORS = "errors.jsonl"
MANIFEST = "manifest.json"

Progress = Callable[[int, int, Ledger], None]


@dataclass(frozen=True)
class ScoreJob:
    tasks: str
    candidates: str
    rubrics: Path
    judge: str
    out_dir: Path
    runs: int = 1
    split: str = "test"
    hybrid: bool = False
    repos_dir: Path | None = None
    """Clones of the task repositories: the judge then sees the code around each change."""


@dataclass
class ScoreSummary:
    judged: int = 0
    exported: int = 0
    skipped_done: int = 0
    pending: int = 0
    errors: list[ErrorRecord] = field(default_factory=list)
    ledger: Ledger = field(default_factory=Ledger)
    faults: dict = field(default_factory=dict)

    @property
    def counts(self) -> dict[str, int]:
        return {
            "judged_now": self.judged,
            "already_done": self.skipped_done,
            "pending": self.pending,
            "errors": len(self.errors),
        }


def _candidate_error(candidate: Candidate, tasks, rubrics, rubrics_source) -> str | None:
    if candidate.task_id not in tasks:
        return f"candidate {candidate.candidate_id}: unknown task id {candidate.task_id}"
    if candidate.task_id not in rubrics:
        return (
            f"candidate {candidate.candidate_id}: no rubric for task {candidate.task_id} in "
            f"{rubrics_source} (it has rubrics for {len(rubrics)} other tasks)"
        )
    return None


def done_keys(path: Path) -> set[tuple[str, int]]:
    """(candidate id, run) of every judgement on disk, read once: only the two fields are
    kept, so resuming a large run costs a set of keys, not the judgements."""
    keys = set()
    for row in iter_json_rows(path):
        keys.add((row["candidate_id"], row.get("run_index", 0)))
    return keys


def iter_work(
    candidates: Iterable[Candidate | RecordError],
    tasks: dict[str, Task],
    rubrics: dict[str, Rubric],
    rubrics_source: object,
    done: set[tuple[str, int]],
    runs: int,
    summary: ScoreSummary,
) -> Iterator[tuple[Candidate, int]]:
    """(candidate, run) pairs still to judge, lazily; unusable candidates become named
    errors and done pairs are counted as they stream past."""
    for candidate in candidates:
        if isinstance(candidate, RecordError):
            summary.errors.append(ErrorRecord.from_record_error(candidate))
            continue
        reason = _candidate_error(candidate, tasks, rubrics, rubrics_source)
        if reason:
            summary.errors.append(ErrorRecord(record=candidate.candidate_id, reason=reason))
            continue
        for run in range(runs):
            if (candidate.candidate_id, run) in done:
                summary.skipped_done += 1
            else:
                yield candidate, run


def pending_work(
    candidates: list[Candidate],
    tasks: dict[str, Task],
    rubrics: dict[str, Rubric],
    rubrics_source: object,
    judgements_path: Path,
    runs: int,
    summary: ScoreSummary,
) -> list[tuple[Candidate, int]]:
    """(candidate, run) pairs still to judge, as a list (validation's in-memory inputs)."""
    done = done_keys(judgements_path)
    return list(iter_work(candidates, tasks, rubrics, rubrics_source, done, runs, summary))


async def judge_all(
    client: LLMClient,
    judge: CandidateJudge,
    tasks: dict[str, Task],
    rubrics: dict[str, Rubric],
    work: Iterable[tuple[Candidate, int]],
    judgements_path: Path,
    summary: ScoreSummary,
    progress: Progress | None = None,
    planned: int | None = None,
) -> None:
    """Judge every pending pair, appending each judgement the moment it exists; nothing else
    is kept, so a stream of any length runs in bounded memory."""
    summary.ledger = client.ledger
    summary.faults = client.faults

    async def judge_one(item: tuple) -> Judgement:
        candidate, run = item[0], item[1]
        task, rubric = tasks[candidate.task_id], rubrics[candidate.task_id]
        if len(item) == 3:  # (candidate, run, the prompt a worker built)
            judgement = await judge.judge_built(candidate, rubric, run, item[2])
        else:
            judgement = await judge.judge(task, candidate, rubric, run)
        return judgement.model_copy(update={"patch_size": changed_line_count(candidate.patch)})

    total = planned if planned is not None else len(work) if isinstance(work, Sized) else 0
    workers = prompt_workers(judge, total)
    pool = PromptPool(judge.prompt_job(tasks, rubrics), workers) if workers else nullcontext()
    with JsonlAppender(judgements_path) as sink, pool:

        def record(outcome: Outcome[Judgement]) -> None:
            if outcome.ok:
                sink.write(outcome.value)
                summary.judged += 1
            elif isinstance(outcome.error, DeferredRequest):
                summary.pending += 1  # waiting for a batch: counted, not an error to list
            else:
                candidate, run = outcome.item[0], outcome.item[1]
                summary.pending += 1
                summary.errors.append(
                    ErrorRecord(
                        record=candidate.candidate_id, run_index=run, reason=str(outcome.error)
                    )
                )
            if progress is not None:
                progress(summary.judged, total, client.ledger)

        items = pool.build(work) if workers else work
        await client.map(items, judge_one, on_result=record, keep=False)


def prompt_workers(judge: CandidateJudge, planned: int) -> int:
    """Prompt workers for this judge and run size: only the LLM judge builds prompts, and one
    that reads repositories builds them beside its git reads, in the main process."""
    if not isinstance(judge, LLMJudge) or judge.viewer is not None:
        return 0
    return auto_workers(judge.settings.prompt_workers, planned)


async def score(
    job: ScoreJob,
    settings: AppSettings,
    use_cache: bool = True,
    progress: Progress | None = None,
    batch: BatchOptions | None = None,
    export: Path | None = None,
) -> ScoreSummary:
    """The file-to-file job behind `rubric-judge score`; with `batch`, the provider batch APIs
    answer first and the live run only completes what they could not; with `export`, the
    requests the cache cannot answer are written as an OpenAI batch input file instead."""
    summary = ScoreSummary()
    tasks = load_tasks(job.tasks, job.split)
    rubrics = load_rubrics(job.rubrics)
    summary.errors += [ErrorRecord.from_record_error(e) for e in tasks.errors]
    path = job.out_dir / JUDGEMENTS
    planned = count_rows(job.candidates) * job.runs

    async def stage(client: LLMClient, into: ScoreSummary, report: Progress | None = None) -> None:
        done = done_keys(path)
        candidates = iter_candidates(job.candidates)
        work = iter_work(candidates, tasks.tasks, rubrics, job.rubrics, done, job.runs, into)
        judge = make_judge(job.judge, client, settings.judge, job.hybrid, job.repos_dir)
        await judge_all(
            client, judge, tasks.tasks, rubrics, work, path, into, report, planned - len(done)
        )

    if export is not None:
        summary.exported = await export_requests(lambda c: stage(c, summary), settings.llm, export)
        return summary
    ledger = Ledger()
    if batch is not None:
        await run_batched(lambda client: stage(client, ScoreSummary()), settings.llm, batch, ledger)
    async with LLMClient(settings.llm, use_cache=use_cache, ledger=ledger) as client:
        await stage(client, summary, progress)
    _write_outputs(job, settings, summary)
    return summary


def _write_outputs(job: ScoreJob, settings: AppSettings, summary: ScoreSummary) -> None:
    with (job.out_dir / ERRORS).open("w", encoding="utf-8") as handle:
        handle.writelines(e.model_dump_json() + "\n" for e in summary.errors)
    inputs = {
        "tasks": job.tasks,
        "candidates": job.candidates,
        "rubrics": str(job.rubrics),
        "judge": job.judge,
        "runs": job.runs,
        "hybrid": job.hybrid,
        "repos_dir": str(job.repos_dir) if job.repos_dir else None,
    }
    total = sum(1 for _ in iter_json_rows(job.out_dir / JUDGEMENTS))
    faults = {k: dict(v) for k, v in summary.faults.items()}
    counts = {**summary.counts, "judgements_on_disk": total, "faults": faults}
    manifest = build_manifest("score", settings, inputs, counts, summary.ledger)
    write_json_atomic(job.out_dir / MANIFEST, manifest)
