"""Safe git reads at one commit: `git show COMMIT:PATH` inside the given clone only.

A path that is absolute or climbs out of the repository (`..`) reads nothing, and so does a
commit that is not a hex object name (`--output=…` or `HEAD~1` could steer git or read a later
state of the repository, which may contain the fix).
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

GIT_TIMEOUT_S = 30
_COMMIT = re.compile(r"^[0-9a-fA-F]{4,64}$")


def find_clone(repos_dir: Path, repo: str) -> Path | None:
    """`owner/name` may be cloned as DIR/owner/name, DIR/owner__name or DIR/name (a normal
    clone or a bare one)."""
    owner, _, name = repo.partition("/")
    if not (is_safe_path(owner) and is_safe_path(name)) or "/" in name:
        return None
    for candidate in (repos_dir / owner / name, repos_dir / f"{owner}__{name}", repos_dir / name):
        if name and ((candidate / ".git").exists() or (candidate / "HEAD").is_file()):
            return candidate
    return None


def is_safe_commit(commit: str) -> bool:
    """Only hex object names: anything else (`--output=…`, `HEAD~1:../`) could steer git."""
    return bool(_COMMIT.match(commit or ""))


def is_safe_path(path: str) -> bool:
    pure = PurePosixPath(path)
    return bool(path) and not pure.is_absolute() and ".." not in pure.parts and "\\" not in path


def git(clone: Path, *args: str, env: dict | None = None, stdin: bytes | None = None):
    return subprocess.run(
        ["git", "-C", str(clone), *args],
        input=stdin,
        capture_output=True,
        timeout=GIT_TIMEOUT_S,
        check=False,
        env=env,
    )


def read_at_commit(clone: Path, commit: str, path: str) -> str | None:
    if not (is_safe_commit(commit) and is_safe_path(path)):
        return None
    result = git(clone, "show", "--no-textconv", f"{commit}:{path}", "--")
    return result.stdout.decode("utf-8", errors="replace") if result.returncode == 0 else None


def grep_at_commit(clone: Path, commit: str, pattern: str, globs: tuple[str, ...]) -> list[str]:
    """`path:line:text` rows of an extended-regex search of the tree at `commit`."""
    if not is_safe_commit(commit):
        return []
    result = git(clone, "grep", "-n", "-I", "-E", "-e", pattern, commit, "--", *globs)
    rows = result.stdout.decode("utf-8", errors="replace").splitlines()
    prefix = f"{commit}:"
    return [row[len(prefix) :] if row.startswith(prefix) else row for row in rows]


@dataclass
class PatchedTree:
    """The base commit with the candidate patch applied in a temporary index."""

    clone: Path
    env: dict | None
    error: str | None = None

    @property
    def applied(self) -> bool:
        return self.error is None

    def read(self, path: str) -> str | None:
        if not self.applied or not is_safe_path(path):
            return None
        result = git(self.clone, "cat-file", "blob", f":{path}", env=self.env)
        return result.stdout.decode("utf-8", errors="replace") if result.returncode == 0 else None


def _apply(clone: Path, patch: str, env: dict) -> str | None:
    """None when the patch applies (exactly, or with its hunk counts recounted)."""
    error = ""
    for extra in ((), ("--recount",)):
        result = git(
            clone, "apply", "--cached", "--whitespace=nowarn", *extra, "-",
            env=env, stdin=patch.encode("utf-8", errors="replace"),
        )  # fmt: skip
        if result.returncode == 0:
            return None
        error = result.stderr.decode("utf-8", errors="replace").strip()
    lines = [line for line in error.splitlines() if line.startswith("error:")] or [error]
    return "; ".join(lines[:2])[:300] or "git apply failed"


@contextmanager
def patched_tree(clone: Path, commit: str, patch: str) -> Iterator[PatchedTree]:
    """The patch applied to `commit` in a temporary index file: the work tree, HEAD and the
    clone's own index are never touched, and nothing of a later commit can be read."""
    if not is_safe_commit(commit):
        yield PatchedTree(clone, None, f"refused base commit {commit[:60]!r} (not a hash)")
        return
    with tempfile.TemporaryDirectory(prefix="rubric-judge-index-") as folder:
        env = {**os.environ, "GIT_INDEX_FILE": str(Path(folder) / "index")}
        loaded = git(clone, "read-tree", commit, env=env)
        if loaded.returncode != 0:
            yield PatchedTree(clone, env, f"base commit {commit} not found in {clone.name}")
            return
        yield PatchedTree(clone, env, _apply(clone, patch, env))


def list_files(clone: Path, commit: str) -> list[str]:
    """Every file path in the tree at `commit`."""
    if not is_safe_commit(commit):
        return []
    result = git(clone, "ls-tree", "-r", "--name-only", "-z", commit)
    return [p for p in result.stdout.decode("utf-8", errors="replace").split("\0") if p]


def read_many(clone: Path, commit: str, paths: list[str]) -> dict[str, str]:
    """Many blobs at `commit` in one `git cat-file --batch` call (a repository's whole source
    tree reads in about a second)."""
    if not is_safe_commit(commit) or not paths:
        return {}
    safe = [p for p in paths if is_safe_path(p) and "\n" not in p]
    request = "".join(f"{commit}:{p}\n" for p in safe).encode("utf-8")
    result = subprocess.run(
        ["git", "-C", str(clone), "cat-file", "--batch"],
        input=request, capture_output=True, timeout=GIT_TIMEOUT_S * 4, check=False,
    )  # fmt: skip
    return _parse_batch(result.stdout, safe)


def _parse_batch(output: bytes, paths: list[str]) -> dict[str, str]:
    found, position = {}, 0
    for path in paths:
        end = output.find(b"\n", position)
        if end < 0:
            break
        header = output[position:end].split()
        position = end + 1
        if len(header) < 3 or header[1] == b"missing":
            continue
        size = int(header[2])
        found[path] = output[position : position + size].decode("utf-8", errors="replace")
        position += size + 1
    return found
