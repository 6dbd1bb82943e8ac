"""Repository context for the generator: files the reference patch touches, at the base commit.

Read with `git show COMMIT:PATH` inside the given clone only. A path that is absolute or climbs
out of the repository (`..`) reads nothing and is reported, whatever the patch claims.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from judge.diff import DiffError, is_test_path, parse_diff
from judge.fencing import estimate_tokens, fence, truncate
from judge.records import Task

GIT_TIMEOUT_S = 30


@dataclass
class RepoContext:
    files: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def find_clone(repos_dir: Path, repo: str) -> Path | None:
    """`owner/name` may be cloned as DIR/owner/name, DIR/owner__name or DIR/name."""
    owner, _, name = repo.partition("/")
    if not (is_safe_path(owner) and is_safe_path(name)) or "/" in name:
        return None
    for candidate in (repos_dir / owner / name, repos_dir / f"{owner}__{name}", repos_dir / name):
        if name and (candidate / ".git").exists():
            return candidate
    return None


_COMMIT = re.compile(r"^[0-9a-fA-F]{4,64}$")


def is_safe_commit(commit: str) -> bool:
    """Only hex object names: anything else (`--output=…`, `HEAD~1:../`) could steer git."""
    return bool(_COMMIT.match(commit or ""))


def is_safe_path(path: str) -> bool:
    pure = PurePosixPath(path)
    return bool(path) and not pure.is_absolute() and ".." not in pure.parts and "\\" not in path


def read_at_commit(clone: Path, commit: str, path: str) -> str | None:
    result = subprocess.run(
        ["git", "-C", str(clone), "show", "--no-textconv", f"{commit}:{path}", "--"],
        capture_output=True,
        timeout=GIT_TIMEOUT_S,
        check=False,
    )
    return result.stdout.decode("utf-8", errors="replace") if result.returncode == 0 else None


def _context_paths(task: Task) -> list[str]:
    """Files that exist at the base commit and that the reference patch changes (no tests)."""
    try:
        parsed = parse_diff(task.reference_patch or "")
    except DiffError:
        return []

    return [f.old_path for f in parsed.files if f.old_path and not is_test_path(f.old_path)]


def read_sources(task: Task, repos_dir: Path) -> tuple[dict[str, str], list[str]]:
    """Text at the base commit of each non-test file the reference patch changes, and notes on
    what could not be read."""
    clone = find_clone(repos_dir, task.repo or "")
    if clone is None or not task.base_commit:
        return {}, [f"{task.task_id}: no clone of {task.repo!r} under {repos_dir}"]
    if not is_safe_commit(task.base_commit):
        return {}, [f"{task.task_id}: refused base commit {task.base_commit[:60]!r} (not a hash)"]
    sources: dict[str, str] = {}
    notes: list[str] = []
    for path in _context_paths(task):
        if not is_safe_path(path):
            notes.append(f"{task.task_id}: refused to read unsafe path {path!r}")
            continue
        content = read_at_commit(clone, task.base_commit, path)
        if content is None:
            notes.append(f"{task.task_id}: {path} not found at {task.base_commit}")
            continue
        sources[path] = content
    return sources, notes


def repository_context(task: Task, repos_dir: Path, max_tokens: int) -> RepoContext:
    """The sources as fenced prompt blocks, within a token budget."""
    sources, notes = read_sources(task, repos_dir)
    context = RepoContext(notes=notes)
    budget = max_tokens
    for path, content in sources.items():
        if budget <= 0:
            context.notes.append(f"{task.task_id}: {path} not shown (over the context budget)")
            continue
        shown, _ = truncate(content, budget)
        budget -= estimate_tokens(shown)
        context.files.append(
            f"The file `{path}` at the base commit:\n{fence(shown, 'repository_file')}"
        )
    return context
