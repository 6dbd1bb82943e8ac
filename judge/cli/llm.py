"""`llm check` and `llm ping`: the LLM layer on its own."""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer
from rich.table import Table

from judge.cli.common import _fail, console, llm_app
from judge.cli.options import ConfigOption, SetOption
from judge.config import load_app_settings
from judge.llm.checks import PingReply, ping, provider_status
from judge.llm.types import ConfigError, LLMError


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
