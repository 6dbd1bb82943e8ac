"""The `rubric-judge` command line: each command parses options, calls one function, prints.

This package's composition root: the command modules below are the only code in `judge` that
reaches into `rubric_gen` and `validation`, and only inside the commands that need them, so the
rest of `judge` never depends on them.
"""

from __future__ import annotations

from typing import Annotated

import typer

from judge import __version__
from judge.cli import batch, jobs, llm, score  # noqa: F401  (they register commands)
from judge.cli.common import app, console
from judge.prompt_pool import allow_auto_workers

__all__ = ["app"]


@app.callback(invoke_without_command=True)
def main(
    version: Annotated[bool, typer.Option("--version", help="Print the version.")] = False,
) -> None:
    """Score code patches without running them: frozen rubrics, a blind judge, validation."""
    allow_auto_workers()
    if version:
        console.print(f"rubric-judge {__version__}")
        raise typer.Exit()
