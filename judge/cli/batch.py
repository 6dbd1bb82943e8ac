"""`batch export`, `batch import` and `batch status`: offline batch files and batch state."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from judge.cli.common import (
    _fail,
    _settings,
    app,
    console,
    exit_for,
    run_job,
)
from judge.cli.options import (
    CandidatesArg,
    ConfigOption,
    ContextOption,
    ReposDirOption,
    RubricsOption,
    RubricSourceOption,
    RunsOption,
    SetOption,
    SplitOption,
    TasksArg,
)
from judge.llm.pricing import money

batch_app = typer.Typer(help="Batch files and provider batches.", no_args_is_help=True)
export_app = typer.Typer(
    help="Write a stage's pending requests as OpenAI batch input JSONL.", no_args_is_help=True
)
batch_app.add_typer(export_app, name="export")
app.add_typer(batch_app, name="batch", rich_help_panel="Tools")

FileOption = Annotated[Path, typer.Option("--file", help="Where to write the batch input JSONL.")]


@export_app.command("rubrics")
def export_rubrics(
    tasks: TasksArg,
    generator: Annotated[str, typer.Option("--generator", help="provider:model.")],
    out: Annotated[Path, typer.Option("--out", help="The rubrics JSONL the stage will fill.")],
    file: FileOption,
    repos_dir: ReposDirOption = None,
    rubric_source: RubricSourceOption = "auto",
    context: ContextOption = "retrieve",
    split: SplitOption = "test",
    config: ConfigOption = None,
    sets: SetOption = None,
) -> None:
    """Export the rubric requests the cache cannot answer yet."""
    from rubric_gen.run import RubricJob, generate_rubrics

    settings = _settings(config, None, sets)
    job = RubricJob(tasks=tasks, generator=generator, out=out, split=split,
                    repos_dir=repos_dir, source=rubric_source, context=context)  # fmt: skip
    summary = run_job(None, lambda _: generate_rubrics(job, settings, export=file))
    console.print(
        f"{summary.exported} requests → {_parts(file, summary.exported)}", highlight=False
    )


@export_app.command("score")
def export_score(
    tasks: TasksArg,
    candidates: CandidatesArg,
    rubrics: RubricsOption,
    judge: Annotated[str, typer.Option("--judge", help="provider:model of the judge.")],
    out: Annotated[Path, typer.Option("--out", help="Run folder (cache hits are judged now).")],
    file: FileOption,
    runs: RunsOption = 1,
    repos_dir: ReposDirOption = None,
    split: SplitOption = "test",
    config: ConfigOption = None,
    sets: SetOption = None,
) -> None:
    """Export the judging requests the cache cannot answer yet (with the same --repos-dir as
    the `score` run that will read them: the judge's view is part of each request)."""
    from judge.score_run import ScoreJob, score

    settings = _settings(config, None, sets)
    job = ScoreJob(tasks, candidates, rubrics, judge, out, runs, split, repos_dir=repos_dir)
    summary = run_job(None, lambda _: score(job, settings, export=file))
    console.print(
        f"{summary.exported} requests → {_parts(file, summary.exported)} "
        f"({summary.judged} judged from the cache)",
        highlight=False,
    )


def _parts(file: Path, count: int) -> str:
    """The exported file, and its further parts when the provider limits split it."""
    from judge.llm.batch_files import part_path

    parts = [file]
    while part_path(file, len(parts) + 1).exists():
        parts.append(part_path(file, len(parts) + 1))
    return ", ".join(str(p) for p in parts) if count else str(file)


@batch_app.command("import")
def import_results(
    results: Annotated[Path, typer.Argument(help="An OpenAI batch output JSONL file.")],
    requests: Annotated[
        Path | None,
        typer.Option("--requests", help="The exported input file: checks replies, names models."),
    ] = None,
    config: ConfigOption = None,
    sets: SetOption = None,
) -> None:
    """Read batch results into the reply cache; re-running the stage then completes from it."""
    from judge.llm.batch_files import (
        CacheImporter,
        import_openai_output,
        read_required_keys,
        read_specs,
    )
    from judge.llm.cache import ReplyCache
    from judge.llm.pricing import Ledger, load_prices

    settings = _settings(config, None, sets).llm
    specs = read_specs(requests) if requests else {}
    required = read_required_keys(requests) if requests else None
    cache = ReplyCache(settings.cache_path)
    ledger = Ledger()
    prices = load_prices(Path(settings.prices_path) if settings.prices_path else None)
    try:
        summary = import_openai_output(
            results, CacheImporter(cache, prices, ledger), specs, required
        )
    finally:
        cache.close()
    for kind, rows in (("failed", summary.failed), ("invalid", summary.invalid)):
        for row in rows[:20]:
            console.print(f"{kind}: {row['custom_id'][:16]}… {row['reason']}", highlight=False)
    console.print(
        f"imported {summary.imported}, failed {len(summary.failed)}, invalid "
        f"{len(summary.invalid)} (re-run the stage: failed lines are retried live, invalid "
        f"replies get their repair request) · batch cost "
        f"{money(ledger.total().cost_usd)}",
        highlight=False,
    )


@batch_app.command("status")
def status(
    run_dir: Annotated[Path, typer.Argument(help="A run folder (or rubrics file) with batches.")],
) -> None:
    """Each batch's state, counts and what was imported (from the saved batch state)."""
    from judge.llm.batch_runner import STATE_FILE, load_state

    path = (
        run_dir / STATE_FILE
        if run_dir.is_dir()
        else run_dir.with_name(run_dir.name + ".batches.json")
    )
    if not path.exists():
        raise _fail(f"no batch state at {path}")
    table = Table(
        "batch", "provider", "status", "requests", "counts", "imported", "failed", "cost (batch)"
    )
    for record in load_state(path).batches:
        counts = ", ".join(f"{k} {v}" for k, v in record.counts.items() if v)
        table.add_row(
            *(
                Text(str(cell))
                for cell in (
                    record.id,
                    record.provider,
                    record.status,
                    len(record.specs),
                    counts or "–",
                    record.imported_ok if record.imported else "no",
                    len(record.failed),
                    money(record.cost_usd),
                )
            )
        )
    console.print(table)


repos_app = typer.Typer(
    help="Clones of the task repositories for --repos-dir.", no_args_is_help=True
)
app.add_typer(repos_app, name="repos", rich_help_panel="Tools")


@repos_app.command("fetch")
def repos_fetch(
    tasks: TasksArg,
    repos_dir: Annotated[Path, typer.Option("--repos-dir", help="Where the clones go.")],
    url_template: Annotated[
        str, typer.Option("--url-template", help="Clone URL; {repo} is owner/name.")
    ] = "https://github.com/{repo}.git",
    split: SplitOption = "test",
) -> None:
    """Clone each task repository once (partial, bare) and check every base commit exists."""
    from judge.loaders import load_tasks
    from judge.repo.fetch import fetch_repos

    loaded = run_job(None, lambda _: _load(load_tasks, tasks, split))
    report = fetch_repos(list(loaded.tasks.values()), repos_dir, url_template)
    for repo, reason in report.failed.items():
        console.print(f"[red]failed[/red] {repo}: {reason}", highlight=False)
    for repo, commits in report.missing_commits.items():
        console.print(f"[yellow]missing[/yellow] {repo}: {', '.join(commits[:5])}", highlight=False)
    console.print(
        f"repos: {len(report.cloned)} cloned, {len(report.present)} already there, "
        f"{len(report.failed)} failed; {report.commits_checked} base commits checked, "
        f"{sum(map(len, report.missing_commits.values()))} missing → {repos_dir}",
        highlight=False,
    )
    exit_for(len(report.cloned) + len(report.present), len(report.failed))
    if report.missing_commits:
        raise typer.Exit(code=3)


async def _load(load_tasks, tasks: str, split: str):
    return load_tasks(tasks, split)
