"""The `rubric-judge` command line: each command parses options, calls one function, prints."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from judge import __version__
from judge.config import load_settings
from judge.llm_checks import PingReply, ping, provider_status
from judge.types import ConfigError, LLMError

app = typer.Typer(help="Score code patches without running them.", no_args_is_help=True)
llm_app = typer.Typer(help="Check the LLM layer: providers, keys, prices.", no_args_is_help=True)
app.add_typer(llm_app, name="llm")
console = Console()

ConfigOption = Annotated[
    Path | None, typer.Option("--config", help="YAML settings file (see configs/default.yaml).")
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


@llm_app.command("check")
def check(config: ConfigOption = None) -> None:
    """Show each provider's settings and whether its API key is set (no network)."""
    try:
        settings = load_settings(config)
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
) -> None:
    """Send one tiny structured request and print the reply, tokens and cost."""
    try:
        settings = load_settings(config)
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
