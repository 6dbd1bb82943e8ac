"""The `rubric-judge` command line: each command parses options, calls one function, prints.

This module is the composition root: it alone reaches into `rubric_gen` and `validation`, and
only inside the commands that need them, so the rest of `judge` never depends on them.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from judge import __version__
from judge.config import AppSettings, load_app_settings
from judge.llm_checks import PingReply, ping, provider_status
from judge.progress import ledger_line, progress_bar
from judge.records import ErrorRecord, RecordError
from judge.types import ConfigError, LLMError

app = typer.Typer(help="Score code patches without running them.", no_args_is_help=True)
llm_app = typer.Typer(help="Check the LLM layer: providers, keys, prices.", no_args_is_help=True)
app.add_typer(llm_app, name="llm")
console = Console()

ConfigOption = Annotated[
    Path | None,
    typer.Option(
        "--config",
        help="YAML settings file (see configs/default.yaml).",
        rich_help_panel="Settings",
    ),
]
NoCacheOption = Annotated[
    bool,
    typer.Option("--no-cache", help="Bypass the reply cache.", rich_help_panel="Settings"),
]
ConcurrencyOption = Annotated[
    int | None,
    typer.Option(
        "--concurrency", help="Requests in flight (default 8).", rich_help_panel="Settings"
    ),
]
SetOption = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        help="Override one setting, e.g. llm.providers.openai.base_url=http://localhost:8000/v1.",
        rich_help_panel="Settings",
    ),
]
SplitOption = Annotated[
    str, typer.Option("--split", help="Split of a Hugging Face dataset.", rich_help_panel="Input")
]


def _fail(message: str) -> typer.Exit:
    console.print(f"[red]error:[/red] {message}", markup=True, highlight=False)
    return typer.Exit(code=2)


@app.callback(invoke_without_command=True)
def main(
    version: Annotated[bool, typer.Option("--version", help="Print the version.")] = False,
) -> None:
    """Score code patches without running them: frozen rubrics, a blind judge, validation."""
    if version:
        console.print(f"rubric-judge {__version__}")
        raise typer.Exit()


def _settings(
    config: Path | None, concurrency: int | None = None, sets: list[str] | None = None
) -> AppSettings:
    try:
        return load_app_settings(config, sets, concurrency=concurrency)
    except ConfigError as exc:
        raise _fail(str(exc)) from exc


def _print_errors(errors: list[ErrorRecord], limit: int = 20) -> None:
    for error in errors[:limit]:
        console.print(f"[yellow]skipped[/yellow] {error.record}: {error.reason}", highlight=False)
    if len(errors) > limit:
        console.print(f"… and {len(errors) - limit} more", highlight=False)


@app.command("rubrics")
def rubrics_command(
    tasks: Annotated[
        str, typer.Argument(help="Tasks: .jsonl/.json/.parquet, a saved dataset or a hub id.")
    ],
    generator: Annotated[
        str,
        typer.Option(
            "--generator", help="provider:model that writes the rubrics.", rich_help_panel="Model"
        ),
    ],
    out: Annotated[
        Path, typer.Option("--out", help="Rubrics JSONL (appended to).", rich_help_panel="Output")
    ],
    repos_dir: Annotated[
        Path | None,
        typer.Option(
            "--repos-dir", help="Local git clones for repository context.", rich_help_panel="Input"
        ),
    ] = None,
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
) -> None:
    """Generate and freeze one rubric per task, before any candidate is judged."""
    from rubric_gen.run import RubricJob, generate_rubrics

    settings = _settings(config, concurrency, sets)
    job = RubricJob(
        tasks=tasks, generator=generator, out=out, repos_dir=repos_dir, force=force, split=split
    )
    try:
        with progress_bar(console, "rubrics") as update:
            summary = asyncio.run(generate_rubrics(job, settings, not no_cache, update))
    except (ConfigError, RecordError) as exc:
        raise _fail(str(exc)) from exc
    _print_errors(summary.errors)
    for note in summary.notes[:20]:
        console.print(f"note: {note}", highlight=False)
    console.print(
        f"rubrics: {summary.generated} generated, {summary.skipped_existing} already frozen, "
        f"{len(summary.errors)} failed → {out} · {ledger_line(summary.ledger)}",
        highlight=False,
    )


@app.command("score")
def score_command(
    tasks: Annotated[
        str, typer.Argument(help="Tasks: .jsonl/.json/.parquet, a saved dataset or a hub id.")
    ],
    candidates: Annotated[str, typer.Argument(help="Candidate patches (JSONL).")],
    rubrics: Annotated[
        Path, typer.Option("--rubrics", help="Frozen rubrics JSONL.", rich_help_panel="Input")
    ],
    judge: Annotated[
        str, typer.Option("--judge", help="provider:model of the judge.", rich_help_panel="Model")
    ],
    out: Annotated[
        Path,
        typer.Option("--out", help="Run folder (resumed if it exists).", rich_help_panel="Output"),
    ],
    runs: Annotated[
        int,
        typer.Option(
            "--runs",
            min=1,
            help="Repeat runs per candidate (sample indices 0..K-1).",
            rich_help_panel="Model",
        ),
    ] = 1,
    split: SplitOption = "test",
    config: ConfigOption = None,
    no_cache: NoCacheOption = False,
    concurrency: ConcurrencyOption = None,
    sets: SetOption = None,
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
    )
    try:
        with progress_bar(console, "judging") as update:
            summary = asyncio.run(score(job, settings, not no_cache, update))
    except (ConfigError, RecordError) as exc:
        raise _fail(str(exc)) from exc
    _print_errors(summary.errors)
    console.print(
        f"judged {summary.judged} now, {summary.skipped_done} already done, "
        f"{len(summary.errors)} errors → {out} · {ledger_line(summary.ledger)}",
        highlight=False,
    )


@app.command("validate")
def validate_command(
    out: Annotated[
        Path,
        typer.Option(
            "--out", help="Report folder (resumed if it exists).", rich_help_panel="Output"
        ),
    ],
    data: Annotated[
        str | None,
        typer.Option(
            "--data",
            help="SWE-bench instances: file, saved dataset or hub id (default: shipped sample).",
            rich_help_panel="Input",
        ),
    ] = None,
    candidates: Annotated[
        list[str] | None,
        typer.Option(
            "--candidates",
            help="Labelled candidates: JSONL, a folder of them, or an experiments run folder.",
            rich_help_panel="Input",
        ),
    ] = None,
    generator: Annotated[
        str,
        typer.Option(
            "--generator",
            help="Rubric generator: provider:model or reference.",
            rich_help_panel="Model",
        ),
    ] = "reference",
    judge: Annotated[
        str,
        typer.Option(
            "--judge",
            help="Judge: provider:model, scripted:NAME or reference.",
            rich_help_panel="Model",
        ),
    ] = "reference",
    runs: Annotated[
        int,
        typer.Option("--runs", min=1, help="Repeat runs per candidate.", rich_help_panel="Model"),
    ] = 3,
    hybrid: Annotated[
        bool,
        typer.Option(
            "--hybrid",
            help="Answer criteria that carry a check statically.",
            rich_help_panel="Model",
        ),
    ] = False,
    limit: Annotated[
        int | None,
        typer.Option("--limit", min=1, help="Only the first N tasks.", rich_help_panel="Input"),
    ] = None,
    repos: Annotated[
        list[str] | None,
        typer.Option(
            "--repos", help="Only tasks of these repositories; repeatable.", rich_help_panel="Input"
        ),
    ] = None,
    group: Annotated[
        list[str] | None,
        typer.Option(
            "--group",
            help="PATTERN=SYSTEM: runs matching the regex are one system; repeatable.",
            rich_help_panel="Input",
        ),
    ] = None,
    systems: Annotated[
        Path | None,
        typer.Option(
            "--systems",
            help="System rules YAML (default configs/systems.yaml).",
            rich_help_panel="Input",
        ),
    ] = None,
    repos_dir: Annotated[
        Path | None,
        typer.Option(
            "--repos-dir", help="Local git clones for repository context.", rich_help_panel="Input"
        ),
    ] = None,
    compare_to: Annotated[
        Path | None,
        typer.Option(
            "--compare-to",
            help="An earlier metrics.json: adds a 'since last time' section.",
            rich_help_panel="Output",
        ),
    ] = None,
    fail_on_regression: Annotated[
        bool,
        typer.Option(
            "--fail-on-regression",
            help="Exit 1 when a figure regressed beyond its CI.",
            rich_help_panel="Output",
        ),
    ] = False,
    no_baseline: Annotated[
        bool,
        typer.Option(
            "--no-baseline", help="Skip the reference-judge baseline.", rich_help_panel="Output"
        ),
    ] = False,
    split: SplitOption = "test",
    config: ConfigOption = None,
    no_cache: NoCacheOption = False,
    concurrency: ConcurrencyOption = None,
    sets: SetOption = None,
) -> None:
    """Replay labelled SWE-bench candidates and measure the judge with the four checks."""
    from validation.report import check_rows
    from validation.validate import ValidateJob, validate

    settings = _settings(config, concurrency, sets)
    job = ValidateJob(
        out=out,
        data=data,
        candidates=tuple(candidates or ()),
        generator=generator,
        judge=judge,
        runs=runs,
        limit=limit,
        repos=tuple(repos or ()),
        baseline=not no_baseline,
        systems=systems,
        groups=tuple(group or ()),
        repos_dir=repos_dir,
        hybrid=hybrid,
        split=split,
        compare_to=compare_to,
    )
    try:
        with progress_bar(console, "validating") as update:
            metrics = asyncio.run(validate(job, settings, not no_cache, update))
    except (ConfigError, RecordError) as exc:
        raise _fail(str(exc)) from exc
    table = Table(*_check_columns(metrics), title=f"Validation of {judge} (rubrics: {generator})")
    for row in check_rows(metrics["main"], metrics["baseline"]):
        table.add_row(*(Text(cell) for cell in row))
    console.print(table)
    leak = metrics["leak_audit"]
    console.print(
        f"leak audit: {leak['pipeline_leaks']} leaks by the pipeline in "
        f"{leak['prompts_scanned']} prompts · report: {out / 'report.md'}, {out / 'report.html'}",
        highlight=False,
    )
    _report_comparison(metrics.get("comparison"), fail_on_regression)


def _report_comparison(comparison: dict | None, fail_on_regression: bool) -> None:
    if not comparison:
        return
    regressions, improvements = comparison["regressions"], comparison["improvements"]
    console.print(
        f"since {comparison['against']}: {len(regressions)} regressions "
        f"({', '.join(regressions) or 'none'}), {len(improvements)} improvements",
        highlight=False,
    )
    if regressions and fail_on_regression:
        raise typer.Exit(code=1)


def _check_columns(metrics: dict) -> list[str]:
    columns = ["check", f"this judge ({metrics['main']['judge']})"]
    if metrics["baseline"]:
        columns.append("reference baseline")
    return [*columns, "published"]


@app.command("select")
def select_command(
    run_dir: Annotated[Path, typer.Argument(help="A run folder written by `score` or `validate`.")],
    out: Annotated[
        Path,
        typer.Option("--out", help="Picks JSONL, one line per task.", rich_help_panel="Output"),
    ],
    epsilon: Annotated[
        float,
        typer.Option(
            "--epsilon",
            min=0.0,
            help="Scores this close to the best are a tie.",
            rich_help_panel="Selection",
        ),
    ] = 0.0,
    pairwise: Annotated[
        str | None,
        typer.Option(
            "--pairwise",
            help="provider:model for blind pairwise tie-breaks (both orders).",
            rich_help_panel="Selection",
        ),
    ] = None,
    top_k: Annotated[
        int,
        typer.Option(
            "--top-k", min=2, help="Tied leaders compared pairwise.", rich_help_panel="Selection"
        ),
    ] = 3,
    config: ConfigOption = None,
    no_cache: NoCacheOption = False,
    sets: SetOption = None,
) -> None:
    """Pick the best candidate per task from saved judgements (no LLM call unless --pairwise)."""
    from judge.select_run import select
    from validation.run_inputs import pairwise_inputs, selectable

    settings = _settings(config, None, sets)
    try:
        inputs = pairwise_inputs(run_dir, pairwise, top_k) if pairwise else None
        summary = asyncio.run(
            select(run_dir, out, settings, epsilon, inputs, selectable(run_dir), not no_cache)
        )
    except (ConfigError, RecordError, LLMError) as exc:
        raise _fail(str(exc)) from exc
    resolved = [
        p.labels.get("resolved")
        for p in summary.picks
        if isinstance(p.labels.get("resolved"), bool)
    ]
    rules = ", ".join(f"{rule} {n}" for rule, n in summary.decided_by.most_common())
    console.print(f"{len(summary.picks)} picks → {out} · decided by: {rules}", highlight=False)
    if resolved:
        rate = sum(resolved) / len(resolved)
        console.print(f"picked resolve rate (labels): {rate:.3f} over {len(resolved)} tasks")


@app.command("routes")
def routes_command(
    run_dir: Annotated[Path, typer.Argument(help="A run folder written by `score` or `validate`.")],
    by: Annotated[
        str,
        typer.Option(
            "--by",
            help="The label that names a route (model, harness, route…).",
            rich_help_panel="Routes",
        ),
    ],
    out: Annotated[Path, typer.Option("--out", help="Report folder.", rich_help_panel="Output")],
    cost: Annotated[
        str | None,
        typer.Option(
            "--cost", help="Numeric label holding each candidate's cost.", rich_help_panel="Routes"
        ),
    ] = None,
    alpha: Annotated[
        float,
        typer.Option(
            "--alpha", help="Significance level for 'indistinguishable'.", rich_help_panel="Routes"
        ),
    ] = 0.05,
) -> None:
    """Compare routes on the tasks they share: scores with CIs, paired tests, cost, Pareto front."""
    from validation.routes_report import RoutesJob, routes_report

    try:
        result = routes_report(RoutesJob(run_dir=run_dir, by=by, out=out, cost=cost, alpha=alpha))
    except ConfigError as exc:
        raise _fail(str(exc)) from exc
    verdict = result["verdict"]
    console.print(
        f"best: {verdict['best']} · indistinguishable: {', '.join(verdict['indistinguishable'])}"
        + (
            f" · cheapest of those: {verdict['cheapest_of_those']}"
            if verdict["cheapest_of_those"]
            else ""
        )
        + f" → {out / 'routes.md'}",
        highlight=False,
    )


@app.command("show")
def show_command(
    run_dir: Annotated[Path, typer.Argument(help="A run folder written by `score`.")],
    candidate: Annotated[str, typer.Option("--candidate", help="Candidate id to show.")],
) -> None:
    """Print one candidate's judgement(s) as a table: criterion, weight, answer, evidence."""
    from judge.show import find_judgements, judgement_table, rubric_questions

    found = find_judgements(run_dir, candidate)
    if not found:
        raise _fail(f"no judgement for candidate {candidate!r} in {run_dir}")
    questions = rubric_questions(run_dir, found[0].task_id)
    for judgement in found:
        console.print(judgement_table(judgement, questions))


