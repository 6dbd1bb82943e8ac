"""The judge's view of the repository for one candidate: the code around the change and the
static facts, computed once per (repository, base commit, patch) and cached on disk.

Without a clone (or a usable base commit) the view says so, and the judge works from the diff
alone as before; the judgement records that facts were unavailable.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from functools import cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from judge.blinding import strip_git_metadata
from judge.diff import DiffError, parse_diff
from judge.diff_budget import split_files
from judge.records import Task
from judge.repo.context import CodeContext, code_context
from judge.repo.facts import Fact, static_facts
from judge.repo.git import find_clone, grep_at_commit, is_safe_commit, patched_tree, read_at_commit

VIEW_VERSION = 2


class JudgeView(BaseModel):
    """What the judge is shown besides the diff, and where each piece came from."""

    model_config = ConfigDict(extra="forbid")

    available: bool
    note: str | None = None
    context_text: str = ""
    context: list[dict] = Field(default_factory=list)
    left_out: list[dict] = Field(default_factory=list)
    facts: list[Fact] = Field(default_factory=list)

    def facts_text(self) -> str:
        return "\n".join(f.render() for f in self.facts) or "- none found"

    def record(self) -> dict:
        """What a judgement keeps: availability, the facts, and what code was shown."""
        return {
            "available": self.available,
            "note": self.note,
            "context": self.context,
            "left_out": len(self.left_out),
        }


def without_binary(diff: str) -> str:
    """Binary sections cannot be applied without full index lines and hold no code to check."""
    kept = [c.text for c in split_files(diff) if "GIT binary patch" not in c.text
            and "Binary files " not in c.text]  # fmt: skip
    text = "".join(kept)
    return text if text.endswith("\n") else text + "\n"


def _write_atomic(path: Path, text: str) -> None:
    """Write beside and rename: views are built in threads, and two of them with the same
    patch (runs > 1) once let a reader see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, suffix=".tmp") as handle:
        handle.write(text)
    os.replace(handle.name, path)


def unavailable(note: str) -> JudgeView:
    return JudgeView(available=False, note=note)


class CodeViewer:
    """Builds views from clones under `repos_dir`, reading at each task's base commit only."""

    def __init__(self, repos_dir: Path, max_tokens: int, cache_dir: Path | None = None) -> None:
        self.repos_dir, self.max_tokens, self.cache_dir = repos_dir, max_tokens, cache_dir

    def _key(self, task: Task, patch: str) -> str:
        raw = json.dumps([VIEW_VERSION, task.repo, task.base_commit, patch, self.max_tokens])
        return hashlib.sha256(raw.encode("utf-8", errors="replace")).hexdigest()

    def view(self, task: Task, patch: str) -> JudgeView:
        key = self._key(task, patch)
        path = self.cache_dir / f"{key}.json" if self.cache_dir else None
        if path is not None and path.exists():
            return JudgeView.model_validate_json(path.read_text(encoding="utf-8"))
        view = self._build(task, patch)
        if path is not None:
            _write_atomic(path, view.model_dump_json())
        return view

    def _build(self, task: Task, patch: str) -> JudgeView:
        clone = find_clone(self.repos_dir, task.repo or "")
        if clone is None:
            return unavailable(f"no clone of {task.repo!r} under {self.repos_dir}")
        commit = task.base_commit or ""
        if not is_safe_commit(commit):
            return unavailable(f"no usable base commit ({commit[:60]!r})")
        body = strip_git_metadata(patch)
        try:
            parsed = parse_diff(body)
        except DiffError as exc:
            return unavailable(f"malformed diff: {exc}")
        builder = CodeContext(
            cache(lambda p: read_at_commit(clone, commit, p)),
            cache(lambda pattern, globs: grep_at_commit(clone, commit, pattern, globs)),
        )
        shown, left_out = (
            code_context(parsed, builder, self.max_tokens) if self.max_tokens else ([], [])
        )
        with patched_tree(clone, commit, without_binary(body)) as tree:
            facts = static_facts(parsed, tree, builder)
        return JudgeView(
            available=True,
            context_text="\n\n".join(item.render() for item in shown),
            context=[item.provenance() for item in shown],
            left_out=[item.provenance() for item in left_out],
            facts=facts,
        )
