"""The no-LLM reference rubric: structural facts of the reference patch as checkable criteria.

For each non-test code file it changes, "Does the patch modify `path`?"; for each function or
class whose body changes, "Does the patch change `name` in `path`?"; for the most distinctive
tokens it introduces or removes, "Does the patch introduce / remove `token`?". Every criterion
carries a `check`, so the static answerer can answer it from any candidate diff.
"""

from __future__ import annotations

import ast
import hashlib

from judge.code_facts import TokenChange, code_files, file_symbols, token_changes
from judge.config import ReferenceSettings
from judge.diff import DiffError, FileDiff, parse_diff
from judge.records import Task
from judge.rubric import Check, Criterion, Rubric
from rubric_gen.generator import RubricFailure

GENERATOR = "reference"
REFERENCE_VERSION = "reference-v1"
PROMPT_HASH = hashlib.sha256(REFERENCE_VERSION.encode()).hexdigest()[:16]


def enclosing_definitions(source: str, lines: set[int]) -> set[str]:
    """Names of the innermost functions/classes that contain the given (1-based) lines."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    definitions = [node for node in ast.walk(tree) if isinstance(node, kinds)]
    found: set[str] = set()
    for line in lines:
        covering = [d for d in definitions if d.lineno <= line <= (d.end_lineno or d.lineno)]
        if covering:
            found.add(max(covering, key=lambda d: d.lineno).name)
    return found


def changed_old_lines(file: FileDiff) -> set[int]:
    """Base-commit line numbers each hunk removes, or the line an insertion follows."""
    lines: set[int] = set()
    for hunk in file.hunks:
        number = hunk.old_start
        for line in hunk.lines:
            if line.startswith("-"):
                lines.add(number)
            elif line.startswith("+"):
                lines.add(max(number - 1, 1))
            if not line.startswith("+"):
                number += 1
    return lines


def _symbols(file: FileDiff, sources: dict[str, str]) -> list[str]:
    source = sources.get(file.old_path or "")
    if source is not None and file.path.endswith(".py"):
        exact = enclosing_definitions(source, changed_old_lines(file))
        if exact:
            return sorted(exact)
    return sorted(file_symbols(file))


def _rank_tokens(changes: list[TokenChange], limit: int) -> list[TokenChange]:
    """Longest first (longer tokens are rarer), one criterion per token."""
    seen: set[str] = set()
    unique = []
    for change in sorted(changes, key=lambda c: (-len(c.token), c.token, c.kind)):
        if change.token not in seen:
            seen.add(change.token)
            unique.append(change)
    return unique[:limit]


COMMON_IN_FILE = 5


def _common(change: TokenChange, sources: dict[str, str]) -> bool:
    """A token the file already uses often (known with --repos-dir) says little about the fix;
    a removed token is judged by its own presence, so only additions are filtered."""
    source = sources.get(change.path)
    return (
        change.kind == "adds"
        and source is not None
        and source.count(change.token) >= COMMON_IN_FILE
    )


Row = tuple[str, int, str, Check, list[str]]


def _file_rows(files: list[FileDiff], settings: ReferenceSettings) -> list[Row]:
    return [
        (
            f"Does the patch modify `{f.path}`?",
            settings.file_weight,
            "localization",
            Check(kind="touches_file", path=f.path),
            [f.path],
        )
        for f in files
    ]


def _symbol_rows(
    files: list[FileDiff], settings: ReferenceSettings, sources: dict[str, str]
) -> list[Row]:
    symbols = [(f, s) for f in files for s in _symbols(f, sources)][: settings.max_symbols]
    return [
        (
            f"Does the patch change `{symbol}` in `{f.path}`?",
            settings.symbol_weight,
            "root_cause",
            Check(kind="changes_symbol", path=f.path, symbol=symbol),
            [f.path, symbol],
        )
        for f, symbol in symbols
    ]


def _token_row(change: TokenChange, weight: int) -> Row:
    adds = change.kind == "adds"
    return (
        f"Does the patch {'introduce' if adds else 'remove'} `{change.token}`?",
        weight,
        "behavior",
        Check(kind="adds_token" if adds else "removes_token", token=change.token, path=change.path),
        [change.path],
    )


def _criteria(
    files: list[FileDiff], settings: ReferenceSettings, sources: dict[str, str]
) -> list[Row]:
    changes = [c for f in files for c in token_changes(f) if not _common(c, sources)]
    tokens = _rank_tokens(changes, settings.max_tokens)
    return [
        *_file_rows(files, settings),
        *_symbol_rows(files, settings, sources),
        *(_token_row(change, settings.token_weight) for change in tokens),
    ]


def reference_rubric(
    task: Task, settings: ReferenceSettings, sources: dict[str, str] | None = None
) -> Rubric:
    """`sources` maps paths to their text at the base commit (from --repos-dir), if known."""
    if not task.reference_patch:
        raise RubricFailure(f"{task.task_id}: no reference patch to derive a rubric from")
    try:
        files = code_files(parse_diff(task.reference_patch))
    except DiffError as exc:
        raise RubricFailure(f"{task.task_id}: reference patch is not a diff: {exc}") from exc
    if not files:
        raise RubricFailure(f"{task.task_id}: the reference patch changes no non-test code file")
    criteria = [
        Criterion(id=f"c{i}", question=q, weight=w, category=cat, anchors=anchors, check=check)
        for i, (q, w, cat, check, anchors) in enumerate(
            _criteria(files, settings, sources or {}), 1
        )
    ]
    return Rubric(
        task_id=task.task_id, criteria=criteria, generator=GENERATOR, prompt_hash=PROMPT_HASH
    )
