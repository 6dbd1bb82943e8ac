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


def _git(cwd: Path, *args: str) -> str:
    import subprocess

    env = {
        "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
        "HOME": str(cwd), "PATH": "/usr/bin:/bin:/usr/local/bin",
    }  # fmt: skip
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, check=True)
    return done.stdout.decode().strip()


def commit_files(repo: Path, files: dict[str, str], message: str) -> str:
    """Write `files` into `repo`, commit them, return the commit hash."""
    for path, text in files.items():
        target = repo / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", message)
    return _git(repo, "rev-parse", "HEAD")


CALC_BASE = {
    "calc/__init__.py": "",
    "calc/ops.py": (
        "import math\n"
        "\n"
        "\n"
        "def add(a, b):\n"
        '    """Add two numbers."""\n'
        "    total = a - b\n"
        "    return total\n"
        "\n"
        "\n"
        "def scale(value, factor, *, clamp=False):\n"
        '    """Multiply value by factor."""\n'
        "    result = value * factor\n"
        "    return min(result, 100) if clamp else result\n"
    ),
    "calc/report.py": (
        "from calc.ops import add\n"
        "\n"
        "\n"
        "def summary(xs):\n"
        '    """Sum a list with add()."""\n'
        "    out = 0\n"
        "    for x in xs:\n"
        "        out = add(out, x)\n"
        "    return out\n"
    ),
    "web/app.js": "function greet(name) {\n  return 'hi ' + name;\n}\n",
    "calc/fmt.py": (
        "import re\n"
        "\n"
        "\n"
        "class Formatter:\n"
        "    def compile(self, fmt):\n"
        "        return fmt.upper()\n"
        "\n"
        "    def render(self):\n"
        '        return self.compile("x")\n'
    ),
    "tests/test_ops.py": "from calc.ops import add\n\n\ndef test_add():\n    assert add(1, 2)\n",
}
CALC_FIX = {
    "calc/ops.py": CALC_BASE["calc/ops.py"].replace(
        "total = a - b", "total = secret_fixed_sum(a, b)"
    )
    + "\n\ndef secret_fixed_sum(a, b):\n    return a + b\n",
}


@pytest.fixture
def calc_repo(tmp_path) -> tuple[Path, str, str]:
    """A repository built by the test: a base commit, then a "fix" commit on top (the clone's
    HEAD), as `repos_dir/calc/calc`. Returns (repos_dir, base commit, fix commit)."""
    repos_dir = tmp_path / "repos"
    repo = repos_dir / "calc" / "calc"
    repo.mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    base = commit_files(repo, CALC_BASE, "base")
    fix = commit_files(repo, CALC_FIX, "the fix")
    return repos_dir, base, fix


POLY_BASE = {  # Java and TypeScript: the judge's view reads them with tree-sitter
    "shop/Cart.java": (
        "package shop;\n"
        "\n"
        "public class Cart {\n"
        "    private int total = 0;\n"
        "\n"
        "    public int add(int price) {\n"
        "        total = total - price;\n"
        "        return total;\n"
        "    }\n"
        "\n"
        "    public int checkout() {\n"
        "        return add(0) * 2;\n"
        "    }\n"
        "}\n"
    ),
    "web/cart.ts": (
        "export const discount = (price: number): number => {\n"
        "  return price * 0.9;\n"
        "};\n"
        "\n"
        "export function pay(price: number) {\n"
        "  return discount(price) + 1;\n"
        "}\n"
    ),
    "web/tax.ts": "export function tax(amount: number): number {\n  return amount * 0.2;\n}\n",
}


@pytest.fixture
def poly_repo(tmp_path) -> tuple[Path, str]:
    """A Java and TypeScript repository built by the test, as `repos_dir/shop/shop`; returns
    (repos_dir, base commit)."""
    repos_dir = tmp_path / "repos"
    repo = repos_dir / "shop" / "shop"
    repo.mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    return repos_dir, commit_files(repo, POLY_BASE, "base")


CALC_FIX_PATCH = (  # the merged fix of the calc task: it calls a function only the fix commit has
    "diff --git a/calc/ops.py b/calc/ops.py\n--- a/calc/ops.py\n+++ b/calc/ops.py\n"
    "@@ -3,7 +3,7 @@\n \n \n def add(a, b):\n"
    '     """Add two numbers."""\n-    total = a - b\n+    total = secret_fixed_sum(a, b)\n'
    "     return total\n"
)


@pytest.fixture
def calc_tasks_file(calc_repo, tmp_path) -> Path:
    """One task of `calc_repo`, at its base commit, with the merged fix as reference patch."""
    import json

    _, base, _ = calc_repo
    path = tmp_path / "tasks.jsonl"
    path.write_text(json.dumps({
        "instance_id": "calc-1", "repo": "calc/calc", "base_commit": base,
        "patch": CALC_FIX_PATCH,
        "problem_statement": "`add()` in calc/ops.py subtracts: `summary([1, 2])` gives -3.",
    }) + "\n")  # fmt: skip
    return path
