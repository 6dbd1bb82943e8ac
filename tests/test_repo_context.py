"""Repository context read with git at the base commit, inside the clone only."""

from __future__ import annotations

import subprocess

import pytest

from judge.records import Task
from rubric_gen.repo_context import find_clone, is_safe_path, repository_context


def _git(cwd, *args):
    return subprocess.run(
        ["git", "-C", str(cwd), *args], check=True, capture_output=True, text=True
    )


@pytest.fixture
def clone(tmp_path):
    repo = tmp_path / "repos" / "acme" / "calc"
    (repo / "calc").mkdir(parents=True)
    (repo / "tests").mkdir()
    _git(repo.parent, "init", "-q", "calc")
    _git(repo, "config", "user.email", "t@example.com")
    _git(repo, "config", "user.name", "t")
    (repo / "calc" / "ops.py").write_text("def add(a, b):\n    return a - b\n")
    (repo / "tests" / "test_ops.py").write_text("SECRET_TEST_BODY = 1\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "base")
    base = _git(repo, "rev-parse", "HEAD").stdout.strip()
    (repo / "calc" / "ops.py").write_text("changed after the base commit\n")
    _git(repo, "commit", "-qam", "later")
    return tmp_path / "repos", base


def _task(base, patch, repo="acme/calc"):
    return Task(task_id="t", description="d", repo=repo, base_commit=base, reference_patch=patch)


PATCH = (
    "diff --git a/calc/ops.py b/calc/ops.py\n--- a/calc/ops.py\n+++ b/calc/ops.py\n"
    "@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n"
    "diff --git a/tests/test_ops.py b/tests/test_ops.py\n--- a/tests/test_ops.py\n"
    "+++ b/tests/test_ops.py\n@@ -1 +1 @@\n-SECRET_TEST_BODY = 1\n+SECRET_TEST_BODY = 2\n"
)


def test_files_are_read_at_the_base_commit_without_tests(clone):
    repos, base = clone
    context = repository_context(_task(base, PATCH), repos, max_tokens=1000)
    assert len(context.files) == 1
    assert "calc/ops.py" in context.files[0] and "return a - b" in context.files[0]
    assert "changed after" not in context.files[0]
    assert "SECRET_TEST_BODY" not in "".join(context.files)


def test_unsafe_paths_read_nothing_and_are_reported(clone):
    repos, base = clone
    patch = PATCH.replace("calc/ops.py", "../../etc/passwd")
    context = repository_context(_task(base, patch), repos, max_tokens=1000)
    assert context.files == []
    assert any("unsafe path '../../etc/passwd'" in note for note in context.notes)


def test_missing_clone_and_budget_are_reported(clone):
    repos, base = clone
    assert "no clone" in repository_context(_task(base, PATCH, "x/y"), repos, 1000).notes[0]
    starved = repository_context(_task(base, PATCH), repos, max_tokens=0)
    assert starved.files == [] and "over the context budget" in starved.notes[0]


@pytest.mark.parametrize(
    ("path", "safe"),
    [
        ("a/b.py", True),
        ("/etc/passwd", False),
        ("../x", False),
        ("a/../../x", False),
        ("a\\b", False),
        ("", False),
    ],
)
def test_is_safe_path(path, safe):
    assert is_safe_path(path) is safe


def test_find_clone_layouts(clone):
    repos, _ = clone
    assert find_clone(repos, "acme/calc") == repos / "acme" / "calc"
    assert find_clone(repos, "nobody/nothing") is None
