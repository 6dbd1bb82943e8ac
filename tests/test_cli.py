"""The CLI: thin commands with clear errors (run in-process on the scripted provider)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from judge import __version__
from judge.cli import app
from judge.llm.providers.scripted import install_script

runner = CliRunner()


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_version_and_help():
    assert __version__ in runner.invoke(app, ["--version"]).output
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    assert "llm" in result.output


def test_llm_check_shows_key_status_without_the_key(isolated, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-visible-nowhere-123")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    result = runner.invoke(app, ["llm", "check"])
    assert result.exit_code == 0
    assert "OPENAI_API_KEY" in result.output
    assert "missing" in result.output and "set" in result.output
    assert "sk-visible-nowhere-123" not in result.output


def test_llm_ping_on_the_scripted_provider(isolated):
    install_script("ping", ['{"reply": "pong"}'])
    result = runner.invoke(app, ["llm", "ping", "scripted:ping"])
    assert result.exit_code == 0, result.output
    assert "status=ok" in result.output
    assert "'pong'" in result.output
    again = runner.invoke(app, ["llm", "ping", "scripted:ping"])
    assert "cache_hit=True" in again.output


def test_llm_ping_reports_unparsed_as_failure(isolated):
    install_script("ping-bad", ["no", "still no"])
    result = runner.invoke(app, ["llm", "ping", "scripted:ping-bad", "--no-cache"])
    assert result.exit_code == 2
    assert "status=unparsed" in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["llm", "ping", "openai:gpt-4.1-mini"], "OPENAI_API_KEY"),
        (["llm", "ping", "mystery:model"], "unknown provider"),
        (["llm", "check", "--config", "missing.yaml"], "cannot read config"),
    ],
)
def test_errors_exit_2_with_a_message(isolated, monkeypatch, args, message):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert message in result.output.replace("\n", " ")
