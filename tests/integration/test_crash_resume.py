"""SIGKILL at random points: outputs stay valid line by line, the cache stays intact, and the
resumed run ends equal to an uninterrupted one."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from judge.config import load_app_settings
from judge.jsonl import read_jsonl
from judge.judgement import Judgement
from rubric_gen.run import RubricJob, generate_rubrics
from tests.conftest import FAKE_KEY
from tests.integration.test_batches import _answer
from validation.sample import SAMPLE_CANDIDATES, SAMPLE_TASKS

pytestmark = [pytest.mark.integration, pytest.mark.slow]
LAUNCH = "from judge.cli import app; app()"


def _cli(args: list[str], cwd: Path) -> subprocess.Popen:
    env = {**os.environ, "OPENAI_API_KEY": FAKE_KEY, "COLUMNS": "200"}
    return subprocess.Popen(
        [sys.executable, "-c", LAUNCH, *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def _valid_lines(path: Path) -> list[dict]:
    """Every complete line parses; only a torn last line (no newline) may not."""
    if not path.exists():
        return []
    data = path.read_bytes()
    lines = data.split(b"\n")
    complete = lines[:-1]
    return [json.loads(line) for line in complete if line.strip()]


def _cache_ok(path: Path) -> None:
    if path.exists():
        db = sqlite3.connect(path)
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        db.execute("SELECT key, text FROM replies").fetchall()
        db.close()


def _kill_after(process: subprocess.Popen, path: Path, lines: int, limit_s: float = 60) -> None:
    """SIGKILL once `path` holds at least `lines` lines (a point chosen by the test's seed)."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline and process.poll() is None:
        if path.exists() and path.read_bytes().count(b"\n") >= lines:
            break
        time.sleep(0.005)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()


def _outcome(run: Path) -> dict:
    return {
        j.key: (j.score, [(c.criterion_id, c.answer, c.evidence) for c in j.criteria])
        for j in read_jsonl(run / "judgements.jsonl", Judgement)
    }


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    from tests.protocol_server import ProtocolServer

    root = tmp_path_factory.mktemp("crash")
    server = ProtocolServer(responder=_answer, latency_s=0.01).start()
    rubrics = root / "rubrics.jsonl"
    import asyncio
    import gzip

    with gzip.open(SAMPLE_CANDIDATES, "rt") as handle:
        rows = handle.read().splitlines()[:100]
    (root / "subset.jsonl").write_text("\n".join(rows) + "\n")

    asyncio.run(
        generate_rubrics(RubricJob(str(SAMPLE_TASKS), "reference", rubrics), load_app_settings())
    )
    yield root, server, rubrics
    server.stop()


def _score_args(run: Path, cache: Path, server, rubrics: Path) -> list[str]:
    return [
        "score",
        str(SAMPLE_TASKS),
        str(rubrics.parent / "subset.jsonl"),  # written beside the rubrics by `setup`
        "--rubrics",
        str(rubrics),
        "--judge",
        "openai:gpt-4.1-mini",
        "--out",
        str(run),
        "--concurrency",
        "2",
        "--set",
        f"llm.providers.openai.base_url={server.openai_base_url}",
        "--set",
        f"llm.cache_path={cache}",
    ]


def _finish(args: list[str], cwd: Path) -> None:
    process = _cli(args, cwd)
    assert process.wait(timeout=300) == 0, process.stderr.read().decode()[-2000:]


@pytest.fixture(scope="module")
def uninterrupted(setup):
    root, server, rubrics = setup
    run = root / "clean"
    _finish(_score_args(run, root / "clean.sqlite", server, rubrics), root)
    return _outcome(run)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_score_killed_and_resumed_equals_an_uninterrupted_run(seed, setup, uninterrupted):
    root, server, rubrics = setup
    run, cache = root / f"killed-{seed}", root / f"killed-{seed}.sqlite"
    args = _score_args(run, cache, server, rubrics)
    process = _cli(args, root)
    _kill_after(process, run / "judgements.jsonl", random.Random(seed).randint(3, 70))
    before = _valid_lines(run / "judgements.jsonl")
    _cache_ok(cache)
    _finish(args, root)
    after = _outcome(run)
    assert len(before) < len(after)  # the kill really interrupted the run
    assert after == uninterrupted
    keys = [
        json.loads(x)["candidate_id"] for x in (run / "judgements.jsonl").read_text().splitlines()
    ]
    assert len(keys) == len(set(keys))
    _cache_ok(cache)


@pytest.mark.parametrize("seed", [4, 5])
def test_validate_killed_and_resumed_gives_the_same_metrics(seed, setup):
    root, _, _ = setup
    clean, killed = root / f"v-clean-{seed}", root / f"v-killed-{seed}"
    args = [
        "validate",
        "--runs",
        "2",
        "--limit",
        "20",
        "--set",
        f"llm.cache_path={root / 'v.sqlite'}",
    ]
    _finish([*args, "--out", str(clean)], root)
    process = _cli([*args, "--out", str(killed)], root)
    time.sleep(random.Random(seed).uniform(1.2, 3.0))
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    _valid_lines(killed / "judgements.jsonl")
    _finish([*args, "--out", str(killed)], root)
    first = json.loads((clean / "metrics.json").read_text())["main"]["checks"]
    second = json.loads((killed / "metrics.json").read_text())["main"]["checks"]
    for check in ("gold", "auc_without_empty", "auc_with_empty", "failure_quality", "repeat"):
        assert first[check] == second[check], check
