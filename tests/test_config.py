"""Settings load from YAML with strict keys; model specs and keys fail early and clearly."""

from __future__ import annotations

import pytest

from judge.config import load_settings
from judge.llm.providers import create_provider, parse_model_spec, provider_names, register_provider
from judge.llm.providers.keys import PLACEHOLDER_KEY, resolve_api_key
from judge.llm.settings import LLMSettings, ProviderSettings
from judge.llm.types import ConfigError


def test_defaults_come_from_configs_default_yaml():
    settings = load_settings()
    assert settings.concurrency == 8
    assert settings.generation.temperature == 0.0
    assert settings.provider("openai").api_key_env == "OPENAI_API_KEY"
    assert settings.provider("local").require_api_key is False


def test_user_yaml_and_overrides_merge_over_defaults(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text("llm:\n  concurrency: 3\n  providers:\n    openai: {timeout_s: 9}\n")
    settings = load_settings(path, requests_per_minute=120)
    assert settings.concurrency == 3
    assert settings.requests_per_minute == 120
    assert settings.provider("openai").timeout_s == 9
    assert settings.provider("openai").api_key_env == "OPENAI_API_KEY"  # kept from defaults


@pytest.mark.parametrize(
    ("yaml_text", "message"),
    [
        ("llm:\n  concurency: 3\n", "concurency"),
        ("llm:\n  concurrency: 0\n", "concurrency"),
        ("- a\n- b\n", "must be a mapping"),
        ("llm: [unclosed\n", "cannot read config"),
    ],
)
def test_bad_config_is_a_clear_error(tmp_path, yaml_text, message):
    path = tmp_path / "bad.yaml"
    path.write_text(yaml_text)
    with pytest.raises(ConfigError, match=message):
        load_settings(path)


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("openai:gpt-4.1-mini", ("openai", "gpt-4.1-mini")),
        ("anthropic:claude-haiku-4-5", ("anthropic", "claude-haiku-4-5")),
        ("local:Qwen/Qwen2.5-Coder-32B:latest", ("local", "Qwen/Qwen2.5-Coder-32B:latest")),
        ("scripted", ("scripted", "default")),
    ],
)
def test_model_specs(spec, expected):
    assert parse_model_spec(spec) == expected


@pytest.mark.parametrize(
    ("spec", "message"),
    [("gpt-4", "provider:model"), ("nope:x", "unknown provider 'nope'"), ("openai:", "no model")],
)
def test_bad_model_specs(spec, message):
    with pytest.raises(ConfigError, match=message):
        parse_model_spec(spec)


def test_missing_key_names_the_variable(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        create_provider("openai:gpt-4.1-mini", LLMSettings())


def test_key_comes_from_the_named_variable(monkeypatch):
    monkeypatch.setenv("MY_GATEWAY_KEY", " secret ")
    settings = ProviderSettings(api_key_env="MY_GATEWAY_KEY")
    assert resolve_api_key("openai", settings, "OPENAI_API_KEY") == "secret"
    monkeypatch.delenv("LOCAL_KEY", raising=False)
    optional = ProviderSettings(api_key_env="LOCAL_KEY", require_api_key=False)
    assert resolve_api_key("local", optional, "OPENAI_API_KEY") == PLACEHOLDER_KEY


def test_registered_provider_is_used():
    built = []

    def factory(name, model, settings):
        built.append((name, model))
        return object()

    register_provider("custom", factory)
    assert "custom" in provider_names()
    create_provider("custom:m1", LLMSettings())
    assert built == [("custom", "m1")]


@pytest.mark.parametrize(
    ("assignment", "expected"),
    [
        ("llm.concurrency=3", {"llm": {"concurrency": 3}}),
        (
            "llm.providers.openai.base_url=http://127.0.0.1:8000/v1",
            {"llm": {"providers": {"openai": {"base_url": "http://127.0.0.1:8000/v1"}}}},
        ),
        ("judge.strict_evidence=false", {"judge": {"strict_evidence": False}}),
        ("llm.requests_per_minute=null", {"llm": {"requests_per_minute": None}}),
    ],
)
def test_set_assignments(assignment, expected):
    from judge.config import parse_set

    assert parse_set(assignment) == expected


def test_set_overrides_and_errors():
    from judge.config import load_app_settings

    settings = load_app_settings(
        sets=["judge.max_diff_tokens=500", "llm.providers.openai.timeout_s=5"]
    )
    assert settings.judge.max_diff_tokens == 500
    assert settings.llm.provider("openai").timeout_s == 5
    assert settings.llm.provider("openai").api_key_env == "OPENAI_API_KEY"
    with pytest.raises(ConfigError, match=r"KEY\.PATH=VALUE"):
        load_app_settings(sets=["no-equals-sign"])
    with pytest.raises(ConfigError, match="max_diff_tokens"):
        load_app_settings(sets=["judge.max_diff_tokens=1"])


def test_progress_line_estimates_the_total():
    from judge.cli.progress import ledger_line
    from judge.llm.pricing import Ledger
    from judge.llm.types import Usage

    ledger = Ledger()
    ledger.add(Usage(model="m", cost_usd=0.25))
    assert (
        ledger_line(ledger, done=1, planned=4)
        == "cost $0.2500 (≈ $1.0000 for all 4) · 1 calls · 0 cache hits"
    )
    assert "≈" not in ledger_line(ledger)
    ledger.add_batch("k", Usage(model="m", cost_usd=0.5))
    ledger.add(Usage(model="m", cache_hits=1))
    ledger.add_saving("old-key", 0.75)
    assert ledger_line(ledger) == (
        "cost $0.7500, batch $0.5000 · 3 calls · 1 cache hits (saved $0.7500)"
    )
