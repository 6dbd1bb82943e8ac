"""The `rubric-judge` command line: the typer app and its command modules, nothing else."""

from judge.cli.app import app

__all__ = ["app"]
