"""Shared pieces of the command line: the app, the console, option types and small helpers."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

import typer
from rich.console import Console

from judge.cli.progress import progress_bar
from judge.config import AppSettings, load_app_settings
from judge.llm.types import ConfigError, LLMError
from judge.records import ErrorRecord, RecordError

T = TypeVar("T")

app = typer.Typer(help="Score code patches without running them.", no_args_is_help=True)
llm_app = typer.Typer(help="Check the LLM layer: providers, keys, prices.", no_args_is_help=True)
app.add_typer(llm_app, name="llm", rich_help_panel="Tools")
console = Console()


def _fail(message: str) -> typer.Exit:
    console.print(f"[red]error:[/red] {message}", markup=True, highlight=False)
    return typer.Exit(code=2)


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

    return BatchOptions(
        state, settings.batch.poll_interval_s, settings.batch.max_rounds, progress=_print_batches
    )


def _print_batches(state) -> None:
    """One status line per poll of the running batches."""
    waiting = [b for b in state.batches if not b.imported]
    shown = ", ".join(f"{b.id}: {b.status} {b.counts}" for b in waiting[:3])
    done = len(state.batches) - len(waiting)
    console.print(f"batches: {len(waiting)} running, {done} imported · {shown}", highlight=False)


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