@llm_app.command("check")
def check(config: ConfigOption = None, sets: SetOption = None) -> None:
    """Show each provider's settings and whether its API key is set (no network)."""
    try:
        settings = load_app_settings(config, sets).llm
    except ConfigError as exc:
        raise _fail(str(exc)) from exc
    table = Table("provider", "base URL", "key variable", "key")
    for row in provider_status(settings):
        table.add_row(*row)
    console.print(table)
    console.print(f"cache: {settings.cache_path} ({'on' if settings.cache_enabled else 'off'})")


@llm_app.command("ping")
def ping_command(
    model: Annotated[str, typer.Argument(help="provider:model, e.g. openai:gpt-4.1-mini")],
    config: ConfigOption = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Bypass the reply cache.")] = False,
    sets: SetOption = None,
) -> None:
    """Send one tiny structured request and print the reply, tokens and cost."""
    try:
        settings = load_app_settings(config, sets).llm
        result = asyncio.run(ping(settings, model, use_cache=not no_cache))
    except (ConfigError, LLMError) as exc:
        raise _fail(str(exc)) from exc
    usage = result.usage
    cost = "unknown" if usage.cost_usd is None else f"${usage.cost_usd:.6f}"
    reply = result.parsed.reply if isinstance(result.parsed, PingReply) else result.text
    console.print(f"{model}: status={result.status} reply={reply!r}", highlight=False)
    console.print(
        f"tokens in={usage.input_tokens} (cached {usage.cached_input_tokens}) "
        f"out={usage.output_tokens} cost={cost} cache_hit={bool(usage.cache_hits)}",
        highlight=False,
    )
    if result.status != "ok":
        raise _fail(result.reason or "unparsed reply")
