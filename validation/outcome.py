"""What a validation run leaves on disk, and what it says when it produced nothing: errors,
manifest and metrics written atomically, the one-paragraph reason, the skipped baseline."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from judge.config import AppSettings
from judge.llm.files import write_json_atomic
from judge.manifest import build_manifest
from judge.records import explain_failures
from judge.score_run import ERRORS, MANIFEST
from validation.report import write_reports

if TYPE_CHECKING:
    from validation.validate import Inputs, Stage, ValidateJob

RUBRICS = "rubrics.jsonl"
METRICS = "metrics.json"


def main_errors(stages: list[Stage], inputs: Inputs) -> int:
    """Failures that count for the exit code: inputs and the main stage (a skipped baseline
    is reported, not failed)."""
    main = stages[0]
    return len(inputs.errors) + len(main.rubrics.errors) + len(main.scoring.errors)


def nothing_judged(stage: Stage, inputs: Inputs, job: ValidateJob) -> str:
    """Why the main stage judged nothing: no rubric at all, or every judgement failed."""
    where = f"{job.out / ERRORS} (settings and counts: {job.out / MANIFEST})"
    if stage.rubrics.errors and not stage.rubrics.generated + stage.rubrics.skipped_existing:
        return explain_failures(
            f"validate produced no judgement because no task got a rubric from {stage.generator}",
            stage.rubrics.errors,
            len(inputs.tasks),
            where,
        )
    failures = stage.scoring.errors or inputs.errors
    if not failures:
        return f"validate found nothing to judge (no task has labelled candidates); see {where}."
    return explain_failures(
        f"validate produced no judgement with {stage.judge}",
        failures,
        len(inputs.candidates),
        where,
    )


def baseline_skipped(stages: list[Stage], inputs: Inputs) -> str | None:
    """The baseline needs reference patches; without them the report goes on without it."""
    if len(stages) < 2 or stages[1].judgements:
        return None
    errors = stages[1].rubrics.errors or stages[1].scoring.errors
    reason = errors[0].reason if errors else "no judgement"
    return (
        f"reference baseline skipped: none of {len(inputs.tasks)} tasks could be judged by it "
        f"(first reason: {reason})"
    )


def write_failure(job, settings, inputs: Inputs, errors, ledger) -> None:
    """Keep the evidence of a run that produced nothing: errors and manifest, no report."""
    job.out.mkdir(parents=True, exist_ok=True)
    write_errors(job.out, errors)
    counts = {"tasks": len(inputs.tasks), "candidates": len(inputs.candidates), "judged": 0}
    counts["errors"] = len(errors)
    write_json_atomic(
        job.out / MANIFEST, build_manifest("validate", settings, job_inputs(job), counts, ledger)
    )


def write_errors(out: Path, errors) -> None:
    with (out / ERRORS).open("w", encoding="utf-8") as handle:
        handle.writelines(e.model_dump_json() + "\n" for e in errors)


def job_inputs(job: ValidateJob) -> dict:
    return {k: str(v) if isinstance(v, Path) else v for k, v in job.__dict__.items()}


def write_outputs(job: ValidateJob, settings: AppSettings, metrics: dict, errors, ledger) -> None:
    job.out.mkdir(parents=True, exist_ok=True)
    write_json_atomic(job.out / METRICS, metrics)
    write_errors(job.out, errors)
    inputs = job_inputs(job) | {
        "data": metrics["data"]["tasks"],
        "candidates": metrics["data"]["candidates"],
        "rubrics": str(job.out / RUBRICS),
    }
    counts = {
        "tasks": metrics["data"]["n_tasks"],
        "candidates": metrics["data"]["n_candidates"],
        "errors": len(errors),
    }
    write_json_atomic(
        job.out / MANIFEST, build_manifest("validate", settings, inputs, counts, ledger)
    )
    write_reports(job.out, metrics)
