"""The `score` job: every candidate, every run, into judgements.jsonl; resumable, loss-free.

Each judgement is appended the moment it exists; a re-run reads what is done and judges only
the rest, so an interrupted run loses at most the calls in flight. Bad records are reported in
`errors.jsonl` (naming each record) and never stop the others.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from judge.blind_judge import judge_candidate
from judge.config import AppSettings
from judge.jsonl import JsonlAppender, read_jsonl
from judge.judgement import Judgement
from judge.llm import LLMClient
from judge.loaders import load_candidates, load_tasks
from judge.manifest import build_manifest, write_json_atomic
from judge.pricing import Ledger
from judge.records import Candidate, ErrorRecord, Task
from judge.rubric import Rubric
from judge.rubric_store import load_rubrics
from judge.runner import Outcome

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


@dataclass
class ScoreSummary:
    judged: int = 0
    skipped_done: int = 0
    pending: int = 0
    errors: list[ErrorRecord] = field(default_factory=list)
    ledger: Ledger = field(default_factory=Ledger)

    @property
    def counts(self) -> dict[str, int]:
        return {
            "judged_now": self.judged,
            "already_done": self.skipped_done,
            "pending": self.pending,
            "errors": len(self.errors),
        }


@dataclass
class _Plan:
    tasks: dict[str, Task]
    rubrics: dict[str, Rubric]
    work: list[tuple[Candidate, int]]
    summary: ScoreSummary


def _candidate_error(candidate: Candidate, plan_tasks, rubrics, rubrics_path) -> str | None:
    if candidate.task_id not in plan_tasks:
        return f"candidate {candidate.candidate_id}: unknown task id {candidate.task_id}"
    if candidate.task_id not in rubrics:
        return (
            f"candidate {candidate.candidate_id}: no rubric for task {candidate.task_id} in "
            f"{rubrics_path} (it has rubrics for {len(rubrics)} other tasks)"
        )
    return None


def plan(job: ScoreJob) -> _Plan:
    tasks = load_tasks(job.tasks, job.split)
    candidates = load_candidates(job.candidates)
    rubrics = load_rubrics(job.rubrics)
    summary = ScoreSummary()
    summary.errors += [ErrorRecord.from_record_error(e) for e in tasks.errors + candidates.errors]
    done = {j.key for j in read_jsonl(job.out_dir / JUDGEMENTS, Judgement)}
    work = []
    for candidate in candidates.candidates:
        reason = _candidate_error(candidate, tasks.tasks, rubrics, job.rubrics)
        if reason:
            summary.errors.append(ErrorRecord(record=candidate.candidate_id, reason=reason))
            continue
        for run in range(job.runs):
            if (candidate.candidate_id, run) in done:
                summary.skipped_done += 1
            else:
                work.append((candidate, run))
    return _Plan(tasks.tasks, rubrics, work, summary)


async def score(
    job: ScoreJob, settings: AppSettings, use_cache: bool = True, progress: Progress | None = None
) -> ScoreSummary:
    planned = plan(job)
    summary = planned.summary
    async with LLMClient(settings.llm, use_cache=use_cache) as client:
        model = client.model(job.judge)
        summary.ledger = client.ledger

        async def judge_one(item: tuple[Candidate, int]) -> Judgement:
            candidate, run = item
            task = planned.tasks[candidate.task_id]
            rubric = planned.rubrics[candidate.task_id]
            return await judge_candidate(model, task, candidate, rubric, settings.judge, run)

        with JsonlAppender(job.out_dir / JUDGEMENTS) as sink:

            def record(outcome: Outcome[Judgement]) -> None:
                if outcome.ok:
                    sink.write(outcome.value)
                    summary.judged += 1
                else:
                    candidate, run = outcome.item
                    summary.errors.append(
                        ErrorRecord(
                            record=candidate.candidate_id, run_index=run, reason=str(outcome.error)
                        )
                    )
                if progress is not None:
                    progress(summary.judged, len(planned.work), client.ledger)

            await client.map(planned.work, judge_one, on_result=record)
    summary.pending = len(planned.work) - summary.judged
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
    }
    total = len(read_jsonl(job.out_dir / JUDGEMENTS, Judgement))
    counts = {**summary.counts, "judgements_on_disk": total}
    manifest = build_manifest("score", settings, inputs, counts, summary.ledger)
    write_json_atomic(job.out_dir / MANIFEST, manifest)
