"""Shared fixtures: fast settings (no retry waits, cache in tmp), and a loopback protocol server."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from judge.config import load_settings
from judge.llm.client import LLMClient
from judge.llm.settings import LLMSettings, ProviderSettings, RetrySettings
from tests.protocol_server import ProtocolServer

FAKE_KEY = "sk-test-not-a-real-key-0123456789"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--run-api", action="store_true", help="run tests that call real APIs")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--run-api"):
        return
    skip = pytest.mark.skip(reason="calls a real API: pass --run-api")
    for item in items:
        if "api" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def settings(tmp_path) -> LLMSettings:
    """Defaults from configs/, with the cache in tmp and retries that do not wait."""
    return load_settings().model_copy(
        update={
            "cache_path": str(tmp_path / "cache.sqlite"),
            "retry": RetrySettings(max_attempts=4, initial_wait_s=0, max_wait_s=0),
        }
    )


@pytest.fixture
def server() -> Iterator[ProtocolServer]:
    with ProtocolServer() as running:
        yield running


@pytest.fixture
def http_settings(settings: LLMSettings, server: ProtocolServer, monkeypatch) -> LLMSettings:
    """Settings whose openai and anthropic providers point at the loopback server."""
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    providers = {
        "openai": ProviderSettings(base_url=server.openai_base_url, timeout_s=2.0),
        "anthropic": ProviderSettings(base_url=server.url, timeout_s=2.0),
    }
    return settings.model_copy(update={"providers": providers})


@pytest.fixture
async def make_client(settings: LLMSettings) -> AsyncIterator:
    """Build LLM clients that are closed (in the test's event loop) after the test."""
    clients: list[LLMClient] = []

    def build(custom: LLMSettings | None = None, use_cache: bool | None = None) -> LLMClient:
        client = LLMClient(custom or settings, use_cache=use_cache)
        clients.append(client)
        return client

    yield build
    for client in clients:
        await client.aclose()


MINI = Path(__file__).parent / "data" / "mini"


@pytest.fixture
def mini() -> Path:
    """Three small tasks (with withheld test fields) and seven labelled candidates."""
    return MINI


@pytest.fixture
def workdir(tmp_path, monkeypatch) -> Path:
    """Run in an empty folder, so the default cache and outputs land in tmp."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def fast_config(tmp_path) -> Path:
    """A --config file: cache in tmp, retries without waiting."""
    path = tmp_path / "fast.yaml"
    path.write_text(
        f"llm:\n  cache_path: {tmp_path / 'cli-cache.sqlite'}\n"
        "  retry: {max_attempts: 2, initial_wait_s: 0, max_wait_s: 0}\n"
    )
    return path


# Property tests explore the same examples on every run: CI stays deterministic; explore more
# locally with --hypothesis-profile=explore.
from hypothesis import settings as hypothesis_settings  # noqa: E402

hypothesis_settings.register_profile("ci", derandomize=True, deadline=None, max_examples=300)
hypothesis_settings.register_profile("explore", max_examples=5000, deadline=None)
hypothesis_settings.load_profile("ci")
