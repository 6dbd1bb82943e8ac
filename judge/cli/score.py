"""`rubrics`, `score` and `show`: building rubrics and judging candidates."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from judge.cli.common import (
    _batch_options,
    _fail,
    _print_errors,
    _settings,
    app,
    console,
    exit_for,
    run_job,
)
from judge.cli.options import (
    BatchOption,
    BrowseOption,
    CandidatesArg,
    ConcurrencyOption,
    ConfigOption,
    ContextOption,
    NoCacheOption,
    ReposDirOption,
    RubricsOption,
    RubricSourceOption,
    RunOutOption,
    RunsOption,
    SetOption,
    SplitOption,
    TasksArg,
)
from judge.cli.progress import ledger_line


@app.command("rubrics", rich_help_panel="Score patches")
def rubrics_command(
    tasks: TasksArg,
    generator: Annotated[
        str,
        typer.Option(
            "--generator", help="provider:model that writes the rubrics.", rich_help_panel="Model"
        ),
    ],
    out: Annotated[
        Path, typer.Option("--out", help="Rubrics JSONL (appended to).", rich_help_panel="Output")
    ],
    repos_dir: ReposDirOption = None,
    rubric_source: RubricSourceOption = "auto",
    context: ContextOption = "retrieve",
    force: Annotated[
        bool,
        typer.Option(
            "--force", help="Regenerate tasks that already have a rubric.", rich_help_panel="Output"
        ),
    ] = False,
    split: SplitOption = "test",
    config: ConfigOption = None,
    no_cache: NoCacheOption = False,
    concurrency: ConcurrencyOption = None,
    sets: SetOption = None,
    batch: BatchOption = False,
) -> None:
    """Generate and freeze one rubric per task, before any candidate is judged."""
    from rubric_gen.run import RubricJob, generate_rubrics

    settings = _settings(config, concurrency, sets)
    job = RubricJob(
        tasks=tasks,
        generator=generator,
        out=out,
        repos_dir=repos_dir,
        force=force,
        split=split,
        source=rubric_source,
        context=context,
    )
    options = _batch_options(settings, out.with_name(out.name + ".batches.json"), batch)
    summary = run_job(
        "rubrics", lambda update: generate_rubrics(job, settings, not no_cache, update, options)
    )
    _print_errors(summary.errors)
    for note in summary.notes[:20]:
        console.print(f"note: {note}", highlight=False)
    console.print(
        f"rubrics: {summary.generated} generated, {summary.skipped_existing} already frozen, "
        f"{len(summary.errors)} failed → {out} · {ledger_line(summary.ledger)}",
        highlight=False,
    )
    exit_for(summary.generated + summary.skipped_existing, len(summary.errors))


@app.command("score", rich_help_panel="Score patches")
def score_command(
    tasks: TasksArg,
    candidates: CandidatesArg,
    rubrics: RubricsOption,
    judge: Annotated[
        str, typer.Option("--judge", help="provider:model of the judge.", rich_help_panel="Model")
    ],
    out: RunOutOption,
    runs: RunsOption = 1,
    repos_dir: ReposDirOption = None,
    browse: BrowseOption = False,
    split: SplitOption = "test",
    config: ConfigOption = None,
    no_cache: NoCacheOption = False,
    concurrency: ConcurrencyOption = None,
    sets: SetOption = None,
    batch: BatchOption = False,
) -> None:
    """Judge every candidate blind against its task's frozen rubric; resumable."""
    from judge.score_run import ScoreJob, score

    settings = _settings(config, concurrency, sets)
    job = ScoreJob(
        tasks=tasks,
        candidates=candidates,
        rubrics=rubrics,
        judge=judge,
        out_dir=out,
        runs=runs,
        split=split,
        repos_dir=repos_dir,
    )
    options = _batch_options(settings, out / "batches.json", batch)
    summary = run_job("judging", lambda update: score(job, settings, not no_cache, update, options))
    _print_errors(summary.errors)
    console.print(
        f"judged {summary.judged} now, {summary.skipped_done} already done, "
        f"{len(summary.errors)} errors → {out} · {ledger_line(summary.ledger)}",
        highlight=False,
    )
    if browse:
        from judge.cli.jobs import _write_browse

        _write_browse(out, out / "browse")
    exit_for(summary.judged + summary.skipped_done, len(summary.errors))


@app.command("show", rich_help_panel="Score patches")
def show_command(
    run_dir: Annotated[Path, typer.Argument(help="A run folder written by `score`.")],
    candidate: Annotated[str, typer.Option("--candidate", help="Candidate id to show.")],
) -> None:
    """Print one candidate's judgement(s) as a table: criterion, weight, answer, evidence."""
    from judge.show import find_judgements, judgement_table, rubric_provenance, run_rubric

    found = find_judgements(run_dir, candidate)
    if not found:
        raise _fail(f"no judgement for candidate {candidate!r} in {run_dir}")
    rubric = run_rubric(run_dir, found[0].task_id)
    questions = {c.id: c.question for c in rubric.criteria} if rubric else {}
    for judgement in found:
        console.print(judgement_table(judgement, questions))
    for line in rubric_provenance(rubric):
        console.print(line, highlight=False)
