"""`validate`, `select` and `routes`: measuring the judge and using its scores.

These commands reach into `validation`; only the command line may (see `judge/cli.py`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from judge.cli.common import (
    _batch_options,
    _fail,
    _settings,
    app,
    console,
    exit_for,
    run_job,
)
from judge.cli.options import (
    BatchOption,
    BrowseOption,
    CompareToOption,
    ConcurrencyOption,
    ConfigOption,
    ContextOption,
    DataOption,
    FailOnRegressionOption,
    GeneratorOption,
    GroupOption,
    HostileOption,
    HybridOption,
    JudgeOption,
    LabelledOption,
    LimitOption,
    NoBaselineOption,
    NoCacheOption,
    ReposDirOption,
    ReposOption,
    RubricSourceOption,
    RunDirArg,
    RunOutOption,
    RunsOption,
    SetOption,
    SplitOption,
    SystemsOption,
    TieBreakBudgetOption,
    TieBreakOption,
)
from judge.llm.pricing import money
from judge.llm.types import ConfigError


@app.command("validate", rich_help_panel="Measure and use the scores")
def validate_command(
    out: RunOutOption,
    data: DataOption = None,
    candidates: LabelledOption = None,
    generator: GeneratorOption = "reference",
    judge: JudgeOption = "reference",
    runs: RunsOption = 3,
    hybrid: HybridOption = False,
    limit: LimitOption = None,
    repos: ReposOption = None,
    group: GroupOption = None,
    systems: SystemsOption = None,
    repos_dir: ReposDirOption = None,
    hostile: HostileOption = False,
    compare_to: CompareToOption = None,
    fail_on_regression: FailOnRegressionOption = False,
    no_baseline: NoBaselineOption = False,
    rubric_source: RubricSourceOption = "auto",
    context: ContextOption = "retrieve",
    browse: BrowseOption = False,
    tiebreak: TieBreakOption = None,
    tiebreak_budget: TieBreakBudgetOption = 100,
    split: SplitOption = "test",
    config: ConfigOption = None,
    no_cache: NoCacheOption = False,
    concurrency: ConcurrencyOption = None,
    sets: SetOption = None,
    batch: BatchOption = False,
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
        hostile=hostile,
        rubric_source=rubric_source,
        context=context,
        tiebreak=tiebreak,
        tiebreak_budget=tiebreak_budget,
    )
    options = _batch_options(settings, out / "batches.json", batch)
    metrics = run_job(
        "validating", lambda update: validate(job, settings, not no_cache, update, options)
    )
    table = Table(*_check_columns(metrics), title=f"Validation of {judge} (rubrics: {generator})")
    for row in check_rows(metrics["main"], metrics["baseline"]):
        table.add_row(*(Text(cell) for cell in row))
    console.print(table)
    if metrics.get("baseline_skipped"):
        console.print(f"[yellow]note:[/yellow] {metrics['baseline_skipped']}", highlight=False)
    leak = metrics["leak_audit"]
    console.print(
        f"leak audit: {leak['pipeline_leaks']} leaks by the pipeline"
        + (
            f", {leak['fix_line_leaks']} lines of the merged fix in generator prompts"
            if leak.get("fix_lines")
            else ""
        )
        + " in "
        f"{leak['prompts_scanned']} prompts · report: {out / 'report.md'}, {out / 'report.html'}",
        highlight=False,
    )
    bill = metrics["bill"]
    console.print(
        f"cost of this run: {money(bill['spent_usd'])} (batch {money(bill['batch_usd'])}, "
        f"live {money(bill['live_usd'])}) · {bill['cache_hits']} cache hits saved "
        f"{money(bill['saved_usd'])}",
        highlight=False,
    )
    if browse:
        _write_browse(out, out / "browse")
    _report_comparison(metrics.get("comparison"), fail_on_regression)
    exit_for(metrics["counts"]["judgements"], metrics["counts"]["errors"])


def _write_browse(run_dir: Path, out: Path) -> None:
    from validation.browse.site import write_site

    try:
        index = write_site(run_dir, out)
    except ConfigError as exc:
        raise _fail(str(exc)) from exc
    console.print(f"browse the run: {index}", highlight=False)


@app.command("browse", rich_help_panel="Measure and use the scores")
def browse_command(
    run_dir: RunDirArg,
    out: Annotated[Path, typer.Option("--out", help="Site folder.", rich_help_panel="Output")],
) -> None:
    """Write a static site of a run: every task, its rubric, candidates and evidence."""
    _write_browse(run_dir, out)


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


@app.command("select", rich_help_panel="Measure and use the scores")
def select_command(
    run_dir: RunDirArg,
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

    def start(_):
        inputs = pairwise_inputs(run_dir, pairwise, top_k) if pairwise else None
        return select(run_dir, out, settings, epsilon, inputs, selectable(run_dir), not no_cache)

    summary = run_job(None, start)
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


@app.command("routes", rich_help_panel="Measure and use the scores")
def routes_command(
    run_dir: RunDirArg,
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
