"""Getting the clones `--repos-dir` needs: one partial clone per repository (objects are
fetched on demand), and a check that every task's base commit is there.

Clones are bare (there is no work tree to read by mistake) and live at `DIR/owner__name`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from judge.records import Task
from judge.repo.git import find_clone, git, is_safe_commit, is_safe_path

DEFAULT_URL = "https://github.com/{repo}.git"
_REPO = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")


@dataclass
class FetchReport:
    cloned: list[str] = field(default_factory=list)
    present: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    missing_commits: dict[str, list[str]] = field(default_factory=dict)
    commits_checked: int = 0


def _has_commit(clone: Path, commit: str) -> bool:
    return git(clone, "cat-file", "-e", f"{commit}^{{commit}}").returncode == 0


def _clone(repo: str, target: Path, url: str) -> str | None:
    """None on success, else git's message."""
    target.parent.mkdir(parents=True, exist_ok=True)
    done = git(target.parent, "clone", "--quiet", "--bare", "--filter=blob:none", url,
               target.name)  # fmt: skip
    return None if done.returncode == 0 else done.stderr.decode(errors="replace").strip()[:300]


def _ensure_commits(clone: Path, commits: set[str]) -> list[str]:
    """Fetch base commits the clone lacks (e.g. on branches since deleted); the ones still
    missing."""
    missing = [c for c in sorted(commits) if not _has_commit(clone, c)]
    for commit in missing:
        git(clone, "fetch", "--quiet", "--filter=blob:none", "origin", commit)
    return [c for c in missing if not _has_commit(clone, c)]


def _wanted(tasks: list[Task]) -> dict[str, set[str]]:
    """Repository → the base commits its tasks need (unsafe names and commits left out)."""
    wanted: dict[str, set[str]] = {}
    for task in tasks:
        if task.repo and _REPO.match(task.repo) and is_safe_commit(task.base_commit or ""):
            wanted.setdefault(task.repo, set()).add(task.base_commit)
    return wanted


def _clone_for(repo: str, repos_dir: Path, url_template: str, report: FetchReport) -> Path | None:
    """The repository's clone: found, or made now (recorded in the report either way)."""
    clone = find_clone(repos_dir, repo)
    if clone is not None:
        report.present.append(repo)
        return clone
    owner, name = repo.split("/")
    if not (is_safe_path(owner) and is_safe_path(name)):
        return None
    target = repos_dir / f"{owner}__{name}"
    error = _clone(repo, target, url_template.format(repo=repo))
    if error:
        report.failed[repo] = error
        return None
    report.cloned.append(repo)
    return target


def fetch_repos(tasks: list[Task], repos_dir: Path, url_template: str = DEFAULT_URL) -> FetchReport:
    report = FetchReport()
    for repo, commits in sorted(_wanted(tasks).items()):
        clone = _clone_for(repo, repos_dir, url_template, report)
        if clone is None:
            continue
        report.commits_checked += len(commits)
        if missing := _ensure_commits(clone, commits):
            report.missing_commits[repo] = missing
    return report
