"""Shared pieces of the command line: the app, the console, option types and small helpers."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

import typer
from rich.console import Console

from judge.cli.progress import progress_bar
from judge.config import AppSettings, load_app_settings
from judge.llm.types import ConfigError, LLMError
from judge.records import ErrorRecord, NothingProducedError, RecordError

T = TypeVar("T")

app = typer.Typer(help="Score code patches without running them.", no_args_is_help=True)
llm_app = typer.Typer(help="Check the LLM layer: providers, keys, prices.", no_args_is_help=True)
app.add_typer(llm_app, name="llm", rich_help_panel="Tools")
console = Console()


# Exit codes, documented in the README: a CI job can tell a clean run, a run that produced
# nothing, a refused command, and a run that produced results but skipped some records.
EXIT_NOTHING = 1
EXIT_USAGE = 2
EXIT_PARTIAL = 3


def exit_for(produced: int, failed: int) -> None:
    """0 when nothing failed; 3 when some records failed (listed in errors.jsonl); 1 when
    nothing was produced at all."""
    if failed and not produced:
        raise typer.Exit(code=EXIT_NOTHING)
    if failed:
        raise typer.Exit(code=EXIT_PARTIAL)


def _fail(message: str) -> typer.Exit:
    console.print(f"[red]error:[/red] {message}", markup=True, highlight=False)
    return typer.Exit(code=EXIT_USAGE)


def _settings(
    config: Path | None, concurrency: int | None = None, sets: list[str] | None = None
) -> AppSettings:
    try:
        return load_app_settings(config, sets, concurrency=concurrency)
    except ConfigError as exc:
        raise _fail(str(exc)) from exc


def _batch_options(settings: AppSettings, state: Path, enabled: bool):
    if not enabled:
        return None
    from judge.llm.batch_runner import BatchOptions

    interval = settings.batch.poll_interval_s
    return BatchOptions(
        state, interval, settings.batch.max_rounds, progress=BatchStatusLine(interval)
    )


class BatchStatusLine:
    """One status line per poll of the running batches, on a terminal only (logs stay quiet):
    requests done/failed/total over the waiting batches, time since the first poll, next poll."""

    def __init__(self, interval_s: float) -> None:
        self.interval_s = interval_s
        self.started = time.monotonic()

    def __call__(self, state) -> None:
        if not console.is_terminal:
            return
        console.print(self.render(state), highlight=False)

    def render(self, state) -> str:
        waiting = [b for b in state.batches if not b.imported]
        count = Counter()
        for record in waiting:
            count.update({k: int(v or 0) for k, v in record.counts.items()})
        elapsed = time.monotonic() - self.started
        next_poll = f" · next poll in {self.interval_s:.0f} s" if waiting else ""
        return (
            f"batches: {len(waiting)} running, {len(state.batches) - len(waiting)} imported · "
            f"requests {count['completed']} done / {count['failed']} failed / "
            f"{count['total']} total · {elapsed:.0f} s elapsed{next_poll}"
        )


def _print_errors(errors: list[ErrorRecord], limit: int = 20) -> None:
    for error in errors[:limit]:
        console.print(f"[yellow]skipped[/yellow] {error.record}: {error.reason}", highlight=False)
    if len(errors) > limit:
        console.print(f"… and {len(errors) - limit} more", highlight=False)


def run_job(label: str | None, start: Callable[[Callable | None], Coroutine[Any, Any, T]]) -> T:
    """Run one job's coroutine (with a progress bar when `label` is given); a configuration,
    input or provider error becomes exit code 2 with its message, never a traceback."""
    try:
        if label is None:
            return asyncio.run(start(None))
        with progress_bar(console, label) as update:
            return asyncio.run(start(update))
    except (ConfigError, RecordError, LLMError) as exc:
        raise _fail(str(exc)) from exc
    except NothingProducedError as exc:
        console.print(f"[red]error:[/red] {exc}", markup=True, highlight=False)
        raise typer.Exit(code=EXIT_NOTHING) from exc
