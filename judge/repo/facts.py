"""Static facts about the patched files, computed without running them: does the patch apply
to the base commit, does each changed file still parse, which problems did it introduce on the
lines it added (ruff), and which calls it added do not match the signature they call."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from judge.diff import FileDiff, ParsedDiff, is_test_path
from judge.diff_budget import OTHER, file_rank
from judge.repo.calls import mismatches
from judge.repo.context import CodeContext
from judge.repo.git import PatchedTree
from judge.repo.lint import ERROR_CODES, introduced
from judge.repo.syntax import checkable, syntax_error

ERROR_KINDS = frozenset({"does_not_apply", "syntax_error", "lint", "call_mismatch"})
# `lint_warning` (an unused import or a redefinition the patch adds) is shown, not an error


class Fact(BaseModel):
    """One fact about a patched file; every kind here is an error a reviewer would flag."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: str
    kind: str  # does_not_apply | syntax_error | lint | lint_warning | call_mismatch
    line: int | None = None
    message: str

    def render(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"- {where}: {self.message}"


def added_line_numbers(file: FileDiff) -> set[int]:
    numbers = set()
    for hunk in file.hunks:
        line = hunk.new_start
        for text in hunk.lines:
            if text.startswith("+"):
                numbers.add(line)
                line += 1
            elif not text.startswith("-"):
                line += 1
    return numbers


def _file_facts(file: FileDiff, before: str | None, after: str, ctx: CodeContext) -> list[Fact]:
    path = file.path
    broken = syntax_error(path, after)
    if broken is not None and (before is None or syntax_error(path, before) is None):
        line, message = broken
        return [Fact(path=path, kind="syntax_error", line=line,
                     message=f"does not parse after the patch: {message}")]  # fmt: skip
    if not path.endswith(".py"):
        return []
    added = added_line_numbers(file)
    facts = [
        Fact(path=path, kind="lint" if f.code in ERROR_CODES else "lint_warning", line=f.line,
             message=f"{f.message} ({f.code}, new)")
        for f in introduced(path, before, after, added)
    ]  # fmt: skip
    resolve = _resolver(ctx)
    facts += [
        Fact(path=path, kind="call_mismatch", line=m.line,
             message=f"call to `{m.name}` does not match `{m.signature}`: {m.problem}")
        for m in mismatches(after, added, resolve)
    ]  # fmt: skip
    return facts


def _resolver(ctx: CodeContext):
    """A name imported into the patched file: its one definition in the repository."""

    def resolve(name: str):
        found = ctx.find(name, [])
        return found[0][1] if len(found) == 1 else None

    return resolve


def _scratch(file: FileDiff) -> bool:
    """A new file at the repository root or in a hidden folder is a script, not the product;
    generated and data files are not code to check either."""
    new_script = file.old_path is None and ("/" not in file.path or "/." in f"/{file.path}")
    return new_script or file_rank(file.path, "") == OTHER


def static_facts(parsed: ParsedDiff, patched: PatchedTree, ctx: CodeContext) -> list[Fact]:
    """Facts for every changed non-test file that a parser can read."""
    if not patched.applied:
        return [
            Fact(
                path="(patch)",
                kind="does_not_apply",
                message=f"the patch does not apply to the base commit: {patched.error}",
            )
        ]
    facts: list[Fact] = []
    for file in parsed.files:
        if file.new_path is None or file.binary or is_test_path(file.path):
            continue
        if not checkable(file.path) or _scratch(file):
            continue
        after = patched.read(file.new_path)
        if after is None:
            continue
        before = ctx.read(file.old_path) if file.old_path else None
        facts += _file_facts(file, before, after, ctx)
    return facts
