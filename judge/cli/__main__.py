"""`python -m judge.cli` runs the command line."""

from judge.cli import app

app()
